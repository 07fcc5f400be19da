// Ending what a test started: a detached child's process group, and strays found by path.
import type { ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { processesMentioning } from './processTree';

/**
 * Processes the extension started detached (its worker) left the group: find them by path, in
 * their command line or (with `environment`) their environment.
 */
export function killMentioning(root: string, environment = false): void {
  for (const pid of processesMentioning(root + path.sep, environment)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}

export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}

/** SIGTERM to the group, SIGKILL after 5 s, then SIGKILL to whatever of the group is left. */
export async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    killGroup(child, 'SIGTERM');
    const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
  // Children that ignored SIGTERM (pty host, watchers) go with the group.
  killGroup(child, 'SIGKILL');
}
