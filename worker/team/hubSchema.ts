// The hub's schema (PostgreSQL 14+), ours to migrate: versioned, forward-only, each version applied
// once in one transaction under an advisory lock, by a role that is a member of claude_mem_admin
// (objects are owned by that group role, so any admin can migrate later). Members (role
// claude_mem_member) see and write only rows of projects shared with a team they belong to (RLS).
import type { ClientBase } from 'pg';

export const HUB_SCHEMA = 'claude_mem';
export const ADMIN_ROLE = 'claude_mem_admin';
export const MEMBER_ROLE = 'claude_mem_member';
export const NOTIFY_CHANNEL = 'claude_mem_changes';
/** Serialised change numbering before version 2 (one lock for every team); now a row lock per team. */
const SEQ_LOCK = 7_311_011;
const MIGRATE_LOCK = 7_311_010;

const S = HUB_SCHEMA;

const MIGRATIONS: string[][] = [
  // 1: teams, members, shared projects, immutable records, tombstones, RLS.
  [
    `CREATE TABLE ${S}.teams (
      id text PRIMARY KEY CHECK (id ~ '^[A-Za-z0-9_.-]{1,64}$'),
      name text,
      created_at timestamptz NOT NULL DEFAULT now()
    )`,
    `CREATE TABLE ${S}.members (
      team_id text NOT NULL REFERENCES ${S}.teams(id) ON DELETE CASCADE,
      role_name name NOT NULL,
      PRIMARY KEY (team_id, role_name)
    )`,
    `CREATE TABLE ${S}.projects (
      team_id text NOT NULL REFERENCES ${S}.teams(id) ON DELETE CASCADE,
      project text NOT NULL CHECK (length(project) BETWEEN 1 AND 256),
      shared_by name NOT NULL DEFAULT current_user,
      shared_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (team_id, project)
    )`,
    `CREATE SEQUENCE ${S}.change_seq`,
    `CREATE TABLE ${S}.records (
      gid text PRIMARY KEY CHECK (length(gid) BETWEEN 1 AND 200),
      seq bigint NOT NULL UNIQUE,
      team_id text NOT NULL,
      project text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('observation','summary','prompt')),
      origin text NOT NULL,
      machine text NOT NULL,
      author name NOT NULL,
      origin_session text NOT NULL,
      payload jsonb NOT NULL,
      created_at bigint NOT NULL,
      pushed_at timestamptz NOT NULL DEFAULT now(),
      FOREIGN KEY (team_id, project) REFERENCES ${S}.projects(team_id, project) ON DELETE CASCADE
    )`,
    `CREATE INDEX records_pull ON ${S}.records (team_id, project, seq)`,
    `CREATE INDEX records_author ON ${S}.records (author)`,
    `CREATE TABLE ${S}.tombstones (
      gid text NOT NULL,
      seq bigint NOT NULL UNIQUE,
      team_id text NOT NULL,
      project text NOT NULL,
      kind text NOT NULL,
      deleted_by name NOT NULL,
      deleted_at timestamptz NOT NULL DEFAULT now(),
      -- Per team and project: another team's tombstone can never stand in for (or block) this one.
      PRIMARY KEY (team_id, project, gid),
      FOREIGN KEY (team_id, project) REFERENCES ${S}.projects(team_id, project) ON DELETE CASCADE
    )`,
    `CREATE INDEX tombstones_pull ON ${S}.tombstones (team_id, project, seq)`,
    `CREATE INDEX tombstones_gid ON ${S}.tombstones (gid)`,
    // Numbering, authorship and immutability are the hub's, not the client's.
    `CREATE FUNCTION ${S}.number_change() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       PERFORM pg_advisory_xact_lock(${SEQ_LOCK});
       IF TG_TABLE_NAME = 'records' THEN
         IF EXISTS (SELECT 1 FROM ${S}.tombstones t WHERE t.gid = NEW.gid AND t.team_id = NEW.team_id AND t.project = NEW.project) THEN RETURN NULL; END IF;
         NEW.author := current_user;
         NEW.pushed_at := now();
       ELSE
         NEW.deleted_by := current_user;
         NEW.deleted_at := now();
       END IF;
       NEW.seq := nextval('${S}.change_seq');
       RETURN NEW;
     END $$`,
    `CREATE TRIGGER records_number BEFORE INSERT ON ${S}.records FOR EACH ROW EXECUTE FUNCTION ${S}.number_change()`,
    `CREATE TRIGGER tombstones_number BEFORE INSERT ON ${S}.tombstones FOR EACH ROW EXECUTE FUNCTION ${S}.number_change()`,
    `CREATE FUNCTION ${S}.refuse_update() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN RAISE EXCEPTION 'claude-mem records are immutable; delete with a tombstone'; END $$`,
    `CREATE TRIGGER records_immutable BEFORE UPDATE ON ${S}.records FOR EACH ROW EXECUTE FUNCTION ${S}.refuse_update()`,
    // A tombstone erases the record's content from the hub (owner rights: members cannot delete),
    // only within the tombstone's own team and project (which RLS let its author write to).
    `CREATE FUNCTION ${S}.erase_record() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, ${S} AS $$
     BEGIN DELETE FROM ${S}.records WHERE gid = NEW.gid AND team_id = NEW.team_id AND project = NEW.project; RETURN NULL; END $$`,
    `CREATE TRIGGER tombstones_erase AFTER INSERT ON ${S}.tombstones FOR EACH ROW EXECUTE FUNCTION ${S}.erase_record()`,
    // One empty notification per statement (identical ones in a transaction fold into one): NOTIFY
    // is not filtered by RLS, so it carries nothing, and a push of 200 rows wakes each worker once.
    `CREATE FUNCTION ${S}.notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN PERFORM pg_notify('${NOTIFY_CHANNEL}', ''); RETURN NULL; END $$`,
    `CREATE TRIGGER records_notify AFTER INSERT ON ${S}.records FOR EACH STATEMENT EXECUTE FUNCTION ${S}.notify_change()`,
    `CREATE TRIGGER tombstones_notify AFTER INSERT ON ${S}.tombstones FOR EACH STATEMENT EXECUTE FUNCTION ${S}.notify_change()`,
    // Row-level security: a member sees their own memberships, their teams' projects, and records of those.
    `ALTER TABLE ${S}.members ENABLE ROW LEVEL SECURITY`,
    `ALTER TABLE ${S}.projects ENABLE ROW LEVEL SECURITY`,
    `ALTER TABLE ${S}.records ENABLE ROW LEVEL SECURITY`,
    `ALTER TABLE ${S}.tombstones ENABLE ROW LEVEL SECURITY`,
    `CREATE POLICY own_memberships ON ${S}.members FOR SELECT USING (role_name = current_user)`,
    `CREATE POLICY team_projects ON ${S}.projects FOR SELECT USING (team_id IN (SELECT m.team_id FROM ${S}.members m WHERE m.role_name = current_user))`,
    `CREATE POLICY share_project ON ${S}.projects FOR INSERT WITH CHECK (team_id IN (SELECT m.team_id FROM ${S}.members m WHERE m.role_name = current_user) AND shared_by = current_user)`,
    ...['records', 'tombstones'].flatMap((t) => [
      `CREATE POLICY ${t}_read ON ${S}.${t} FOR SELECT USING (EXISTS (SELECT 1 FROM ${S}.projects p WHERE p.team_id = ${t}.team_id AND p.project = ${t}.project))`,
      `CREATE POLICY ${t}_write ON ${S}.${t} FOR INSERT WITH CHECK (EXISTS (SELECT 1 FROM ${S}.projects p WHERE p.team_id = ${t}.team_id AND p.project = ${t}.project))`,
    ]),
    `GRANT USAGE ON SCHEMA ${S} TO ${MEMBER_ROLE}`,
    `GRANT SELECT ON ${S}.teams, ${S}.members, ${S}.schema_migrations TO ${MEMBER_ROLE}`,
    `GRANT SELECT, INSERT ON ${S}.projects, ${S}.records, ${S}.tombstones TO ${MEMBER_ROLE}`,
    `GRANT USAGE ON SEQUENCE ${S}.change_seq TO ${MEMBER_ROLE}`,
  ],
  // 2: members cannot erase or stall each other (docs/team.md, "Threat model").
  [
    // A member lists only its own teams.
    `ALTER TABLE ${S}.teams ENABLE ROW LEVEL SECURITY`,
    `CREATE POLICY own_teams ON ${S}.teams FOR SELECT USING (id IN (SELECT m.team_id FROM ${S}.members m WHERE m.role_name = current_user))`,
    // A maintainer may forget a project for the whole team (forget_project); a member may not.
    `ALTER TABLE ${S}.members ADD COLUMN role text NOT NULL DEFAULT 'member' CHECK (role IN ('member', 'maintainer'))`,
    // A tombstone only for a record its author pushed: a member deletes only its own records.
    `DROP POLICY tombstones_write ON ${S}.tombstones`,
    `CREATE POLICY tombstones_write ON ${S}.tombstones FOR INSERT WITH CHECK (
       EXISTS (SELECT 1 FROM ${S}.projects p WHERE p.team_id = tombstones.team_id AND p.project = tombstones.project)
       AND EXISTS (SELECT 1 FROM ${S}.records r WHERE r.gid = tombstones.gid AND r.team_id = tombstones.team_id AND r.project = tombstones.project AND r.author = current_user))`,
    // Per-team numbering: a row lock per team, taken through a function that checks membership.
    // An advisory lock would not do: any login can take any advisory lock, and the one global lock
    // let any member hold every team's pushes. Members have no privilege on team_locks.
    `CREATE TABLE ${S}.team_locks (team_id text PRIMARY KEY REFERENCES ${S}.teams(id) ON DELETE CASCADE)`,
    `CREATE FUNCTION ${S}.lock_team(t text) RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, ${S} AS $$
     BEGIN
       IF NOT pg_has_role(session_user, '${ADMIN_ROLE}', 'MEMBER') AND NOT EXISTS (SELECT 1 FROM ${S}.members m WHERE m.team_id = t AND m.role_name = session_user) THEN
         RAISE EXCEPTION 'role "%" is not a member of team "%"', session_user, t USING ERRCODE = '42501';
       END IF;
       INSERT INTO ${S}.team_locks (team_id) VALUES (t) ON CONFLICT DO NOTHING;
       PERFORM 1 FROM ${S}.team_locks WHERE team_id = t FOR UPDATE;
       -- A transaction holding its team's lock and then idle is ended after 10 s (a crashed client).
       PERFORM set_config('idle_in_transaction_session_timeout', '10000', true);
     END $$`,
    // Corrections (confirm, retire, replace: docs/freshness.md) travel to teammates with who made them.
    `CREATE TABLE ${S}.corrections (
      cid text PRIMARY KEY CHECK (length(cid) BETWEEN 1 AND 300),
      seq bigint NOT NULL UNIQUE,
      team_id text NOT NULL,
      project text NOT NULL,
      gid text NOT NULL,
      status text NOT NULL CHECK (status IN ('confirmed', 'retired')),
      replaced_by text CHECK (replaced_by IS NULL OR length(replaced_by) <= 200),
      note text CHECK (note IS NULL OR length(note) <= 2000),
      decided_by name NOT NULL,
      decided_at timestamptz NOT NULL DEFAULT now(),
      FOREIGN KEY (team_id, project) REFERENCES ${S}.projects(team_id, project) ON DELETE CASCADE
    )`,
    `CREATE INDEX corrections_pull ON ${S}.corrections (team_id, project, seq)`,
    `ALTER TABLE ${S}.corrections ENABLE ROW LEVEL SECURITY`,
    `CREATE POLICY corrections_read ON ${S}.corrections FOR SELECT USING (EXISTS (SELECT 1 FROM ${S}.projects p WHERE p.team_id = corrections.team_id AND p.project = corrections.project))`,
    `CREATE POLICY corrections_write ON ${S}.corrections FOR INSERT WITH CHECK (EXISTS (SELECT 1 FROM ${S}.records r WHERE r.gid = corrections.gid AND r.team_id = corrections.team_id AND r.project = corrections.project))`,
    `GRANT SELECT, INSERT ON ${S}.corrections TO ${MEMBER_ROLE}`,
    `CREATE OR REPLACE FUNCTION ${S}.number_change() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       PERFORM ${S}.lock_team(NEW.team_id);
       IF TG_TABLE_NAME = 'records' THEN
         IF EXISTS (SELECT 1 FROM ${S}.tombstones t WHERE t.gid = NEW.gid AND t.team_id = NEW.team_id AND t.project = NEW.project) THEN RETURN NULL; END IF;
         NEW.author := current_user;
         NEW.pushed_at := now();
       ELSIF TG_TABLE_NAME = 'corrections' THEN
         NEW.decided_by := current_user;
         NEW.decided_at := now();
       ELSE
         -- Admins (and forget_project, which runs as the schema's owner) name who deleted.
         IF NEW.deleted_by IS NULL OR NOT pg_has_role(current_user, '${ADMIN_ROLE}', 'MEMBER') THEN NEW.deleted_by := current_user; END IF;
         NEW.deleted_at := now();
       END IF;
       NEW.seq := nextval('${S}.change_seq');
       RETURN NEW;
     END $$`,
    `CREATE TRIGGER corrections_number BEFORE INSERT ON ${S}.corrections FOR EACH ROW EXECUTE FUNCTION ${S}.number_change()`,
    `CREATE TRIGGER corrections_immutable BEFORE UPDATE ON ${S}.corrections FOR EACH ROW EXECUTE FUNCTION ${S}.refuse_update()`,
    `CREATE TRIGGER corrections_notify AFTER INSERT ON ${S}.corrections FOR EACH STATEMENT EXECUTE FUNCTION ${S}.notify_change()`,
    // A tombstone erases the record's corrections too (their notes are content).
    `CREATE OR REPLACE FUNCTION ${S}.erase_record() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, ${S} AS $$
     BEGIN
       DELETE FROM ${S}.records WHERE gid = NEW.gid AND team_id = NEW.team_id AND project = NEW.project;
       DELETE FROM ${S}.corrections WHERE gid = NEW.gid AND team_id = NEW.team_id AND project = NEW.project;
       RETURN NULL;
     END $$`,
    // Forgetting a project for the team: a maintainer of the team (or an admin) tombstones every
    // record of it (every worker deletes its copy); a project that never held a record (a typo
    // share) is removed from the hub.
    `CREATE FUNCTION ${S}.forget_project(t text, p text) RETURNS integer LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, ${S} AS $$
     DECLARE n integer;
     BEGIN
       IF NOT pg_has_role(session_user, '${ADMIN_ROLE}', 'MEMBER') AND NOT EXISTS (SELECT 1 FROM ${S}.members m WHERE m.team_id = t AND m.role_name = session_user AND m.role = 'maintainer') THEN
         RAISE EXCEPTION 'role "%" may not forget project "%" for team "%": only a maintainer of the team may (docs/team.md)', session_user, p, t USING ERRCODE = '42501';
       END IF;
       IF NOT EXISTS (SELECT 1 FROM ${S}.projects x WHERE x.team_id = t AND x.project = p) THEN
         RAISE EXCEPTION 'team "%" has no project "%"', t, p USING ERRCODE = 'P0002';
       END IF;
       INSERT INTO ${S}.tombstones (gid, seq, team_id, project, kind, deleted_by)
         SELECT r.gid, 0, r.team_id, r.project, r.kind, session_user FROM ${S}.records r WHERE r.team_id = t AND r.project = p;
       GET DIAGNOSTICS n = ROW_COUNT;
       IF NOT EXISTS (SELECT 1 FROM ${S}.tombstones x WHERE x.team_id = t AND x.project = p) THEN
         DELETE FROM ${S}.projects x WHERE x.team_id = t AND x.project = p;
       END IF;
       RETURN n;
     END $$`,
    `REVOKE ALL ON FUNCTION ${S}.lock_team(text), ${S}.forget_project(text, text) FROM PUBLIC`,
    `GRANT EXECUTE ON FUNCTION ${S}.lock_team(text), ${S}.forget_project(text, text) TO ${MEMBER_ROLE}`,
  ],
];

export const HUB_VERSION = MIGRATIONS.length;

export class HubSchemaError extends Error {}

async function hubVersion(c: ClientBase): Promise<number> {
  const r = await c.query<{ t: string | null }>(`SELECT to_regclass('${S}.schema_migrations')::text AS t`);
  if (!r.rows[0]?.t) return 0;
  const v = await c.query<{ v: number | null }>(`SELECT max(version) AS v FROM ${S}.schema_migrations`);
  return Number(v.rows[0]?.v ?? 0);
}

async function roleExists(c: ClientBase, role: string): Promise<boolean> {
  return (await c.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role])).rowCount === 1;
}

/**
 * Brings the hub to HUB_VERSION when this role may; otherwise says exactly why not.
 * Returns the version found and the one left.
 */
export async function ensureHubSchema(c: ClientBase): Promise<{ from: number; to: number; migrated: boolean }> {
  const from = await hubVersion(c);
  if (from > HUB_VERSION) throw new HubSchemaError(`the team hub's schema is at version ${from}, newer than this worker understands (${HUB_VERSION}); update claude-mem`);
  if (from === HUB_VERSION) return { from, to: from, migrated: false };
  const who = (await c.query<{ u: string }>('SELECT current_user AS u')).rows[0]?.u ?? '?';
  const isAdmin =
    (await roleExists(c, ADMIN_ROLE)) && (await c.query<{ ok: boolean }>(`SELECT pg_has_role(current_user, '${ADMIN_ROLE}', 'MEMBER') AS ok`)).rows[0]?.ok === true;
  if (!isAdmin) {
    throw new HubSchemaError(
      `the team hub's schema is at version ${from} and this worker needs ${HUB_VERSION}; role "${who}" may not migrate it (it is not a member of ${ADMIN_ROLE}). ` +
        `Ask a team admin to connect once with an admin role (see docs/team.md, "Set-up").`,
    );
  }
  if (!(await roleExists(c, MEMBER_ROLE))) throw new HubSchemaError(`role ${MEMBER_ROLE} does not exist on the hub; create it first (docs/team.md, "Set-up")`);
  await c.query('BEGIN');
  try {
    await c.query(`SELECT pg_advisory_xact_lock(${MIGRATE_LOCK})`);
    await c.query(`SET LOCAL ROLE ${ADMIN_ROLE}`);
    // Another worker may have migrated while this one waited for the lock.
    let v = await hubVersion(c);
    if (v === 0) {
      await c.query(`CREATE SCHEMA IF NOT EXISTS ${S}`);
      await c.query(`CREATE TABLE ${S}.schema_migrations (version int PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now(), applied_by name NOT NULL DEFAULT session_user)`);
    }
    for (; v < HUB_VERSION; v++) {
      for (const sql of MIGRATIONS[v]) await c.query(sql);
      await c.query(`INSERT INTO ${S}.schema_migrations (version) VALUES ($1)`, [v + 1]);
    }
    await c.query('COMMIT');
  } catch (e) {
    await c.query('ROLLBACK').catch(() => undefined);
    throw new HubSchemaError(`migrating the team hub failed: ${(e as Error).message}`);
  }
  return { from, to: HUB_VERSION, migrated: true };
}
