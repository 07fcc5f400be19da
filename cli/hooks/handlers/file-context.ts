// PreToolUse on a read: add what memory knows about the file as additionalContext. Never changes
// the tool input and never decides the permission (a sync "allow" would skip the user's prompt).
// Silent for every other tool (VS Code ignores matchers, so this runs on every tool call: the check
// costs a table lookup), small files, files with no history, and a file whose history this session
// has already seen.
import { statSync, type Stats } from 'node:fs';
import { isAbsolute, relative, resolve as resolvePath } from 'node:path';
import { parseFileHistory } from '../../../common/contract/replies';
import { isReadTool, toolFiles } from '../../../common/toolKinds';
import { projectFromCwd } from '../../../common/node/project';
import { query } from '../../client';
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

/** more: the worker has older rows than these (the hook asks for SHOW only). */
export function formatFileHistory(displayPath: string, rows: FileHistoryRow[], fileMtimeMs: number, more = false): string {
  const shown = [...rows].sort((a, b) => b.epoch - a.epoch || b.id - a.id).slice(0, SHOW).reverse();
  const newest = Math.max(...rows.map((r) => r.epoch));
  const count = more ? `more than ${rows.length} past observations` : `${rows.length} past observation${rows.length === 1 ? '' : 's'}`;
  const lines = [
    '<claude-mem-context>',
    `Memory has ${count} about ${displayPath} (${more ? `the newest ${shown.length}, ` : ''}oldest first). The Read result is the file as it is now; these are history.`,
    ...shown.map((r) => `- #${r.id} ${stamp(r.epoch)} [${r.type}] ${r.title}${r.action ? ` (${r.action})` : ''}`.replace(/ {2,}/g, ' ')),
  ];
  if (rows.length > shown.length) lines.push(`- …and ${rows.length - shown.length} older`);
  else if (more) lines.push('- …and older ones (search_memory with the file name finds them)');
  if (newest && fileMtimeMs > newest) lines.push('The file has changed since the newest of these.');
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
  // Only the rows it shows: the reply is read, checked and parsed by a cold process on every Read.
  const url = `/api/search/by-file${query({ path: abs, project: projectFromCwd(cwd), limit: SHOW })}`;
  const r = await call(env, 'GET', url, undefined, { optionalRoute: true, meanwhile: () => seen.load() });
  if (!r.ok) return {};
  let history: { rows: FileHistoryRow[]; more: boolean };
  try {
    history = historyReply(r.reply.body);
  } catch (e) {
    env.log.error((e as Error).message); // our bug: no context this time, and said loudly in the log
    return {};
  }
  const { rows, more } = history;
  if (rows.length === 0) return {};
  // The newest id changes with any new observation; the count only up to SHOW (then "+").
  const signature = `${Math.floor(st.mtimeMs)}:${st.size}:${Math.max(...rows.map((x) => x.id))}:${rows.length}${more ? '+' : ''}`;
  if (!seen.claim(abs, signature)) return {};
  return { context: formatFileHistory(inside ? rel : abs, rows, st.mtimeMs, more), event: 'PreToolUse' };
}
