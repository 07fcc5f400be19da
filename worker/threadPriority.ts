// Background threads (the embedder, the snapshot builder) yield the CPU to the worker's main
// thread, which answers hooks: on Linux the nice value is per thread, and /proc/thread-self
// names this thread's id. On 2 cores the embedder alone otherwise takes half the machine during
// a burst of observations. Elsewhere this does nothing.
import * as fs from 'node:fs';
import * as os from 'node:os';

export const BACKGROUND_NICE = 10;

/**
 * The nice value of background work: CLAUDE_MEM_BACKGROUND_NICE (a whole number 0-19) when set,
 * else BACKGROUND_NICE. 0 runs the embedder and the snapshot builder at the worker's own priority
 * (the test runner does so for the search evals, whose encoder would otherwise get only the CPU
 * the other test files leave idle). Never raises a priority: the value is a floor.
 */
export function backgroundNice(env: NodeJS.ProcessEnv = process.env): number {
  const v = env.CLAUDE_MEM_BACKGROUND_NICE;
  return v !== undefined && /^\d{1,2}$/.test(v.trim()) && Number(v) <= 19 ? Number(v) : BACKGROUND_NICE;
}

/** Lowers the calling thread's priority; returns the new nice value, or undefined if not possible. */
export function runThisThreadInBackground(nice = backgroundNice()): number | undefined {
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0 || tid === process.pid) return undefined; // never the main thread
    os.setPriority(tid, Math.max(os.getPriority(tid), nice));
    return os.getPriority(tid);
  } catch {
    return undefined;
  }
}

/**
 * Lowers every thread this process has so far (Linux), its main thread included: the threads
 * Node starts before any of our code runs (V8's compiler and garbage-collector helpers) keep the
 * priority the process started with, and on 2 cores they would compete with the worker's main
 * thread (the model's WebAssembly is compiled on them). Threads started later inherit the
 * priority of the thread that starts them. Elsewhere it lowers the process's priority.
 */
export function runAllThreadsInBackground(nice = backgroundNice()): void {
  let tids: string[];
  try {
    tids = fs.readdirSync('/proc/self/task');
  } catch {
    try {
      os.setPriority(0, Math.max(os.getPriority(0), nice)); // not Linux
    } catch {
      // not allowed here: runs at the worker's priority
    }
    return;
  }
  for (const t of tids) {
    try {
      const tid = Number(t);
      os.setPriority(tid, Math.max(os.getPriority(tid), nice));
    } catch {
      // the thread ended meanwhile, or not allowed
    }
  }
}
