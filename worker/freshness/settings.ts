// The "freshness" object of <dataDir>/settings.json. Wrong types are ignored (the default stays).
import { readSettingsFile, settingsSection } from '../../common/node/settingsFile';

export interface FreshnessSettings {
  /** Record citations and check them. Off: citations sent by clients are ignored, nothing is marked. */
  enabled: boolean;
  /** How context injection treats a stale memory: listed apart (title and what changed only), or dropped. */
  staleInContext: 'apart' | 'drop';
  /** A memory nobody confirmed for this many days (since it was recorded or last confirmed) leaves injection; 0 (the default) = never. Never deleted: an imported history would otherwise vanish from injection at once. */
  ageOutDays: number;
  /** Injection and search prefer memories of the current branch and the branches it came from. */
  preferBranch: boolean;
}

export const DEFAULT_FRESHNESS: FreshnessSettings = { enabled: true, staleInContext: 'apart', ageOutDays: 0, preferBranch: true };

export function readFreshnessSettings(dataDir: string | undefined): FreshnessSettings {
  const out = { ...DEFAULT_FRESHNESS };
  if (!dataDir) return out;
  const r = settingsSection(readSettingsFile(dataDir).raw, 'freshness');
  if (typeof r.enabled === 'boolean') out.enabled = r.enabled;
  if (r.staleInContext === 'apart' || r.staleInContext === 'drop') out.staleInContext = r.staleInContext;
  if (typeof r.ageOutDays === 'number' && Number.isFinite(r.ageOutDays)) out.ageOutDays = Math.min(36_500, Math.max(0, r.ageOutDays));
  if (typeof r.preferBranch === 'boolean') out.preferBranch = r.preferBranch;
  return out;
}
