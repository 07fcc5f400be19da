// The local side of team sync, all in the worker's store: shares, the outbox, global ids, tombstones,
// and applying what the hub sends. Every apply is idempotent: a gid already here, or tombstoned,
// changes nothing, so duplicates, reordering and replays after a crash are harmless.
import { insertObservation, observationContent, type ObservationRow } from '../store/repos/observations';
import { insertPrompt, type PromptRow } from '../store/repos/prompts';
import { ensureSession } from '../store/repos/sessions';
import { insertSummary, type SummaryRow } from '../store/repos/summaries';
import type { Store, WriteTx } from '../store/store';
import { cutStripped } from '../../common/privacy';
import { admitRecord, admitText } from './admit';
import { dropAbsolutePaths, sanitizeForHub, shareablePayload } from './sanitize';
import type { HubChange, HubCorrection, HubRecord, HubTombstone } from './types';
import { TEAM_PLATFORM } from '../../common/contract/taxonomy';

export interface ShareRow {
  project: string;
  team: string;
  cursor: number;
  /** 1 when the user also opted in to sharing this project's prompts. */
  prompts: number;
}

export type SharedKind = 'observation' | 'summary' | 'prompt';

const TABLES: Record<SharedKind, string> = { observation: 'observations', summary: 'session_summaries', prompt: 'user_prompts' };

export interface OutboxRow {
  id: number;
  op: 'put' | 'delete';
  kind: SharedKind;
  local_id: number | null;
  gid: string;
  project: string;
  attempts: number;
}

export function getMeta(db: Pick<Store, 'get'>, key: string): string | undefined {
  return db.get<{ value: string }>('SELECT value FROM team_meta WHERE key = ?', [key])?.value;
}

export function setMeta(tx: WriteTx, key: string, value: string): void {
  tx.run('INSERT INTO team_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [key, value]);
}

export function listShares(db: Pick<Store, 'all'>): ShareRow[] {
  return db.all<ShareRow>('SELECT project, team, cursor, prompts FROM team_shares ORDER BY project');
}

export function shareOf(db: Pick<Store, 'get'>, project: string): ShareRow | undefined {
  return db.get<ShareRow>('SELECT project, team, cursor, prompts FROM team_shares WHERE project = ?', [project]);
}

/**
 * Shares a project: from now on the triggers queue its new records; the ones already stored are
 * given their global ids and queued here. Ids of records shared before keep their gid (a re-share
 * pushes the same gids again, which the hub ignores).
 */
export function addShare(tx: WriteTx, project: string, team: string, now: number, prompts = false): number {
  tx.run('INSERT INTO team_shares (project, team, cursor, shared_at, prompts) VALUES (?, ?, 0, ?, ?) ON CONFLICT (project) DO UPDATE SET team = excluded.team, prompts = excluded.prompts', [
    project,
    team,
    now,
    prompts ? 1 : 0,
  ]);
  let queued = 0;
  const kinds: SharedKind[] = prompts ? ['observation', 'summary', 'prompt'] : ['observation', 'summary'];
  for (const kind of kinds) {
    const table = TABLES[kind];
    const letter = kind[0];
    tx.run(
      `INSERT OR IGNORE INTO team_records (kind, local_id, gid, project, origin)
       SELECT '${kind}', c.id, m.value || ':${letter}:' || c.id || ':' || c.created_at, c.project, m.value
         FROM ${table} c JOIN sessions s ON s.id = c.session_id, team_meta m
        WHERE m.key = 'machine_id' AND c.project = ? AND s.platform IS NOT '${TEAM_PLATFORM}'`,
      [project],
    );
    queued += tx.run(
      `INSERT INTO team_outbox (op, kind, local_id, gid, project, created_at)
       SELECT 'put', r.kind, r.local_id, r.gid, r.project, c.created_at
         FROM team_records r JOIN ${table} c ON c.id = r.local_id
        WHERE r.kind = '${kind}' AND r.project = ? AND r.origin = (SELECT value FROM team_meta WHERE key = 'machine_id')
          AND NOT EXISTS (SELECT 1 FROM team_outbox o WHERE o.gid = r.gid AND o.op = 'put')
        ORDER BY c.created_at, c.id`,
      [project],
    ).changes;
  }
  return queued;
}

/** Stops sharing: nothing more is pushed or pulled for it; what waits in the outbox is dropped. */
export function removeShare(tx: WriteTx, project: string): boolean {
  tx.run('DELETE FROM team_outbox WHERE project = ?', [project]);
  return tx.run('DELETE FROM team_shares WHERE project = ?', [project]).changes > 0;
}

export function outboxCount(db: Pick<Store, 'get'>, project?: string): number {
  const r = project === undefined ? db.get<{ n: number }>('SELECT count(*) AS n FROM team_outbox') : db.get<{ n: number }>('SELECT count(*) AS n FROM team_outbox WHERE project = ?', [project]);
  return Number(r?.n ?? 0);
}

export function outboxReady(db: Pick<Store, 'all'>, now: number, limit: number): OutboxRow[] {
  return db.all<OutboxRow>('SELECT id, op, kind, local_id, gid, project, attempts FROM team_outbox WHERE next_attempt_at <= ? ORDER BY id LIMIT ?', [now, limit]);
}

export function nextOutboxAttempt(db: Pick<Store, 'get'>): number | undefined {
  const r = db.get<{ t: number | null }>('SELECT min(next_attempt_at) AS t FROM team_outbox');
  return r?.t === null || r?.t === undefined ? undefined : Number(r.t);
}

/** Suffix of the outbox gid of a correction (its record's gid + this), kept apart from the record's own put. */
const STATE_SUFFIX = '#state';

/**
 * Queues the user's confirm or retire of a shared observation for the hub (freshness corrections
 * travel). False when the observation is not shared. Called in the decision's own transaction or
 * right after it.
 */
export function queueCorrection(tx: WriteTx, id: number): boolean {
  const r = tx.get<{ gid: string; project: string }>(
    `SELECT r.gid, r.project FROM team_records r JOIN team_shares s ON s.project = r.project WHERE r.kind = 'observation' AND r.local_id = ?`,
    [id],
  );
  const st = tx.get<{ at: number }>('SELECT at FROM memory_state WHERE observation_id = ?', [id]);
  if (!st) return false;
  // The user's own decision now stands, whoever decided before.
  tx.run('DELETE FROM team_meta WHERE key = ?', [`decided_by:${id}`]);
  if (!r) return false;
  tx.run(`INSERT INTO team_outbox (op, kind, local_id, gid, project, created_at) VALUES ('put', 'state', ?, ?, ?, ?)`, [id, `${r.gid}${STATE_SUFFIX}`, r.project, st.at]);
  return true;
}

/** Who made the decision a pulled correction brought (undefined for the user's own). */
export function decidedBy(db: Pick<Store, 'get'>, id: number): string | undefined {
  return getMeta(db, `decided_by:${id}`) || undefined;
}

export interface PushBatch {
  records: HubRecord[];
  tombstones: HubTombstone[];
  corrections: HubCorrection[];
  /** Outbox ids this batch settles (including puts whose record is gone: a tombstone follows). */
  ids: number[];
}

/**
 * Turns outbox rows into what the hub receives: only what may leave (shareablePayload: stripped,
 * redacted, no absolute path, prompts only when opted in), capped as a teammate's gate would cap it.
 */
export function buildPush(store: Pick<Store, 'get'>, rows: OutboxRow[], machine: string, now = Date.now()): PushBatch {
  const batch: PushBatch = { records: [], tombstones: [], corrections: [], ids: [] };
  for (const r of rows) {
    const share = shareOf(store, r.project);
    batch.ids.push(r.id);
    if (!share || (r.kind === 'prompt' && r.op === 'put' && share.prompts !== 1)) continue;
    if (r.op === 'delete') {
      batch.tombstones.push({ gid: r.gid, team_id: share.team, project: r.project, kind: r.kind });
      continue;
    }
    if ((r.kind as string) === 'state') {
      const st = store.get<{ status: 'confirmed' | 'retired'; replaced_by: number | null; note: string | null; at: number }>('SELECT status, replaced_by, note, at FROM memory_state WHERE observation_id = ?', [r.local_id ?? 0]);
      if (!st) continue;
      const replacement = st.replaced_by === null ? undefined : store.get<{ gid: string }>(`SELECT gid FROM team_records WHERE kind = 'observation' AND local_id = ?`, [st.replaced_by]);
      batch.corrections.push({
        cid: `${getMeta(store, 'machine_id') ?? 'unknown'}:${r.local_id}:${st.at}`,
        team_id: share.team,
        project: r.project,
        gid: r.gid.endsWith(STATE_SUFFIX) ? r.gid.slice(0, -STATE_SUFFIX.length) : r.gid,
        status: st.status,
        replaced_by: replacement?.gid ?? null,
        note: st.note ? sanitizeForHub(dropAbsolutePaths(st.note)).slice(0, 2000) : null,
      });
      continue;
    }
    const id = r.local_id ?? 0;
    const rec = r.kind === 'observation' ? observationPayload(store, id) : r.kind === 'summary' ? summaryPayload(store, id) : promptPayload(store, id);
    if (!rec) continue; // deleted before it was pushed
    const payload = shareablePayload(r.kind, rec.payload, { prompts: share.prompts === 1, source: rec.source });
    // The caps teammates apply (admit.ts), applied here too, so a long record arrives cut rather than refused.
    const capped = admitRecord({ kind: r.kind, gid: r.gid, origin: null, machine: null, author: null, origin_session: null, payload, created_at: String(rec.createdAt) }, now);
    if (!capped.ok) continue; // a type outside the taxonomy: no teammate would take it
    batch.records.push({
      gid: r.gid,
      team_id: share.team,
      project: r.project,
      kind: r.kind,
      origin: r.gid.split(':')[0],
      machine,
      origin_session: `${r.gid.split(':')[0]}/${rec.sessionKey}`,
      payload: capped.payload,
      created_at: rec.createdAt,
    });
  }
  return batch;
}

interface Payload {
  payload: Record<string, unknown>;
  createdAt: number;
  sessionKey: string;
  source?: string;
}

function observationPayload(db: Pick<Store, 'get'>, id: number): Payload | undefined {
  const o = db.get<ObservationRow>('SELECT * FROM observations WHERE id = ?', [id]);
  if (!o) return undefined;
  return {
    createdAt: o.created_at,
    sessionKey: String(o.session_id),
    source: o.source,
    // A quiet note stays quiet on every teammate's machine: searchable, not listed or injected.
    payload: { ...observationContent(o), ...(o.quiet ? { quiet: true } : {}) },
  };
}

function promptPayload(db: Pick<Store, 'get'>, id: number): Payload | undefined {
  const p = db.get<PromptRow>('SELECT * FROM user_prompts WHERE id = ?', [id]);
  if (!p) return undefined;
  return { createdAt: p.created_at, sessionKey: String(p.session_id), payload: { text: p.text, promptNumber: p.prompt_number } };
}

function summaryPayload(db: Pick<Store, 'get'>, id: number): Payload | undefined {
  const s = db.get<SummaryRow>('SELECT * FROM session_summaries WHERE id = ?', [id]);
  if (!s) return undefined;
  return {
    createdAt: s.created_at,
    sessionKey: String(s.session_id),
    // No model tokens: written by the local compressor (or imported), from the prompts and the assistant's words.
    source: s.input_tokens + s.output_tokens > 0 ? 'model' : 'local',
    payload: { request: s.request, investigated: s.investigated, learned: s.learned, completed: s.completed, nextSteps: s.next_steps, notes: s.notes, promptNumber: s.prompt_number },
  };
}

export function ackOutbox(tx: WriteTx, ids: number[]): void {
  if (ids.length > 0) tx.run('DELETE FROM team_outbox WHERE id IN (SELECT value FROM json_each(?))', [JSON.stringify(ids)]);
}

export function deferOutbox(tx: WriteTx, ids: number[], nextAt: number, error: string): void {
  if (ids.length > 0) {
    tx.run('UPDATE team_outbox SET attempts = attempts + 1, next_attempt_at = ?, last_error = ? WHERE id IN (SELECT value FROM json_each(?))', [nextAt, error.slice(0, 500), JSON.stringify(ids)]);
  }
}

export interface Applied {
  added: { kind: SharedKind; id: number; type: string; title: string }[];
  removed: { kind: string; id: number }[];
  /** Pulled records refused by the gate (worker/team/admit.ts), for the log. */
  refused: { gid: string; author: string | null; reason: string }[];
  /** Pulled records kept with a field cut to its cap. */
  cut: number;
  /** Teammates' corrections applied here (observation ids). */
  decided?: { id: number; status: string; by: string | null }[];
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const list = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/**
 * Whether applying these changes would change anything here. Most pulls while connected bring back
 * this worker's own pushes: those need no write at all (the cursor then moves in memory only).
 */
export function changesAnything(db: Pick<Store, 'get'>, changes: HubChange[]): boolean {
  for (const c of changes) {
    const known = db.get('SELECT 1 AS x FROM team_records WHERE gid = ?', [c.gid]) !== undefined;
    const dead = db.get('SELECT 1 AS x FROM team_tombstones WHERE gid = ?', [c.gid]) !== undefined;
    if (c.op === 'state') {
      if (!ownCorrection(db, c)) return true;
      continue;
    }
    if (c.op === 'put' ? !known && !dead && (c.payload !== null || c.oversize) : known || !dead) return true;
  }
  return false;
}

/** Applies pulled changes of one project and moves its cursor (at least to `cursor`), in the caller's transaction. */
export function applyChanges(tx: WriteTx, project: string, changes: HubChange[], out: Applied, atLeast = 0, now = Date.now()): void {
  let cursor = Math.max(atLeast, Number(shareOf(tx, project)?.cursor ?? 0));
  for (const c of changes) {
    cursor = Math.max(cursor, Number(c.seq));
    if (c.op === 'delete') applyTombstone(tx, project, c.gid, out);
    else if (c.op === 'state') applyCorrection(tx, c, out, now);
    else applyRecord(tx, project, c, out, now);
  }
  tx.run('UPDATE team_shares SET cursor = ? WHERE project = ?', [cursor, project]);
}

/** This worker's own decision coming back (its machine id in the cid, pushed by this login). */
function ownCorrection(db: Pick<Store, 'get'>, c: HubChange): boolean {
  const own = getMeta(db, 'machine_id');
  return !!own && (c.origin_session ?? '').startsWith(`${own}:`) && c.author === (getMeta(db, 'author') ?? null);
}

/** A teammate's confirm or retire: the local copy takes the same state, remembered with who decided. */
function applyCorrection(tx: WriteTx, c: HubChange, out: Applied, now: number): void {
  if (ownCorrection(tx, c)) return;
  const target = tx.get<{ local_id: number }>(`SELECT local_id FROM team_records WHERE gid = ? AND kind = 'observation'`, [c.gid]);
  if (!target) return; // not here (deleted, or never pulled)
  const p = c.payload ?? {};
  const status = p.status === 'retired' ? 'retired' : p.status === 'confirmed' ? 'confirmed' : undefined;
  if (!status) {
    out.refused.push({ gid: c.gid, author: c.author, reason: 'a correction with an unknown status' });
    return;
  }
  const replacedBy = typeof p.replacedBy === 'string' ? (tx.get<{ local_id: number }>(`SELECT local_id FROM team_records WHERE gid = ? AND kind = 'observation'`, [p.replacedBy])?.local_id ?? null) : null;
  const note = typeof p.note === 'string' ? cutStripped(admitText(p.note), 500) : null;
  const at = Number(c.created_at ?? 0);
  tx.run(
    `INSERT INTO memory_state (observation_id, status, replaced_by, note, at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (observation_id) DO UPDATE SET status = excluded.status, replaced_by = excluded.replaced_by, note = excluded.note, at = excluded.at`,
    [target.local_id, status, replacedBy, note, Number.isSafeInteger(at) && at > 0 ? Math.min(at, now) : now],
  );
  // eslint-disable-next-line no-control-regex
  const by = (c.author ?? '').replace(/[\u0000-\u001f]/g, ' ').slice(0, 256);
  setMeta(tx, `decided_by:${target.local_id}`, by);
  (out.decided ??= []).push({ id: target.local_id, status, by: by || null });
}

function applyTombstone(tx: WriteTx, project: string, gid: string, out: Applied): void {
  // The tombstone goes first, so the delete trigger does not queue it back to the hub.
  tx.run('INSERT OR IGNORE INTO team_tombstones (gid, project) VALUES (?, ?)', [gid, project]);
  tx.run(`DELETE FROM team_outbox WHERE gid = ? AND op = 'put'`, [gid]);
  const m = tx.get<{ kind: string; local_id: number }>('SELECT kind, local_id FROM team_records WHERE gid = ?', [gid]);
  if (!m) return;
  tx.run(`DELETE FROM ${TABLES[m.kind as SharedKind] ?? 'observations'} WHERE id = ?`, [m.local_id]);
  tx.run('DELETE FROM team_records WHERE gid = ?', [gid]);
  out.removed.push({ kind: m.kind, id: m.local_id });
}

function applyRecord(tx: WriteTx, project: string, c: HubChange, out: Applied, now: number): void {
  if (tx.get('SELECT 1 AS x FROM team_records WHERE gid = ?', [c.gid])) return; // ours, or pulled before
  if (tx.get('SELECT 1 AS x FROM team_tombstones WHERE gid = ?', [c.gid])) return; // deleted here first
  // Our own record (its payload is not sent back): deleted here while the project was not shared.
  if (c.payload === null && !c.oversize) return;
  // Checked, cleaned and capped like local ingest: a teammate or the hub is not trusted further.
  const a = admitRecord(c, now);
  if (!a.ok) {
    out.refused.push({ gid: c.gid, author: c.author, reason: a.reason });
    return;
  }
  if (a.cut) out.cut++;
  const p = a.payload;
  const createdAt = a.createdAt;
  const { row } = ensureSession(tx, { platform: TEAM_PLATFORM, contentSessionId: a.originSession ?? c.gid, project, now: createdAt });
  let id: number | undefined;
  let type = 'summary';
  let title = '';
  if (c.kind === 'observation') {
    type = str(p.type) ?? 'discovery';
    title = str(p.title) ?? '(untitled)';
    id = insertObservation(tx, {
      sessionId: row.id,
      project,
      type,
      title,
      subtitle: str(p.subtitle),
      facts: list(p.facts),
      narrative: str(p.narrative),
      concepts: list(p.concepts),
      filesRead: list(p.filesRead),
      filesModified: list(p.filesModified),
      toolName: str(p.toolName),
      promptNumber: num(p.promptNumber),
      contentHash: c.gid,
      source: TEAM_PLATFORM,
      createdAt,
      quiet: p.quiet === true,
    });
  } else if (c.kind === 'prompt') {
    type = 'prompt';
    title = str(p.text) ?? '';
    if (title === '') return;
    id = insertPrompt(tx, { sessionId: row.id, project, promptNumber: num(p.promptNumber) ?? 0, text: title, createdAt });
  } else if (c.kind === 'summary') {
    title = str(p.request) ?? 'Session summary';
    id = insertSummary(tx, {
      sessionId: row.id,
      project,
      request: str(p.request),
      investigated: str(p.investigated),
      learned: str(p.learned),
      completed: str(p.completed),
      nextSteps: str(p.nextSteps),
      notes: str(p.notes),
      promptNumber: num(p.promptNumber),
      contentHash: c.gid,
      createdAt,
    });
  }
  if (id === undefined) return;
  const kind: SharedKind = c.kind === 'observation' ? 'observation' : c.kind === 'prompt' ? 'prompt' : 'summary';
  tx.run('INSERT INTO team_records (kind, local_id, gid, project, origin, author, machine) VALUES (?, ?, ?, ?, ?, ?, ?)', [kind, id, c.gid, project, a.origin, a.author, a.machine]);
  out.added.push({ kind, id, type, title });
}
