// `claude-mem` command line. Loads nothing heavy: the hook path must start as fast as bare node.
import { runStartStop } from './startStop';

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  switch (cmd) {
    case 'start':
    case 'stop':
    case 'status':
      return runStartStop(cmd, rest);
    case undefined:
    case 'help':
    case '--help':
      process.stdout.write(USAGE);
      return 0;
    default:
      process.stderr.write(`unknown command "${cmd}"\n${USAGE}`);
      return 2;
  }
}

const USAGE = `usage: claude-mem <command>
  start            start the worker in the background and wait until it is healthy
  stop             stop the worker gracefully (writes a final snapshot)
  status           print the worker's health
`;

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: Error) => {
    process.stderr.write(`claude-mem: ${e.message}\n`);
    process.exit(1);
  },
);
