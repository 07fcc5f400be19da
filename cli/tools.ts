// The terminal commands (start, stop, status, install, uninstall, viewer, search, reindex) as their own
// bundle, dist/cli-tools.js, so their code is never parsed on the hook path. dist/cli.js loads it.
import { hooksStatusText } from './hooksStatus';
import { runInstallCommand } from './installCommand';
import { runRecover } from './recover';
import { runReindex } from './reindex';
import { runSearch } from './search';
import { runStartStop } from './startStop';
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
      return runRecover(args);
    case 'team':
      return runTeam(args);
    default:
      return undefined;
  }
}
