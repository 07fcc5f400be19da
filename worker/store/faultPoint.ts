// Named points on the stop and start paths where the fault suite stops the worker
// (test/faults/stop-start.test.ts): CLAUDE_MEM_FAULT_PAUSE="<point>[=ms],…" makes the process say
// "fault point <point>" on stderr when it first reaches that point and block there (for ms, or until
// it is killed), so a SIGKILL lands exactly there; "<point>@n" waits for the n-th time it is reached.
// Unset (always, outside the tests) it does nothing.
import * as fs from 'node:fs';

const wanted = new Map<string, { ms: number; skip: number }>();
for (const part of (process.env.CLAUDE_MEM_FAULT_PAUSE ?? '').split(',')) {
  const [point, ms] = part.trim().split('=');
  const [name, nth] = point.split('@');
  if (name) wanted.set(name, { ms: ms === undefined ? Infinity : Number(ms), skip: nth === undefined ? 0 : Math.max(0, Number(nth) - 1) });
}

export function faultPoint(name: string): void {
  const w = wanted.get(name);
  if (w === undefined) return;
  if (w.skip-- > 0) return;
  const ms = w.ms;
  wanted.delete(name);
  fs.writeSync(2, `fault point ${name}\n`);
  // Blocks the thread (timers, I/O callbacks and signal handlers wait too); a SIGKILL still ends it.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
