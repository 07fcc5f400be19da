// Localisation for modules without a vscode import: they take an `l10n` whose t() is
// vscode.l10n.t in the extension and ENGLISH (the same formatting, no bundle) in tests and the
// CLI. Keep the call written as `l10n.t('literal', ...)`: the l10n bundle's English source
// (l10n/bundle.l10n.json) is collected from those calls by extension/core/manifest.ts.
export interface L10n {
  t(message: string, ...args: Array<string | number | boolean>): string;
}

/** vscode.l10n.t's formatting with no translation: {0}, {1}... replaced by the arguments. */
export const ENGLISH: L10n = {
  t: (message, ...args) => message.replace(/{(\d+)}/g, (whole, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : whole)),
};
