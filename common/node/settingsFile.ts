// The one reader of <dataDir>/settings.json. It reads and parses the file; each area validates its
// own section (config.ts the top-level keys, worker/search the "search" object, worker/context the
// "context" object, worker/team the "team" object, ...). Named imports only: the hook CLI loads it
// on every event (see config.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SettingsFile {
  /** The file's top-level object; empty when the file is missing or unusable. */
  raw: Record<string, unknown>;
  /** Why the file was ignored (not JSON, not an object); absent when it was read or is missing. */
  problem?: string;
}

export function readSettingsFile(dataDir: string): SettingsFile {
  let text: string;
  try {
    text = readFileSync(join(dataDir, 'settings.json'), 'utf8');
  } catch {
    return { raw: {} };
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not a JSON object');
    return { raw: parsed as Record<string, unknown> };
  } catch (e) {
    return { raw: {}, problem: `settings.json ignored: ${(e as Error).message}` };
  }
}

/** One object-valued section of the file ("search", "team", ...), or an empty object. */
export function settingsSection(raw: Record<string, unknown>, name: string): Record<string, unknown> {
  const v = raw[name];
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
