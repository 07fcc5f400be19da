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

/** One row of a pull: a record or a tombstone, with the hub's change number (bigint as text). */
export interface HubChange {
  op: 'put' | 'delete';
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
