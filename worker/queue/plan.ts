// Which queued jobs run now, and together: observation jobs of one session are batched (by count
// and by age); a session's summary runs after the observation jobs queued before it. Pure: the
// processor feeds it the queue's rows and what is in flight, and gets units of work and a wake time.

export interface JobMeta {
  id: number;
  session_id: number;
  kind: 'observation' | 'summary';
  attempts: number;
  next_attempt_at: number;
  created_at: number;
}

export type Unit = { kind: 'observe'; sessionId: number; jobs: JobMeta[] } | { kind: 'summary'; sessionId: number; job: JobMeta };

export interface PlanInput {
  /** Pending jobs (any due time), ordered by id. */
  pending: JobMeta[];
  inFlight: ReadonlySet<number>;
  /** Jobs told to wait (NotNow), until epoch ms. */
  deferred: ReadonlyMap<number, number>;
  maxUses: number;
  maxAgeMs: number;
  now: number;
}

export interface Plan {
  units: Unit[];
  /** Earliest time something not ready now becomes ready (Infinity: nothing waits on time). */
  wakeAt: number;
}

export function plan(p: PlanInput): Plan {
  const sessions = new Map<number, { obs: JobMeta[]; sums: JobMeta[] }>();
  for (const j of p.pending) {
    let s = sessions.get(j.session_id);
    if (!s) sessions.set(j.session_id, (s = { obs: [], sums: [] }));
    (j.kind === 'observation' ? s.obs : s.sums).push(j);
  }
  const units: Unit[] = [];
  let wakeAt = Infinity;
  const dueAt = (j: JobMeta) => Math.max(j.next_attempt_at, p.deferred.get(j.id) ?? 0);
  const maxUses = Math.max(1, p.maxUses);

  for (const [sessionId, s] of sessions) {
    const runnable: JobMeta[] = [];
    for (const j of s.obs) {
      if (p.inFlight.has(j.id)) continue;
      const due = dueAt(j);
      if (due <= p.now) runnable.push(j);
      else wakeAt = Math.min(wakeAt, due);
    }
    // A queued summary flushes the session's partial batch: it should see every tool use.
    const flush = s.sums.length > 0;
    for (let i = 0; i < runnable.length; i += maxUses) {
      const chunk = runnable.slice(i, i + maxUses);
      const readyAt = Math.min(...chunk.map((j) => j.created_at)) + p.maxAgeMs;
      if (chunk.length === maxUses || flush || readyAt <= p.now) units.push({ kind: 'observe', sessionId, jobs: chunk });
      else wakeAt = Math.min(wakeAt, readyAt);
    }
    // One summary at a time per session, after the observation jobs queued before it.
    const sum = s.sums[0];
    if (sum && !p.inFlight.has(sum.id) && !s.sums.some((x) => p.inFlight.has(x.id))) {
      const blocked = s.obs.some((o) => o.id < sum.id);
      const due = dueAt(sum);
      if (!blocked && due <= p.now) units.push({ kind: 'summary', sessionId, job: sum });
      else if (!blocked) wakeAt = Math.min(wakeAt, due);
    }
  }
  return { units, wakeAt };
}
