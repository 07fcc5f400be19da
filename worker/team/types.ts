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
}

export type TeamState = 'off' | 'connecting' | 'connected' | 'offline' | 'error';

export interface TeamShareInfo {
  project: string;
  team: string;
  cursor: number;
  /** 1 when prompts are shared too (a separate opt-in). */
  prompts: number;
  waiting: number;
}

export interface TeamStatus {
  state: TeamState;
  /** Where the connection string came from (never the string itself). */
  source: 'extension' | 'env' | 'file' | null;
  /** host:port/database of the hub, no user or password. */
  hub: string | null;
  author: string | null;
  machine: string;
  machineId: string | null;
  /** Outbox entries not yet acknowledged by the hub. */
  waiting: number;
  shares: TeamShareInfo[];
  lastError: string | null;
  lastPushAt: string | null;
  lastPullAt: string | null;
  injectTeammates: boolean;
}
