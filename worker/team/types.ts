// Shapes exchanged with the hub and the status the worker reports.

/** What the hub stores for a shared observation or summary (payload already stripped and redacted). */
export interface HubRecord {
  gid: string;
  team_id: string;
  project: string;
  kind: 'observation' | 'summary' | 'prompt';
  origin: string;
  machine: string;
  origin_session: string;
  payload: Record<string, unknown>;
  created_at: number;
}

export interface HubTombstone {
  gid: string;
  team_id: string;
  project: string;
  kind: string;
}

/** A confirm or retire (replace = retire with replaced_by) of a shared observation. */
export interface HubCorrection {
  /** Unique per decision: `<machine id>:<local id>:<time>`, so a repeated push adds nothing. */
  cid: string;
  team_id: string;
  project: string;
  gid: string;
  status: 'confirmed' | 'retired';
  replaced_by: string | null;
  note: string | null;
}

/**
 * One row of a pull: a record, a tombstone or a correction ('state': kind is its status,
 * origin_session its cid, author who decided, payload {status, replacedBy, note}), with the hub's
 * change number (bigint as text).
 */
export interface HubChange {
  op: 'put' | 'delete' | 'state';
  gid: string;
  seq: string;
  kind: string;
  origin: string | null;
  machine: string | null;
  author: string | null;
  origin_session: string | null;
  payload: Record<string, unknown> | null;
  created_at: string | null;
  /** The hub left the payload out: it is over the size a pulled record may have (admit.ts). */
  oversize?: boolean | null;
}

// The status the worker reports is part of the contract (GET /api/team/status).
export type { TeamShareInfo, TeamState, TeamStatus } from '../../common/contract';
