// The worker's event stream (GET /stream, server-sent events): each event's name and payload. The
// worker's internal bus (worker/events.ts) carries these payloads typed; the stream is one of its
// subscribers and sends them as they are. Clients read `data` as untrusted JSON.

export interface StreamPayloads {
  session_started: { sessionDbId: number; contentSessionId: string; project: string; platform: string };
  new_prompt: { id: number; sessionDbId: number; project: string; promptNumber: number; text: string };
  observation_queued: { jobId: number; sessionDbId: number; project: string; toolName: string };
  /** One stored observation; or, after an import, only how many were imported (no id: reload). */
  new_observation: ObservationStoredPayload | { imported: number };
  new_summary: { id: number; sessionDbId?: number; project: string; request?: string | null; source?: string };
  session_completed: { sessionDbId: number; project: string; reason?: string };
  observation_deleted: { id: number; project: string };
  /** A project forgotten with all its sessions. (A worker before 0.2 also sent {project, sessionDbId} for one session.) */
  project_deleted: { project: string; sessions?: number; sessionDbId?: number };
  /** One session forgotten with everything recorded in it. */
  session_forgotten: { project: string; sessionDbId: number };
  queue_changed: { jobId: number; state: 'dead' | 'retry'; attempts: number; error: string };
  /** A memory confirmed or retired ({id, status}), or a check that changed some ({stale, fresh}). */
  memory_freshness: { project: string | null; id?: number; status?: string; stale?: number; fresh?: number };
}

export interface ObservationStoredPayload {
  id: number;
  sessionDbId?: number;
  project: string;
  type: string;
  title: string;
  toolName?: string | null;
  /** Who wrote it: the compression provider's name, 'manual', 'team' or 'verify'. */
  source: string;
  createdAt?: string;
  /** The memory this one replaces (a re-verified memory). */
  replaces?: number;
}

export type StreamEventName = keyof StreamPayloads;

export const STREAM_EVENT_NAMES: readonly StreamEventName[] = [
  'session_started',
  'new_prompt',
  'observation_queued',
  'new_observation',
  'new_summary',
  'session_completed',
  'observation_deleted',
  'project_deleted',
  'session_forgotten',
  'queue_changed',
  'memory_freshness',
];

/** An event as a client receives it: the name is checked, the data is untrusted JSON. */
export interface StreamEvent {
  event: StreamEventName;
  data: Record<string, unknown>;
}

/** An event as the worker sends it. */
export type TypedStreamEvent = { [K in StreamEventName]: { event: K; data: StreamPayloads[K] } }[StreamEventName];
