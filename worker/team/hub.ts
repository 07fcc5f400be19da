// The PostgreSQL hub, through node-postgres: one connection per worker, used for pushes, pulls and
// LISTEN. No ORM; every statement is here.
import { Client } from 'pg';
import { ensureHubSchema, HUB_SCHEMA as S, NOTIFY_CHANNEL } from './hubSchema';
import { ADMIT_LIMITS } from './admit';
import type { HubChange, HubCorrection, HubRecord, HubTombstone } from './types';

/** How long a push waits for a lock another session holds before it fails and is retried. */
export const HUB_LOCK_TIMEOUT_MS = 5000;

export interface HubOptions {
  url: string;
  onNotify: () => void;
  onLost: (e: Error) => void;
}

export class Hub {
  private lost = false;
  author = '';

  private constructor(private readonly client: Client) {}

  /** Connects, migrates (or refuses, see ensureHubSchema) and starts listening. */
  static async connect(opts: HubOptions): Promise<Hub> {
    // A teammate's transaction holding a lock this session needs makes a statement fail after
    // lock_timeout (the push is retried), never wait for as long as the teammate likes.
    const client = new Client({
      connectionString: opts.url,
      connectionTimeoutMillis: 5000,
      application_name: 'claude-mem',
      keepAlive: true,
      lock_timeout: HUB_LOCK_TIMEOUT_MS,
      idle_in_transaction_session_timeout: 30_000,
      statement_timeout: 60_000,
    });
    const hub = new Hub(client);
    client.on('error', (e) => hub.fail(e, opts.onLost));
    client.on('end', () => hub.fail(new Error('connection to the team hub closed'), opts.onLost));
    client.on('notification', (n) => {
      if (n.channel === NOTIFY_CHANNEL) opts.onNotify();
    });
    try {
      await client.connect();
      await ensureHubSchema(client);
      hub.author = (await client.query<{ u: string }>('SELECT current_user AS u')).rows[0]?.u ?? '';
      await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
    } catch (e) {
      hub.lost = true;
      await client.end().catch(() => undefined);
      throw e;
    }
    return hub;
  }

  private fail(e: Error, onLost: (e: Error) => void): void {
    if (this.lost) return;
    this.lost = true;
    onLost(e);
  }

  get alive(): boolean {
    return !this.lost;
  }

  async close(): Promise<void> {
    this.lost = true;
    await this.client.end().catch(() => undefined);
  }

  /** Teams this role belongs to (RLS shows only its own memberships). */
  async teams(): Promise<string[]> {
    const r = await this.client.query<{ team_id: string }>(`SELECT team_id FROM ${S}.members WHERE role_name = current_user ORDER BY team_id`);
    return r.rows.map((x) => x.team_id);
  }

  async shareProject(team: string, project: string): Promise<void> {
    await this.client.query(`INSERT INTO ${S}.projects (team_id, project) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [team, project]);
    const seen = await this.client.query(`SELECT 1 FROM ${S}.projects WHERE team_id = $1 AND project = $2`, [team, project]);
    if (seen.rowCount !== 1) throw new Error(`role "${this.author}" cannot share into team "${team}" (not a member)`);
  }

  /**
   * Pushes records and tombstones in one transaction. A gid already there (a retry, another worker's
   * copy) or already tombstoned is skipped by the hub, so a push can be repeated any number of times.
   */
  async push(records: HubRecord[], tombstones: HubTombstone[], corrections: HubCorrection[] = []): Promise<void> {
    const statements: [string, string][] = [];
    if (records.length > 0) {
      statements.push([
        `INSERT INTO ${S}.records (gid, seq, team_id, project, kind, origin, machine, author, origin_session, payload, created_at)
         SELECT x.gid, 0, x.team_id, x.project, x.kind, x.origin, x.machine, current_user, x.origin_session, x.payload, x.created_at
           FROM jsonb_to_recordset($1::jsonb) AS x(gid text, team_id text, project text, kind text, origin text, machine text, origin_session text, payload jsonb, created_at bigint)
         ON CONFLICT (gid) DO NOTHING`,
        JSON.stringify(records),
      ]);
    }
    if (tombstones.length > 0) {
      statements.push([
        // Only for records this login pushed (the hub's policy refuses the others): deleting a
        // pulled copy of a teammate's record deletes the local copy only.
        `INSERT INTO ${S}.tombstones (gid, seq, team_id, project, kind, deleted_by)
         SELECT x.gid, 0, x.team_id, x.project, x.kind, current_user
           FROM jsonb_to_recordset($1::jsonb) AS x(gid text, team_id text, project text, kind text)
          WHERE EXISTS (SELECT 1 FROM ${S}.records r WHERE r.gid = x.gid AND r.team_id = x.team_id AND r.project = x.project AND r.author = current_user)
         ON CONFLICT DO NOTHING`,
        JSON.stringify(tombstones),
      ]);
    }
    if (corrections.length > 0) {
      // After the records of the same batch (a replacement is pushed before the retire naming it).
      statements.push([
        `INSERT INTO ${S}.corrections (cid, seq, team_id, project, gid, status, replaced_by, note, decided_by)
         SELECT x.cid, 0, x.team_id, x.project, x.gid, x.status, x.replaced_by, x.note, current_user
           FROM jsonb_to_recordset($1::jsonb) AS x(cid text, team_id text, project text, gid text, status text, replaced_by text, note text)
          WHERE EXISTS (SELECT 1 FROM ${S}.records r WHERE r.gid = x.gid AND r.team_id = x.team_id AND r.project = x.project)
         ON CONFLICT (cid) DO NOTHING`,
        JSON.stringify(corrections),
      ]);
    }
    // One statement is atomic by itself: the usual push (only records, or only tombstones) is one
    // round trip instead of three (BEGIN, INSERT, COMMIT), which is most of the sync's cost per record.
    if (statements.length === 1) {
      await this.client.query(statements[0][0], [statements[0][1]]);
      return;
    }
    if (statements.length === 0) return;
    await this.client.query('BEGIN');
    try {
      for (const [text, json] of statements) await this.client.query(text, [json]);
      await this.client.query('COMMIT');
    } catch (e) {
      await this.client.query('ROLLBACK').catch(() => undefined);
      throw e;
    }
  }

  /** Tombstones every record of a team's project (a maintainer's right, checked by the hub); the number tombstoned. */
  async forgetProject(team: string, project: string): Promise<number> {
    const r = await this.client.query<{ n: number }>(`SELECT ${S}.forget_project($1, $2) AS n`, [team, project]);
    return Number(r.rows[0]?.n ?? 0);
  }

  /** Changes of one shared project after `cursor`, in commit order. */
  async pull(team: string, project: string, cursor: number, limit: number, ownOrigin: string): Promise<HubChange[]> {
    // This worker's own records come back without their payload: only their change numbers matter.
    // "Own" is this machine's origin pushed by this login: a teammate who writes our origin on a
    // record of theirs cannot hide it from us. A payload over the cap stays on the hub (admit.ts).
    const r = await this.client.query<HubChange>(
      `SELECT * FROM (
         SELECT 'put' AS op, gid, seq, kind, origin, machine, author::text AS author, origin_session,
                CASE WHEN (origin = $5 AND author = current_user) OR octet_length(payload::text) > $6 THEN NULL ELSE payload END AS payload,
                created_at, octet_length(payload::text) > $6 AS oversize
           FROM ${S}.records WHERE team_id = $1 AND project = $2 AND seq > $3
         UNION ALL
         SELECT 'delete' AS op, gid, seq, kind, NULL, NULL, deleted_by::text, NULL, NULL, NULL, NULL
           FROM ${S}.tombstones WHERE team_id = $1 AND project = $2 AND seq > $3
         UNION ALL
         SELECT 'state' AS op, gid, seq, status, NULL, NULL, decided_by::text, cid,
                jsonb_build_object('status', status, 'replacedBy', replaced_by, 'note', note),
                (extract(epoch FROM decided_at) * 1000)::bigint, NULL
           FROM ${S}.corrections WHERE team_id = $1 AND project = $2 AND seq > $3
       ) c ORDER BY c.seq LIMIT $4`,
      [team, project, cursor, limit, ownOrigin, ADMIT_LIMITS.payloadBytes],
    );
    return r.rows;
  }
}
