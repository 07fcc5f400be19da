// Where the model runs: a child process, behind one small interface (embedder.ts owns its
// lifetime). A process, not a worker thread: when it exits, all its memory goes back to the
// system, while a finished thread's allocator arena stays in the worker's RSS (measured for the
// keyword warm-up: 70 MB at 100k).
import { type ChildProcess, fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { EmbedderThreadData, FromThread, ToThread } from './protocol';

export interface ModelHost {
  send(msg: ToThread): void;
  /** Keeps the worker's event loop alive while calls are in flight. */
  ref(): void;
  unref(): void;
  /** Ends the host; 'exit' handlers see it. */
  terminate(): Promise<void>;
}

interface HostEvents {
  message(msg: FromThread): void;
  /** The host died on its own (not through terminate()); `why` says how. */
  died(why: string): void;
}

/** The last bytes of the child's stderr name an uncaught error's message. */
const STDERR_TAIL = 2000;

/** The model host: a child process running `script` (its data as JSON in argv[2]). */
export function startHost(script: string, data: EmbedderThreadData, on: HostEvents): ModelHost {
  // execArgv [] : the worker's own flags (heap limits, inspector) are not the model's.
  const execArgv = script.endsWith('.ts') ? ['--import', pathToFileURL(createRequire(script).resolve('tsx')).href] : [];
  const child: ChildProcess = fork(script, [JSON.stringify(data)], { serialization: 'advanced', stdio: ['ignore', 'ignore', 'pipe', 'ipc'], execArgv });
  let ending = false;
  let tail = '';
  child.stderr?.on('data', (d: Buffer) => (tail = (tail + d.toString()).slice(-STDERR_TAIL)));
  // Stderr alone must never keep the worker alive; the IPC channel does while calls are in flight.
  (child.stderr as { unref?: () => void } | null)?.unref?.();
  child.on('message', (m: FromThread) => on.message(m));
  child.on('error', (err) => !ending && on.died(err.message));
  const exited = new Promise<void>((resolve) =>
    child.on('exit', (code, signal) => {
      resolve();
      if (!ending) on.died(`exited with ${signal ? `signal ${signal}` : `code ${code}`}${lastError(tail)}`);
    }),
  );
  return {
    send: (msg) => child.send(msg),
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
      child.ref(); // an idle host was unref'd: wait for its exit all the same
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL'); // nothing in it to save
      return exited;
    },
  };
}

/** ": <message>" of the last "Error: …" line a crashed child printed, or nothing. */
function lastError(stderr: string): string {
  const m = /(?:^|\n)\w*Error: ([^\n]+)[^]*$/.exec(stderr);
  return m ? `: ${m[1]}` : '';
}
