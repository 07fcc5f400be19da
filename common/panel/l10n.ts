// The Memory panel's localisation, the way VS Code suggests for webviews: the extension puts
// vscode.l10n.bundle (undefined in English) into the page it builds (page.ts, a JSON data block),
// and the page formats its text with it like vscode.l10n.t. The English text is the key. Keep
// calls written as `l10n.t('literal', ...)`: extension/core/manifest.ts collects them into
// l10n/bundle.l10n.json next to the extension's own. The browser viewer gets no bundle (English).
// Shared by the page's two sides: page.ts (built by the extension and the worker, in Node) and the
// app in media/panel/ (media/panel/l10n.ts reads the bundle back out of the page). No DOM, no Node.

/** What vscode.l10n.bundle holds: English message -> translation (l10n-dev may add comments). */
export type L10nBundle = Record<string, string | { message: string; comment?: string[] }>;
type Arg = string | number | boolean;

export interface Localizer {
  t(message: string, ...args: Arg[]): string;
  t(message: string, args: Record<string, Arg>): string;
}

/** The id of the page's bundle element (a <script type="application/json">). */
export const BUNDLE_ELEMENT_ID = 'l10n-bundle';

/** vscode.l10n.t's formatting: {0}, {1}… or {name} replaced; an unknown placeholder stays as it is. */
export function format(message: string, args: Arg[] | Record<string, Arg>): string {
  return message.replace(/{([^}]+)}/g, (whole, key: string) => (Object.prototype.hasOwnProperty.call(args, key) ? String((args as Record<string, Arg>)[key]) : whole));
}

export function localizer(bundle?: L10nBundle): Localizer {
  return {
    t(message: string, ...rest: unknown[]): string {
      const tr = bundle?.[message];
      const text = typeof tr === 'string' ? tr : typeof tr?.message === 'string' ? tr.message : message;
      const named = rest.length === 1 && typeof rest[0] === 'object' && rest[0] !== null;
      return format(text, named ? (rest[0] as Record<string, Arg>) : (rest as Arg[]));
    },
  };
}
