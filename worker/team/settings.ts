// Team settings: the "team" object of <dataDir>/settings.json, environment first.
//   { "team": { "injectTeammates": true, "machine": "laptop" } }
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface TeamSettings {
  /** Whether records written by teammates (not by this user on another machine) go into injected context. */
  injectTeammates: boolean;
  /** The machine label shown beside this worker's records elsewhere. */
  machine: string;
}

export function readTeamSettings(dataDir: string, env: NodeJS.ProcessEnv = process.env): TeamSettings {
  let team: Record<string, unknown> = {};
  try {
    const all = JSON.parse(fs.readFileSync(path.join(dataDir, 'settings.json'), 'utf8')) as Record<string, unknown>;
    if (all.team && typeof all.team === 'object' && !Array.isArray(all.team)) team = all.team as Record<string, unknown>;
  } catch {
    /* no settings file, or one the worker's own reader reports */
  }
  const inject = env.CLAUDE_MEM_TEAM_INJECT ?? (typeof team.injectTeammates === 'boolean' ? String(team.injectTeammates) : 'true');
  const machine = (env.CLAUDE_MEM_TEAM_MACHINE ?? (typeof team.machine === 'string' ? team.machine : '')).trim() || os.hostname();
  return { injectTeammates: !['0', 'false', 'off', 'no'].includes(inject.toLowerCase()), machine: machine.slice(0, 100) };
}
