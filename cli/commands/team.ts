// claude-mem team share|unshare|status|sync|connect: team memory through a PostgreSQL hub
// (docs/team.md). The connection string is a secret: `connect` reads it from stdin (never from
// the command line, where ps and shell history would keep it) into <dataDir>/team.url, mode 0600;
// CLAUDE_MEM_TEAM_URL in the worker's environment works too.
import { projectFromCwd } from '../../common/node/project';
import { validUrl, writeUrlFile } from '../../common/node/teamConnection';
import type { TeamStatus } from '../../common/contract';
import { request, targetFromEnv, type ClientTarget } from '../client';
import { ensureWorker } from '../startStop';

export const TEAM_USAGE = `usage: claude-mem team <command>
  status [--json]                 the hub connection, shared projects and records waiting to be pushed
  share [project] [--team T] [--prompts]
                                  share a project's memory with your team (default: this folder's
                                  project); --prompts shares its prompts too (off by default)
  unshare [project]               stop sharing it (records already on the hub stay; see docs/team.md)
  forget <project> --for-team     erase a shared project for the whole team: every teammate's
                                  copy and the hub's (a team maintainer's right; a typo share
                                  leaves the hub). Forgetting it on this machine only (VS Code's
                                  Forget Project, DELETE /api/projects/<name>) never touches the hub
  sync                            push and pull now (reconnects when offline)
  connect                         read the hub's connection string from stdin into the 0600 file
                                  <data dir>/team.url and reconnect, e.g.
                                  printf %s "$URL" | claude-mem team connect
`;

export async function runTeam(args: string[], stdin: NodeJS.ReadableStream = process.stdin): Promise<number> {
  const [sub, ...rest] = args;
  const json = rest.includes('--json');
  const positional: string[] = [];
  let team: string | undefined;
  let prompts = false;
  let forTeam = false;
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (a === '--prompts') prompts = true;
    else if (a === '--for-team') forTeam = true;
    else if (a === '--team') {
      team = rest[++i];
      if (!team) return usage('--team needs a team name');
    } else if (a === '--json') continue;
    else if (a.startsWith('--')) return usage(`unexpected option "${a}"`);
    else positional.push(a);
  }
  if (sub === undefined || sub === 'help' || sub === '--help' || sub === '-h') {
    process.stdout.write(TEAM_USAGE);
    return sub === undefined ? 2 : 0;
  }
  const t = targetFromEnv();
  if (sub === 'connect') return connect(t, stdin);
  if (!['status', 'share', 'unshare', 'sync', 'forget'].includes(sub)) return usage(`unknown team command "${sub}"`);
  if (sub === 'forget' && (!positional[0] || !forTeam)) return usage('team forget needs the project and --for-team: it erases the project for every teammate');
  if (!(await ensureWorker(t, 20_000))) {
    process.stderr.write(`claude-mem worker is not running and did not start at ${t.host}:${t.port}\n`);
    return 1;
  }
  const project = positional[0] ?? projectFromCwd(process.cwd());
  if (sub === 'status') {
    const r = await call<TeamStatus>(t, 'GET', '/api/team/status');
    if (!r) return 1;
    process.stdout.write(json ? JSON.stringify(r, null, 2) + '\n' : describeStatus(r));
    return 0;
  }
  if (sub === 'sync') {
    const r = await call<TeamStatus>(t, 'POST', '/api/team/sync', {});
    if (!r) return 1;
    process.stdout.write(json ? JSON.stringify(r, null, 2) + '\n' : describeStatus(r));
    return r.state === 'connected' ? 0 : 1;
  }
  if (sub === 'forget') {
    const r = await call<{ project: string; team: string; tombstoned: number }>(t, 'POST', '/api/team/forget', { project, confirm: project, ...(team ? { team } : {}) });
    if (!r) return 1;
    process.stdout.write(json ? JSON.stringify(r, null, 2) + '\n' : `forgot "${r.project}" for team ${r.team}: ${r.tombstoned} record(s) erased on the hub and on every teammate's machine at its next sync\n`);
    return 0;
  }
  if (sub === 'share') {
    const r = await call<{ project: string; team: string; queued: number }>(t, 'POST', '/api/team/share', { project, ...(team ? { team } : {}), ...(prompts ? { prompts } : {}) });
    if (!r) return 1;
    process.stdout.write(json ? JSON.stringify(r, null, 2) + '\n' : `sharing "${r.project}"${prompts ? ' (with its prompts)' : ''} with team ${r.team}; ${r.queued} existing record(s) queued for the hub\n`);
    return 0;
  }
  const r = await call<{ project: string }>(t, 'POST', '/api/team/unshare', { project });
  if (!r) return 1;
  process.stdout.write(json ? JSON.stringify(r, null, 2) + '\n' : `"${r.project}" is no longer shared; nothing more is pushed or pulled for it\n`);
  return 0;
}

function usage(problem: string): number {
  process.stderr.write(`${problem}\n${TEAM_USAGE}`);
  return 2;
}

async function call<T>(t: ClientTarget, method: string, path: string, body?: unknown): Promise<T | undefined> {
  const r = await request<T | { error?: string }>(t, method, path, body, 60_000);
  if (r.status === 404 && String((r.body as { error?: string })?.error ?? '').startsWith('no route')) {
    process.stderr.write('this worker has no team routes; update claude-mem\n');
    return undefined;
  }
  if (r.status < 200 || r.status >= 300) {
    const err = r.body && typeof r.body === 'object' && typeof (r.body as { error?: unknown }).error === 'string' ? (r.body as { error: string }).error : JSON.stringify(r.body);
    process.stderr.write(`team ${path.split('/').pop()} failed (${r.status}): ${err}\n`);
    return undefined;
  }
  return r.body as T;
}

async function connect(t: ClientTarget, stdin: NodeJS.ReadableStream): Promise<number> {
  let text = '';
  for await (const chunk of stdin) text += chunk.toString();
  const url = text.trim();
  if (!validUrl(url)) {
    process.stderr.write('expected a postgres:// or postgresql:// connection string on stdin\n');
    return 2;
  }
  const file = writeUrlFile(t.dataDir, url);
  process.stdout.write(`saved the hub's connection string to ${file} (mode 0600)\n`);
  if (!(await ensureWorker(t, 20_000))) return 0;
  const r = await call<TeamStatus>(t, 'POST', '/api/team/connection', { reload: true });
  if (r) process.stdout.write(describeStatus(r));
  return 0;
}

export function describeStatus(s: TeamStatus): string {
  const lines: string[] = [];
  const state =
    s.state === 'off'
      ? 'off (no hub configured: see docs/team.md)'
      : s.state === 'offline'
        ? `offline, ${s.waiting} record(s) waiting`
        : s.state === 'error'
          ? 'error'
          : s.state;
  lines.push(`team hub: ${state}${s.hub ? ` (${s.hub}, from ${s.source})` : ''}`);
  if (s.author) lines.push(`you: ${s.author} on ${s.machine}`);
  if (s.lastError) lines.push(`${s.state === 'connected' ? 'last problem' : 'error'}: ${s.lastError}`);
  if (s.shares.length === 0) lines.push('no shared projects (claude-mem team share <project>)');
  for (const sh of s.shares) lines.push(`  ${sh.project} -> team ${sh.team}${sh.prompts ? ' (with prompts)' : ''}${sh.waiting > 0 ? `, ${sh.waiting} waiting` : ', up to date'}`);
  return lines.join('\n') + '\n';
}
