// How a memory's freshness reads in the editor (CodeLens, view, quick picks). No vscode import.
import type { MemoryFreshness } from '../../common/contract';

export const STATUS_ICON: Record<MemoryFreshness['status'], string> = {
  fresh: '$(pass)',
  confirmed: '$(verified)',
  stale: '$(warning)',
  retired: '$(archive)',
  aged: '$(history)',
};

export function statusText(m: MemoryFreshness): string {
  const branch = m.otherBranch && m.branch ? ` · from branch ${m.branch}` : '';
  switch (m.status) {
    case 'stale':
      return `may be stale: ${m.reason ?? 'a cited file changed'}${branch}`;
    case 'retired':
      return `retired${m.replacedBy ? ` (replaced by #${m.replacedBy})` : ''}${branch}`;
    case 'aged':
      return `aged out of injection: ${m.reason ?? ''}${branch}`;
    case 'confirmed':
      return `confirmed${branch}`;
    default:
      return `fresh${branch}`;
  }
}

/** The CodeLens title on a file's first line, or undefined when the file has no memory. */
export function lensTitle(items: MemoryFreshness[]): string | undefined {
  const live = items.filter((m) => m.status !== 'retired');
  if (live.length === 0) return undefined;
  const stale = live.filter((m) => m.status === 'stale').length;
  return `$(history) ${live.length} ${live.length === 1 ? 'memory' : 'memories'}${stale ? ` · $(warning) ${stale} may be stale` : ''}`;
}
