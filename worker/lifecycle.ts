// The session lifecycle: what each hook event does to the store (init, summarize, complete, a saved
// memory). Route handlers stay thin and call this. A tool use (PostToolUse) is server/routes/observe.ts's.
import type { Settings } from '../common/node/config';
import type { EventBus } from './events';
import { contentHash } from './hash';
import { projectFromCwd } from '../common/node/project';
import {
  asObject,
  BadRequest,
  checkProjectName,
  optId,
  optString,
  reqId,
  reqString,
  type InitResponse,
  type QueuedResponse,
  type SkippedResponse,
} from '../common/contract';
import { cleanIncoming, cleanText } from '../common/privacy';
import { cutText } from '../common/privacy/cut';
import { isExcludedProject } from './privacy/filters';
import { insertObservation } from './store/repos/observations';
import { insertPrompt } from './store/repos/prompts';
import { enqueue, summaryQueued } from './store/repos/queue';
import { completeSession, ensureSession, findSession, nextPrompt } from './store/repos/sessions';
import type { Store } from './store/store';

export interface ObservationJob {
  toolName: string;
  toolInput: string;
  toolResponse: string;
  cwd?: string;
  toolUseId?: string;
  promptNumber: number;
  platform: string;
}

export interface SummaryJob {
  lastUserMessage?: string;
  lastAssistantMessage?: string;
  promptNumber: number;
  reason: 'summarize' | 'session-end';
}

const MAX_PROMPT = 100_000;
/**
 * The same prompt again in the same session within this window is the same prompt: VS Code runs
 * every hook file that carries ours (~/.claude/settings.json and a Copilot hook file), so one
 * UserPromptSubmit can arrive twice.
 */
export const PROMPT_REPEAT_MS = 30_000;
export const DEFAULT_PLATFORM = 'claude-code';

export class Lifecycle {
  /** Store the file fingerprints clients attach to tool uses (settings.json freshness.enabled; set by the freshness routes). */
  recordCitations = true;

  constructor(
    private readonly store: Store,
    private readonly settings: Settings,
    private readonly events: EventBus,
    private readonly onQueued: () => void,
  ) {}

  private platformOf(o: Record<string, unknown>): string {
    return optId(o, 'platform') ?? DEFAULT_PLATFORM;
  }

  // Every text a client sends goes through cleanIncoming (common/privacy/incoming.ts: private
  // blocks stripped, secrets redacted) before it is hashed, journaled or queued: ids, paths,
  // reasons and citations included. Prompts take cleanText (tool uses: server/routes/observe.ts).
  private projectOf(o: Record<string, unknown>): { project: string; cwd?: string } {
    return projectFrom(optString(o, 'cwd', { max: 4096 }), optId(o, 'project'));
  }

  async init(body: unknown): Promise<InitResponse | (SkippedResponse & { project: string })> {
    const o = incoming(body, ['prompt']);
    const contentSessionId = reqId(o, 'contentSessionId');
    const platform = this.platformOf(o);
    const { project, cwd } = this.projectOf(o);
    const raw = optString(o, 'prompt');
    if (isExcludedProject(project, cwd, this.settings.excludedProjects)) return { skipped: 'excluded_project', project };
    const stripped = raw === undefined ? undefined : cleanText(raw);
    const text = stripped ? cutText(stripped.text.trim(), MAX_PROMPT) : '';
    const isPrivate = stripped !== undefined && text === '' && (stripped.removed > 0 || raw?.trim() !== '');
    const now = Date.now();
    const r = await this.store.write((tx) => {
      const { row, created } = ensureSession(tx, { platform, contentSessionId, project, cwd, now });
      if (text !== '') {
        const last = tx.get<{ prompt_number: number; text: string; created_at: number }>(
          'SELECT prompt_number, text, created_at FROM user_prompts WHERE session_id = ? ORDER BY prompt_number DESC LIMIT 1',
          [row.id],
        );
        if (last && last.text === text && Number(last.prompt_number) === Number(row.prompt_counter) && now - Number(last.created_at) < PROMPT_REPEAT_MS) {
          return { row, created, promptNumber: Number(last.prompt_number), promptId: undefined, duplicate: true };
        }
      }
      const promptNumber = nextPrompt(tx, row.id, isPrivate, now);
      const promptId = text !== '' ? insertPrompt(tx, { sessionId: row.id, project: row.project, promptNumber, text, createdAt: now }) : undefined;
      return { row, created, promptNumber, promptId, duplicate: false };
    });
    if (r.created) this.events.emit('session_started', { sessionDbId: r.row.id, contentSessionId, project: r.row.project, platform });
    if (r.promptId !== undefined) this.events.emit('new_prompt', { id: r.promptId, sessionDbId: r.row.id, project: r.row.project, promptNumber: r.promptNumber, text: text.slice(0, 500) });
    const res: InitResponse = { sessionDbId: r.row.id, promptNumber: r.promptNumber, project: r.row.project };
    if (isPrivate) res.skipped = 'private_prompt';
    if (r.duplicate) res.duplicate = true;
    return res;
  }

  async summarize(body: unknown): Promise<QueuedResponse | SkippedResponse> {
    const o = incoming(body);
    const contentSessionId = reqId(o, 'contentSessionId');
    const platform = this.platformOf(o);
    const { project, cwd } = this.projectOf(o);
    if (isExcludedProject(project, cwd, this.settings.excludedProjects)) return { skipped: 'excluded_project' };
    const lastUser = optString(o, 'last_user_message');
    const lastAssistant = optString(o, 'last_assistant_message');
    const job = (promptNumber: number): SummaryJob => ({
      lastUserMessage: lastUser === undefined ? undefined : cutText(clean(lastUser), MAX_PROMPT),
      lastAssistantMessage: lastAssistant === undefined ? undefined : cutText(clean(lastAssistant), MAX_PROMPT),
      promptNumber,
      reason: 'summarize',
    });
    const now = Date.now();
    const r = await this.store.write((tx) => {
      const { row } = ensureSession(tx, { platform, contentSessionId, project, cwd, now });
      if (row.prompt_private) return undefined;
      const j = job(row.prompt_counter);
      const hash = contentHash('summary', String(j.promptNumber), j.lastAssistantMessage ?? '');
      return enqueue(tx, { sessionId: row.id, kind: 'summary', payload: j, contentHash: hash, now });
    });
    if (r === undefined) return { skipped: 'duplicate_or_private' };
    this.onQueued();
    return { queued: true, jobId: r };
  }

  async complete(body: unknown): Promise<{ sessionDbId: number; status: 'completed'; summaryQueued: boolean }> {
    const o = incoming(body);
    const contentSessionId = reqId(o, 'contentSessionId');
    const platform = this.platformOf(o);
    const reason = clean(optString(o, 'reason', { max: 200 }) ?? '').trim() || 'other';
    const { project, cwd } = this.projectOf(o);
    const now = Date.now();
    const r = await this.store.write((tx) => {
      const existing = findSession(tx, platform, contentSessionId);
      const { row } = existing ? { row: existing } : ensureSession(tx, { platform, contentSessionId, project, cwd, now });
      completeSession(tx, row.id, reason, now);
      // A session that did something but was never summarised gets one now.
      const needsSummary =
        !row.prompt_private &&
        tx.get('SELECT 1 AS x FROM observations WHERE session_id = ? LIMIT 1', [row.id]) !== undefined &&
        tx.get('SELECT 1 AS x FROM session_summaries WHERE session_id = ? LIMIT 1', [row.id]) === undefined &&
        !summaryQueued(tx, row.id);
      if (needsSummary) {
        const j: SummaryJob = { promptNumber: row.prompt_counter, reason: 'session-end' };
        enqueue(tx, { sessionId: row.id, kind: 'summary', payload: j, contentHash: contentHash('summary', 'session-end'), now });
      }
      return { id: row.id, project: row.project, needsSummary };
    });
    this.events.emit('session_completed', { sessionDbId: r.id, project: r.project, reason });
    if (r.needsSummary) this.onQueued();
    return { sessionDbId: r.id, status: 'completed', summaryQueued: r.needsSummary };
  }

  async saveMemory(body: unknown): Promise<{ id: number; duplicate: boolean; project: string }> {
    const o = incoming(body, ['text', 'title']);
    const raw = reqString(o, 'text', { max: 10 * MAX_PROMPT });
    const title = optString(o, 'title', { max: 300 });
    const rawProject = optId(o, 'project');
    const given = rawProject === undefined ? '' : clean(rawProject).trim();
    const project = given ? checkProjectName('project', given) : 'default';
    const text = clean(raw).trim();
    if (text === '') throw new BadRequest('text is empty once private content is removed');
    const cleanTitle = title ? clean(title).trim() : '';
    const hash = contentHash('manual', text);
    const now = Date.now();
    const r = await this.store.write((tx) => {
      const { row } = ensureSession(tx, { platform: 'manual', contentSessionId: `manual:${project}`, project, now });
      const id = insertObservation(tx, {
        sessionId: row.id,
        project,
        type: 'discovery',
        title: cleanTitle || firstLine(text),
        narrative: text,
        facts: [],
        concepts: [],
        toolName: null,
        promptNumber: null,
        contentHash: hash,
        source: 'manual',
        createdAt: now,
      });
      if (id !== undefined) return { id, duplicate: false };
      const existing = tx.get<{ id: number }>('SELECT id FROM observations WHERE session_id = ? AND content_hash = ?', [row.id, hash]);
      return { id: Number(existing?.id ?? 0), duplicate: true };
    });
    if (!r.duplicate) this.events.emit('new_observation', { id: r.id, project, type: 'discovery', title: cleanTitle || firstLine(text), source: 'manual' });
    return { ...r, project };
  }
}

/** A request body as an object, every field but `except` through cleanIncoming. */
export function incoming(body: unknown, except: readonly string[] = []): Record<string, unknown> {
  return cleanIncoming(asObject(body), except).value;
}

/** Private blocks stripped, secrets redacted. */
export function clean(s: string): string {
  return cleanText(s).text;
}

/** The project a request names, else the one its cwd belongs to; both cleaned first. */
export function projectFrom(rawCwd: string | undefined, rawProject: string | undefined): { project: string; cwd?: string } {
  const cwd = rawCwd === undefined ? undefined : clean(rawCwd);
  const given = rawProject === undefined ? '' : clean(rawProject).trim();
  const project = given ? checkProjectName('project', given) : projectFromCwd(cwd);
  return { project, cwd: cwd || undefined };
}

function firstLine(text: string): string {
  const l = text.split('\n')[0].trim();
  return l.length > 80 ? `${l.slice(0, 79)}…` : l;
}
