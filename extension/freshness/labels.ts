// How a memory's freshness reads in the editor (CodeLens, view, quick picks). No vscode import.
import type { MemoryFreshness } from '../../common/contract';
import { ENGLISH, type L10n } from '../core/l10n';

export const STATUS_ICON: Record<MemoryFreshness['status'], string> = {
  fresh: '$(pass)',
  confirmed: '$(verified)',
  stale: '$(warning)',
  retired: '$(archive)',
  aged: '$(history)',
};

export function statusText(m: MemoryFreshness, l10n: L10n = ENGLISH): string {
  const branch = m.otherBranch && m.branch ? ` · ${l10n.t('from branch {0}', m.branch)}` : '';
  switch (m.status) {
    case 'stale':
      return `${l10n.t('may be stale: {0}', m.reason ?? l10n.t('a cited file changed'))}${branch}`;
    case 'retired':
      return `${m.replacedBy ? l10n.t('retired (replaced by #{0})', m.replacedBy) : l10n.t('retired')}${branch}`;
    case 'aged':
      return `${l10n.t('aged out of injection: {0}', m.reason ?? '')}${branch}`;
    case 'confirmed':
      return `${l10n.t('confirmed')}${branch}`;
    default:
      return `${l10n.t('fresh')}${branch}`;
  }
}

/** The CodeLens title on a file's first line, or undefined when the file has no memory. */
export function lensTitle(items: MemoryFreshness[], l10n: L10n = ENGLISH): string | undefined {
  const live = items.filter((m) => m.status !== 'retired');
  if (live.length === 0) return undefined;
  const stale = live.filter((m) => m.status === 'stale').length;
  const count = live.length === 1 ? l10n.t('1 memory') : l10n.t('{0} memories', live.length);
  return `$(history) ${count}${stale ? ` · $(warning) ${l10n.t('{0} may be stale', stale)}` : ''}`;
}
