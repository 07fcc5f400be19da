// Memory of a process tree from /proc. PSS, not RSS: Chromium and code-server share many
// pages between their processes, and RSS would count them once per process.
import * as fs from 'node:fs';

function readProc(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined; // the process ended between listing and reading
  }
}

/** pid -> parent pid for every live process: one read of /proc, to pass to the functions below. */
export function parents(): Map<number, number> {
  const map = new Map<number, number>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readProc(`/proc/${name}/stat`);
    // Field 4 is the ppid; the command name (field 2) may hold spaces, so split after ')'.
    const ppid = stat ? Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) : NaN;
    if (!Number.isNaN(ppid)) map.set(Number(name), ppid);
  }
  return map;
}

export function descendants(root: number, tree = parents()): number[] {
  const out = [root];
  for (let i = 0; i < out.length; i++) {
    for (const [pid, ppid] of tree) if (ppid === out[i]) out.push(pid);
  }
  return out.filter((pid) => tree.has(pid));
}

/** Proportional set size of a process and all its descendants, in MB. */
export function treePssMb(root: number, exclude: ReadonlySet<number> = new Set(), tree = parents()): number {
  let kb = 0;
  for (const pid of descendants(root, tree)) {
    if (exclude.has(pid)) continue;
    const m = /^Pss:\s+(\d+)/m.exec(readProc(`/proc/${pid}/smaps_rollup`) ?? '');
    if (m) kb += Number(m[1]);
  }
  return Math.round(kb / 1024);
}

/**
 * Processes whose command line mentions `text` (e.g. a temp dir), this process excluded; with
 * `environment`, also those whose environment at start did (an extension host and the worker it
 * started get a session's CLAUDE_MEM_DATA_DIR there).
 */
export function processesMentioning(text: string, environment = false): number[] {
  const found: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    if (readProc(`/proc/${name}/cmdline`)?.includes(text) || (environment && readProc(`/proc/${name}/environ`)?.includes(text))) found.push(Number(name));
  }
  return found;
}

/** CPU ticks (user + system, 1/100 s) per process of a tree, for CPU-time accounting. */
export function treeCpuTicks(root: number, tree = parents()): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const pid of descendants(root, tree)) {
    const stat = readProc(`/proc/${pid}/stat`);
    if (!stat) continue;
    // utime and stime are fields 14 and 15; fields after the ')' start at field 3.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks.set(pid, Number(f[11]) + Number(f[12]));
  }
  return ticks;
}
