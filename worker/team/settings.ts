// Team settings: the "team" object of <dataDir>/settings.json, environment first.
//   { "team": { "injectTeammates": true, "machine": "laptop" } }
import * as os from 'node:os';
import { readSettingsFile, settingsSection } from '../../common/node/settingsFile';

export interface TeamSettings {
  /** Whether records written by teammates (not by this user on another machine) go into injected context. */
  injectTeammates: boolean;
  /** The machine label shown beside this worker's records elsewhere. */
  machine: string;
}

export function readTeamSettings(dataDir: string, env: NodeJS.ProcessEnv = process.env): TeamSettings {
  // A missing or malformed file leaves the defaults; the worker's configuration reports it.
  const team = settingsSection(readSettingsFile(dataDir).raw, 'team');
  const inject = env.CLAUDE_MEM_TEAM_INJECT ?? (typeof team.injectTeammates === 'boolean' ? String(team.injectTeammates) : 'true');
  const machine = (env.CLAUDE_MEM_TEAM_MACHINE ?? (typeof team.machine === 'string' ? team.machine : '')).trim() || os.hostname();
  return { injectTeammates: !['0', 'false', 'off', 'no'].includes(inject.toLowerCase()), machine: machine.slice(0, 100) };
}
