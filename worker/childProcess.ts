// Work the worker hands to a child process of its own: the embedding model (search/embed/embedder.ts)
// and the keyword warm-up (search/warmProcess.ts). A process, not a worker thread: when it exits,
// all its memory goes back to the system, while a finished thread's allocator arena stays in the
// worker's RSS (measured for the keyword warm-up: 70 MB at 100k).
import { fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { RETURN_FREED_MEMORY } from '../common/node/mallocEnv';

export interface Child<Out> {
  send(msg: Out): void;
  /** Keeps the worker's event loop alive while calls are in flight. */
  ref(): void;
  unref(): void;
  /** Ends the child (SIGKILL: nothing in it to save); `died` is not called. */
  terminate(): Promise<void>;
}

interface ChildEvents<In> {
  message(msg: In): void;
  /** The child died on its own (not through terminate()), once; `why` says how. */
  died(why: string): void;
}

/** The last bytes of the child's stderr name an uncaught error's message. */
const STDERR_TAIL = 2000;

/**
 * A child process running `script` (its data as JSON in argv[2]); `env` is laid over the worker's,
 * less the worker's malloc settings (RETURN_FREED_MEMORY): a child has glibc's defaults unless `env`
 * gives them (the model process keeps the defaults it was measured with).
 */
export function startChild<In, Out>(script: string, data: unknown, on: ChildEvents<In>, env: NodeJS.ProcessEnv = {}): Child<Out> {
  // execArgv [] : the worker's own flags (heap limits, inspector) are not the child's.
  const execArgv = script.endsWith('.ts') ? ['--import', pathToFileURL(createRequire(script).resolve('tsx')).href] : [];
  // 'advanced': typed arrays travel as they are, not as JSON.
  const inherited = { ...process.env };
  for (const k of Object.keys(RETURN_FREED_MEMORY)) delete inherited[k];
  const child = fork(script, [JSON.stringify(data)], { serialization: 'advanced', stdio: ['ignore', 'ignore', 'pipe', 'ipc'], execArgv, env: { ...inherited, ...env } });
  let ending = false;
  let tail = '';
  const died = (why: string) => {
    if (ending) return;
    ending = true;
    on.died(why);
  };
  child.stderr?.on('data', (d: Buffer) => (tail = (tail + d.toString()).slice(-STDERR_TAIL)));
  // Stderr alone must never keep the worker alive; the IPC channel does while calls are in flight.
  (child.stderr as { unref?: () => void } | null)?.unref?.();
  child.on('message', (m: In) => on.message(m));
  child.on('error', (err) => died(err.message));
  const exited = new Promise<void>((resolve) =>
    child.on('exit', (code, signal) => {
      resolve();
      died(`exited with ${signal ? `signal ${signal}` : `code ${code}`}${lastError(tail)}`);
    }),
  );
  return {
    send: (msg) => child.send(msg as object),
    ref: () => {
      child.ref();
      child.channel?.ref();
    },
    unref: () => {
      child.unref();
      child.channel?.unref();
    },
    terminate: () => {
      ending = true;
      child.ref(); // an idle child was unref'd: wait for its exit all the same
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      return exited;
    },
  };
}

/** ": <message>" of the last "Error: …" line a crashed child printed, or nothing. */
function lastError(stderr: string): string {
  const m = /(?:^|\n)\w*Error: ([^\n]+)[^]*$/.exec(stderr);
  return m ? `: ${m[1]}` : '';
}
