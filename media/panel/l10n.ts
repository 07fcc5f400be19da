// The Memory panel app's localizer: reads the bundle the host wrote into the page
// (common/panel/page.ts) and formats like vscode.l10n.t (common/panel/l10n.ts). Keep calls written
// as `l10n.t('literal', ...)`: extension/core/manifest.ts collects them into l10n/bundle.l10n.json.
// No DOM needed until the first call: model.ts uses it in Node too (tests), where it is English.
import { BUNDLE_ELEMENT_ID, localizer, type L10nBundle, type Localizer } from '../../common/panel/l10n';

/** The bundle the host put in the page, if any (never throws: a bad bundle means English). */
function pageBundle(): L10nBundle | undefined {
  if (typeof document === 'undefined') return undefined;
  try {
    const parsed: unknown = JSON.parse(document.getElementById(BUNDLE_ELEMENT_ID)?.textContent || 'null');
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as L10nBundle) : undefined;
  } catch {
    return undefined;
  }
}

let page: Localizer | undefined;

/** The page's localizer, read on first use (the bundle element precedes the script). */
export const l10n: Localizer = {
  t: (message: string, ...args: unknown[]) => {
    page ??= localizer(pageBundle());
    return (page.t as (m: string, ...a: unknown[]) => string)(message, ...args);
  },
};
