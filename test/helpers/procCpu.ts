// CPU seconds of processes from /proc (Linux; undefined elsewhere): what the memory eval prints to
// show where its CPU goes (this process, the hook processes it ran, the worker, the worker's children).
import * as fs from 'node:fs';

const TICK_S = 0.01; // USER_HZ is 100 on Linux

export interface ProcCpu {
  /** The process's own user+system seconds. */
  self: number;
  /** Its children's that have ended and been waited for. */
  ended: number;
}

export function procCpu(pid: number | 'self'): ProcCpu | undefined {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
    // fields 14-17 of stat(5) (utime stime cutime cstime) are f[11..14] after the pid and comm
    return { self: (Number(f[11]) + Number(f[12])) * TICK_S, ended: (Number(f[13]) + Number(f[14])) * TICK_S };
  } catch {
    return undefined;
  }
}

/** The pids of a process's live children (by the parent pid in each /proc/<pid>/stat). */
export function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const s = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(name));
    } catch {
      /* ended meanwhile */
    }
  }
  return out;
}

/** A process's own CPU and all of its children's (ended ones, and live ones with their own ended ones). */
export function treeCpu(pid: number): { self: number; children: number } | undefined {
  const me = procCpu(pid);
  if (!me) return undefined;
  let children = me.ended;
  for (const c of childPids(pid)) {
    const t = treeCpu(c);
    if (t) children += t.self + t.children;
  }
  return { self: me.self, children };
}
