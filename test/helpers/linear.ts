// Checks that a function's time grows linearly with its input, against a baseline measured in the
// same test: the same input pattern at 1/16 of the size. A linear pass takes ~16x as long on 16x
// the input; a quadratic one (the ReDoS this guards against) ~256x; garbage collection and the
// regular expression engine's own steps make a linear pass vary by a few times either way. Time is CPU time (process.cpuUsage,
// or the worker's own for a request), the best of a few runs: other processes on a loaded machine
// stretch the wall clock of a long run more than a short one's, but not its CPU time.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';

export interface Scaling {
  /** Best CPU time on the 1/16-size input, ms. */
  smallMs: number;
  /** Best CPU time on the full input, ms. */
  bigMs: number;
  /** bigMs / max(smallMs, FLOOR_MS): a quadratic pass that this hides takes under FLOOR_MS * MAX_RATIO = 320 ms on the full input. */
  ratio: number;
}

/** The size factor between the two inputs. */
export const FACTOR = 16;
/** Below this the small run's time is noise (a collection, a tick); it is counted as this much. */
const FLOOR_MS = 5;
/** Half-way (on a log scale) between linear (16) and quadratic (256). */
export const MAX_RATIO = 64;

/** This process's CPU time (user + system), ms. */
export function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** A process's CPU time (user + system) from /proc, ms; the kernel counts it in ticks of 10 ms. */
export function processCpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

function best(fn: () => void, runs: number): number {
  let min = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = cpuMs();
    fn();
    min = Math.min(min, cpuMs() - t0);
  }
  return min;
}

/** An input maker for measureScaling: unit repeated count times at k = FACTOR, count / FACTOR at k = 1. */
export function repeated(unit: string, count: number): (k: number) => string {
  return (k) => unit.repeat(Math.max(1, Math.floor((count / FACTOR) * k)));
}

/** Times fn on make(1) (the baseline) and make(FACTOR) (the full input). */
export function measureScaling(make: (k: number) => string, fn: (input: string) => unknown, runs = 3, floorMs = FLOOR_MS): Scaling {
  const small = make(1);
  const big = make(FACTOR);
  fn(small); // warm-up: compile the regular expressions and the function itself
  const smallMs = best(() => fn(small), runs);
  const bigMs = best(() => fn(big), runs);
  return { smallMs, bigMs, ratio: bigMs / Math.max(smallMs, floorMs) };
}

/** Asserts that fn's time on make(FACTOR) is less than MAX_RATIO times its time on make(1). */
export function assertLinear(make: (k: number) => string, fn: (input: string) => unknown, runs = 3, floorMs = FLOOR_MS): Scaling {
  const s = measureScaling(make, fn, runs, floorMs);
  assert.ok(
    s.ratio < MAX_RATIO,
    `${FACTOR}x the input took ${s.ratio.toFixed(1)}x as long (${s.smallMs.toFixed(1)} ms -> ${s.bigMs.toFixed(1)} ms of CPU); linear is ~${FACTOR}x, quadratic ~${FACTOR * FACTOR}x`,
  );
  return s;
}

/**
 * assertLinear for a request to another process: fn sends input, cpu reads that process's CPU
 * time (processCpuMs), whose 10 ms ticks make the floor for the small run 20 ms.
 */
export async function assertLinearAsync(make: (k: number) => string, fn: (input: string) => Promise<unknown>, cpu: () => number, runs = 3): Promise<Scaling> {
  const small = make(1);
  const big = make(FACTOR);
  const best = async (input: string) => {
    let min = Infinity;
    for (let i = 0; i < runs; i++) {
      const t0 = cpu();
      await fn(input);
      min = Math.min(min, cpu() - t0);
    }
    return min;
  };
  await fn(small);
  const smallMs = await best(small);
  const bigMs = await best(big);
  const s = { smallMs, bigMs, ratio: bigMs / Math.max(smallMs, 20) };
  assert.ok(
    s.ratio < MAX_RATIO,
    `${FACTOR}x the input took ${s.ratio.toFixed(1)}x as long (${s.smallMs.toFixed(1)} ms -> ${s.bigMs.toFixed(1)} ms of CPU); linear is ~${FACTOR}x, quadratic ~${FACTOR * FACTOR}x`,
  );
  return s;
}
