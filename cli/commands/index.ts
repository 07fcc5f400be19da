// The terminal commands (start, stop, status, install, uninstall, viewer, search, reindex, recover, team) as their own
// bundle, dist/cli-tools.js, so their code is never parsed on the hook path. dist/cli.js loads it.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { hooksStatusText } from './hooksStatus';
import { runInstallCommand } from './installCommand';
import { runReindex } from './reindex';
import { runSearch } from './search';
import { runStartStop } from '../startStop';
import { runTeam } from './team';
import { runViewer } from './viewer';

export async function runTool(cmd: string, args: string[]): Promise<number | undefined> {
  switch (cmd) {
    case 'start':
    case 'stop':
      return runStartStop(cmd, args);
    case 'status': {
      const code = await runStartStop(cmd, args);
      process.stdout.write(hooksStatusText());
      return code;
    }
    case 'install':
    case 'uninstall':
      return runInstallCommand(cmd, args);
    case 'viewer':
      return runViewer(args);
    case 'search':
      return runSearch(args);
    case 'reindex':
      return runReindex(args);
    case 'recover':
      return inWorker('recover', args);
    case 'team':
      return runTeam(args);
    default:
      return undefined;
  }
}

/**
 * Runs dist/worker.js (beside this bundle) in one of its offline modes, on this terminal, and
 * returns its exit status. `recover` rebuilds the worker's store from its files: that is the
 * worker's code (worker/recover.ts), so the CLI runs it there instead of bundling a copy of the store.
 */
function inWorker(mode: string, args: string[]): number {
  const script = join(__dirname, 'worker.js');
  if (!existsSync(script)) {
    process.stderr.write(`claude-mem: ${script} is missing; rebuild with npm run build\n`);
    return 1;
  }
  const r = spawnSync(process.execPath, [script, mode, ...args], { stdio: 'inherit', env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } });
  if (r.error) {
    process.stderr.write(`claude-mem: ${r.error.message}\n`);
    return 1;
  }
  return r.status ?? 1;
}
