// What happened around a point: prompts, observations and summaries before and after an anchor
// (an observation id, S<summaryId>, P<promptId>, or a time), oldest first.
import { BadRequest, type SearchKind, type TimelineItem, type TimelineResponse } from '../../common/contract';
import type { Store } from '../store/store';
import { ALL_KINDS, parseTime } from './params';
import { KINDS, refOf, toTimelineItem, type RecordInfo } from './records';

export class NotFound extends Error {}

/** Order of kinds at the same millisecond: a prompt leads to observations, a summary closes them. */
const ORDER: Record<SearchKind, number> = { prompt: 0, observation: 1, summary: 2 };

interface Anchor {
  kind: SearchKind | 'time';
  ref: string;
  epoch: number;
  id?: number;
  project?: string;
}

function parseAnchor(store: Pick<Store, 'get'>, raw: string | undefined): Anchor {
  const s = (raw ?? '').trim();
  if (s === '') throw new BadRequest(`query 'anchor' is required: an observation id, S<summaryId>, P<promptId> or an ISO time`);
  const m = /^([SsPp]?)(\d{1,15})$/.exec(s);
  if (m) {
    const kind: SearchKind = m[1] === '' ? 'observation' : m[1].toUpperCase() === 'S' ? 'summary' : 'prompt';
    const id = Number(m[2]);
    const row = store.get<{ project: string; epoch: number }>(`SELECT project, created_at AS epoch FROM ${KINDS[kind].table} WHERE id = ?`, [id]);
    if (!row) throw new NotFound(`no ${kind} ${refOf(kind, id)}`);
    return { kind, ref: refOf(kind, id), epoch: row.epoch, id, project: row.project };
  }
  let epoch: number | undefined;
  try {
    epoch = parseTime(s, 'anchor', false);
  } catch {
    epoch = undefined;
  }
  if (epoch === undefined || /^\d+$/.test(s)) {
    throw new BadRequest(`query 'anchor' must be an observation id, S<summaryId>, P<promptId> or an ISO time; got "${s.slice(0, 40)}"`);
  }
  return { kind: 'time', ref: new Date(epoch).toISOString(), epoch };
}

export function timeline(store: Store, anchorRaw: string | undefined, opts: { before: number; after: number; project?: string }): TimelineResponse {
  const anchor = parseAnchor(store, anchorRaw);
  const project = opts.project ?? anchor.project;
  const before: RecordInfo[] = [];
  const after: RecordInfo[] = [];
  let self: RecordInfo | undefined;
  for (const kind of ALL_KINDS) {
    const k = KINDS[kind];
    const [lt, gt] = sides(kind, anchor);
    const side = (s: { sql: string; params: number[] }, order: 'ASC' | 'DESC', limit: number): RecordInfo[] =>
      limit <= 0
        ? []
        : store.all<RecordInfo>(
            `SELECT ${k.select} FROM ${k.table} c WHERE ${project !== undefined ? 'c.project = ? AND ' : ''}${s.sql} ORDER BY c.created_at ${order}, c.id ${order} LIMIT ?`,
            [...(project !== undefined ? [project] : []), ...s.params, limit],
          );
    before.push(...side(lt, 'DESC', opts.before));
    after.push(...side(gt, 'ASC', opts.after));
    if (anchor.kind === kind && anchor.id !== undefined) {
      self = store.get<RecordInfo>(`SELECT ${k.select} FROM ${k.table} c WHERE c.id = ?`, [anchor.id]);
    }
  }
  before.sort((a, b) => cmp(b, a));
  after.sort(cmp);
  const items: TimelineItem[] = [
    ...before.slice(0, opts.before).reverse().map(toTimelineItem),
    ...(self ? [{ ...toTimelineItem(self), anchor: true as const }] : []),
    ...after.slice(0, opts.after).map(toTimelineItem),
  ];
  return {
    anchor: { kind: anchor.kind, ref: anchor.ref, time: new Date(anchor.epoch).toISOString(), epoch: anchor.epoch },
    project: project ?? null,
    items,
    depthBefore: opts.before,
    depthAfter: opts.after,
  };
}

/** SQL for "strictly before" and "strictly after" the anchor, for records of one kind. */
function sides(kind: SearchKind, a: Anchor): [{ sql: string; params: number[] }, { sql: string; params: number[] }] {
  if (a.kind === 'time') return [{ sql: 'c.created_at <= ?', params: [a.epoch] }, { sql: 'c.created_at > ?', params: [a.epoch] }];
  if (kind === a.kind) {
    const id = a.id as number;
    return [
      // Written as a range plus an exclusion so the (project,) created_at index serves it.
      { sql: 'c.created_at <= ? AND NOT (c.created_at = ? AND c.id >= ?)', params: [a.epoch, a.epoch, id] },
      { sql: 'c.created_at >= ? AND NOT (c.created_at = ? AND c.id <= ?)', params: [a.epoch, a.epoch, id] },
    ];
  }
  // Same millisecond, other kind: placed by kind order.
  return ORDER[kind] < ORDER[a.kind]
    ? [{ sql: 'c.created_at <= ?', params: [a.epoch] }, { sql: 'c.created_at > ?', params: [a.epoch] }]
    : [{ sql: 'c.created_at < ?', params: [a.epoch] }, { sql: 'c.created_at >= ?', params: [a.epoch] }];
}

function cmp(a: RecordInfo, b: RecordInfo): number {
  return a.epoch - b.epoch || ORDER[a.kind] - ORDER[b.kind] || a.id - b.id;
}
