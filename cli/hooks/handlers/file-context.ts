// PreToolUse on a read: add what memory knows about the file as additionalContext. Never changes
// the tool input and never decides the permission (a sync "allow" would skip the user's prompt).
// Silent for every other tool (VS Code ignores matchers, so this runs on every tool call: the check
// costs a table lookup), small files, files with no history, and a file whose history this session
// has already seen. The file is checked against the work tree and the branch (cli/freshnessCheck.ts)
// and the check rides in the history request (POST /api/search/by-file: one round trip); git is
// asked (one `git status` for this file) only when the file has history that differs from it and
// git's answer is not kept:
// a memory no longer true is marked "may be stale" with what changed, a memory of another branch
// says so, a teammate's retire or confirm names them. A file whose content is unchanged is fresh
// whatever its modification time.
import { statSync, type Stats } from 'node:fs';
import { isAbsolute, relative, resolve as resolvePath } from 'node:path';
import { recordRef } from '../../../common/contract/refs';
import { parseFileHistory } from '../../../common/contract/replies';
import { isReadTool, toolFiles } from '../../../common/toolKinds';
import { projectFromCwd } from '../../../common/node/project';
import { query } from '../../client';
import type { FreshnessCheckRequest } from '../../../common/contract';
import { checkFile, hookAnswers, viewParams, type UseView } from '../../freshnessCheck';
import { findRepo, relativeTo } from '../../../common/node/freshness/gitRepo';
import { branchOf } from '../../../common/node/freshness/worktree';
import { tookPath } from '../codePaths';
import { SeenFiles } from '../fileContextState';
import type { HookInput, HookReply } from '../input';
import { call, type HookEnv } from '../io';

/** Files smaller than this are cheaper to read than to be told about. */
export const MIN_FILE_BYTES = 1500;
const SHOW = 12;

export interface FileHistoryRow {
  id: number;
  title: string;
  type: string;
  epoch: number;
  /** What that observation did with the file, when the route says. */
  action?: string;
  /** 'stale' (with what changed) or 'retired', from the worker's freshness. */
  freshness?: 'stale' | 'retired';
  staleReason?: string;
  /** The branch of a memory recorded on another branch. */
  otherBranch?: string;
  /** The teammate whose confirm or retire decided the memory's state (team sync). */
  decidedBy?: string;
}

/** A GET /api/search/by-file reply (common/contract): its rows, and whether the file has more; throws ContractError off the contract. */
export function historyReply(body: unknown): { rows: FileHistoryRow[]; more: boolean } {
  const reply = parseFileHistory(body);
  const rows = reply.items.map((r) => ({
    id: r.id,
    title: r.title.trim() ? r.title.replace(/\s+/g, ' ').trim().slice(0, 160) : '(untitled)',
    type: r.type,
    epoch: r.epoch,
    action: r.action,
    ...(r.freshness ? { freshness: r.freshness } : {}),
    ...(r.staleReason ? { staleReason: r.staleReason } : {}),
    ...(r.otherBranch && r.branch ? { otherBranch: r.branch } : {}),
    ...(r.decidedBy ? { decidedBy: r.decidedBy.replace(/\s+/g, ' ').trim().slice(0, 100) } : {}),
  }));
  return { rows, more: reply.hasMore };
}

export function historyRows(body: unknown): FileHistoryRow[] {
  return historyReply(body).rows;
}

function stamp(epoch: number): string {
  if (!epoch) return '';
  const d = new Date(epoch);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/**
 * A row's mark: never shown as fact when a cited file changed, it was retired, or it is another
 * branch's; a teammate's retire or confirm names them, as search rows and the MCP tools do.
 */
function mark(r: FileHistoryRow): string {
  if (r.freshness === 'retired') return r.decidedBy ? ` [RETIRED by ${r.decidedBy}: no longer true]` : ' [RETIRED: no longer true]';
  if (r.freshness === 'stale') return ` [MAY BE STALE: ${r.staleReason ?? 'a cited file changed'}]`;
  if (r.decidedBy) return ` [confirmed by ${r.decidedBy}]`;
  if (r.otherBranch) return ` [from branch ${r.otherBranch}]`;
  return '';
}

/** more: the worker has older rows than these (the hook asks for SHOW only). */
export function formatFileHistory(displayPath: string, rows: FileHistoryRow[], more = false): string {
  const shown = [...rows].sort((a, b) => b.epoch - a.epoch || b.id - a.id).slice(0, SHOW).reverse();
  const count = more ? `more than ${rows.length} past observations` : `${rows.length} past observation${rows.length === 1 ? '' : 's'}`;
  const stale = rows.filter((r) => r.freshness).length;
  const lines = [
    '<claude-mem-context>',
    `Memory has ${count} about ${displayPath} (${more ? `the newest ${shown.length}, ` : ''}oldest first). The Read result is the file as it is now; these are history.`,
    ...shown.map((r) => `- ${recordRef('observation', r.id)} ${stamp(r.epoch)} [${r.type}] ${r.title}${r.action ? ` (${r.action})` : ''}${mark(r)}`.replace(/ {2,}/g, ' ')),
  ];
  if (rows.length > shown.length) lines.push(`- …and ${rows.length - shown.length} older`);
  else if (more) lines.push('- …and older ones (search_memory with the file name finds them)');
  if (stale) lines.push(`${stale} of these may no longer hold (checked against the file now): verify before relying on them.`);
  lines.push('Details: get_observations with these ids (claude-mem MCP server).', '</claude-mem-context>');
  return lines.join('\n');
}

export async function fileContextHook(input: HookInput, env: HookEnv): Promise<HookReply> {
  if (!input.toolName || !isReadTool(input.toolName)) return {};
  const filePath = toolFiles(input.toolName, input.toolInput)[0];
  const sessionId = input.sessionId;
  if (!filePath || !sessionId) return {};
  const cwd = input.cwd ?? process.cwd();
  const abs = resolvePath(cwd, filePath);
  let st: Stats;
  try {
    st = statSync(abs);
  } catch {
    return {};
  }
  if (!st.isFile() || st.size < MIN_FILE_BYTES) return {};
  const rel = relative(cwd, abs);
  const inside = rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  // What this session has been shown is read while the worker looks the history up.
  const seen = new SeenFiles(env.target.dataDir, sessionId);
  const project = projectFromCwd(cwd);
  const repo = findRepo(cwd);
  const repoRel = repo ? relativeTo(repo, abs) : undefined;
  // The file is checked here first (git's kept answers only: no git process before the file is
  // known to have history), and the check rides in the history request: one round trip.
  const answers = repoRel ? hookAnswers(env.target.dataDir) : undefined;
  const first = repoRel ? checkFile(project, cwd, repoRel, { ...answers, keptOnly: true }) : undefined;
  if (first?.check) tookPath('c');
  const history = async (view: UseView | undefined, check: FreshnessCheckRequest | undefined, meanwhile?: () => void) => {
    // Only the rows it shows: the reply is read, checked and parsed by a cold process on every Read.
    const url = `/api/search/by-file${query({ path: abs, project, limit: SHOW, ...viewParams(view) })}`;
    let r = await call(env, check ? 'POST' : 'GET', url, check, { optionalRoute: true, meanwhile, checkBody: true });
    if (check && !r.ok && r.reason === 'not_found') {
      // A worker without the POST: the check, then the history (two round trips).
      await call(env, 'POST', '/api/freshness/check', check, { optionalRoute: true, checkBody: true });
      r = await call(env, 'GET', url, undefined, { optionalRoute: true });
    }
    if (!r.ok) return undefined;
    try {
      return historyReply(r.reply.body);
    } catch (e) {
      env.log.error((e as Error).message); // our bug: no context this time, and said loudly in the log
      return undefined;
    }
  };
  const view = first?.view ?? (repo ? branchOf(cwd) : undefined);
  let got = await history(view, first?.check, () => seen.load());
  if (!got || got.rows.length === 0) return {};
  const sent = first?.check?.files[0];
  // The file differs from what some memory cites and git was not asked how (committed or staged):
  // asked now (its answer is kept for the next hooks), and the verdict sent again with the kind.
  if (repoRel && sent && sent.tracked && !sent.change && !sent.gone && got.rows.some((r) => r.freshness === 'stale')) {
    tookPath('g');
    const full = checkFile(project, cwd, repoRel, answers);
    if (full.check?.files[0]?.change) got = (await history(full.view, full.check)) ?? got;
  }
  const blob = sent?.blob;
  const { rows, more } = got;
  if (rows.length === 0) return {};
  // The content (its blob id, else size) and the verdicts, not the mtime: a touched file is the same file.
  const signature = `${blob ?? st.size}:${Math.max(...rows.map((x) => x.id))}:${rows.length}${more ? '+' : ''}:${rows.filter((x) => x.freshness).length}`;
  if (!seen.claim(abs, signature)) return {};
  tookPath('h');
  return { context: formatFileHistory(inside ? rel : abs, rows, more), event: 'PreToolUse' };
}
