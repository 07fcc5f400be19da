// The schema: forward-only migrations for existing stores, each run once, journaled like any other
// write, bumping schema_version; a migration is a list of statements, or a function that reads the
// schema and runs statements (what it runs is journaled, so replay does not depend on reading the
// schema again). A new store is created at the newest schema at once (NEWEST).
import { ftsTablesSql, ftsThroughViewsSql } from './ftsText';
import type { Database } from 'sql.js';
import type { Store, WriteTx } from './store';

type Migration = string[] | ((tx: WriteTx) => void);

/**
 * Ids are never reused after a delete: an id cited in a past context must never name another
 * record. SQLite cannot add AUTOINCREMENT to a table, so each table is rebuilt with it, keeping
 * every row, its id, its indexes and triggers (the FTS index keys on the same ids, so it stays valid).
 */
const AUTOINCREMENT_TABLES = ['sessions', 'user_prompts', 'observations', 'session_summaries'];
function addAutoincrement(tx: WriteTx): void {
  for (const table of AUTOINCREMENT_TABLES) {
    const def = tx.get<{ sql: string }>(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`, [table]);
    if (!def || /AUTOINCREMENT/i.test(def.sql)) continue;
    const rebuilt = def.sql.replace(/^CREATE TABLE\s+"?\w+"?\s*\(/i, `CREATE TABLE ${table}_autoinc (`).replace(/\bid INTEGER PRIMARY KEY\b/i, 'id INTEGER PRIMARY KEY AUTOINCREMENT');
    if (!/AUTOINCREMENT/.test(rebuilt)) throw new Error(`migration: cannot add AUTOINCREMENT to ${table}`);
    const extras = tx
      .all<{ sql: string }>(`SELECT sql FROM sqlite_master WHERE type IN ('index', 'trigger') AND tbl_name = ? AND sql IS NOT NULL ORDER BY type, name`, [table])
      .map((r) => r.sql);
    tx.run(rebuilt);
    tx.run(`INSERT INTO ${table}_autoinc SELECT * FROM ${table}`);
    tx.run(`DROP TABLE ${table}`);
    tx.run(`ALTER TABLE ${table}_autoinc RENAME TO ${table}`);
    for (const sql of extras) tx.run(sql);
  }
}

/**
 * Schema 6's triggers: a record of a shared project is queued for the hub in the same transaction
 * (team_records, team_outbox), and its delete leaves a tombstone. (The text inside each statement
 * keeps its indentation: it is what sqlite_master holds.)
 */
function teamTriggersSql(): string[] {
  return (['observation', 'summary', 'prompt'] as const).flatMap((kind) => {
    const table = kind === 'observation' ? 'observations' : kind === 'summary' ? 'session_summaries' : 'user_prompts';
    const letter = kind[0];
    // Prompts travel only from projects shared with prompts (a separate opt-in).
    const shared = kind === 'prompt' ? 'project = new.project AND prompts = 1' : 'project = new.project';
    return [
      `CREATE TRIGGER team_${letter}_shared AFTER INSERT ON ${table}
          WHEN EXISTS (SELECT 1 FROM team_shares WHERE ${shared})
           AND (SELECT platform FROM sessions WHERE id = new.session_id) IS NOT 'team'
         BEGIN
          INSERT OR IGNORE INTO team_records (kind, local_id, gid, project, origin)
            VALUES ('${kind}', new.id, ifnull((SELECT value FROM team_meta WHERE key = 'machine_id'), 'unknown') || ':${letter}:' || new.id || ':' || new.created_at,
                    new.project, ifnull((SELECT value FROM team_meta WHERE key = 'machine_id'), 'unknown'));
          INSERT INTO team_outbox (op, kind, local_id, gid, project, created_at)
            SELECT 'put', '${kind}', new.id, gid, project, new.created_at FROM team_records WHERE kind = '${kind}' AND local_id = new.id;
         END`,
      `CREATE TRIGGER team_${letter}_gone AFTER DELETE ON ${table}
          WHEN EXISTS (SELECT 1 FROM team_records WHERE kind = '${kind}' AND local_id = old.id)
         BEGIN
          INSERT INTO team_outbox (op, kind, local_id, gid, project, created_at)
            SELECT 'delete', '${kind}', NULL, r.gid, r.project, old.created_at FROM team_records r
             WHERE r.kind = '${kind}' AND r.local_id = old.id AND EXISTS (SELECT 1 FROM team_shares s WHERE s.project = r.project)
               AND NOT EXISTS (SELECT 1 FROM team_tombstones t WHERE t.gid = r.gid);
          INSERT OR IGNORE INTO team_tombstones (gid, project)
            SELECT r.gid, r.project FROM team_records r
             WHERE r.kind = '${kind}' AND r.local_id = old.id AND EXISTS (SELECT 1 FROM team_shares s WHERE s.project = r.project);
          DELETE FROM team_records WHERE kind = '${kind}' AND local_id = old.id;
         END`,
    ];
  });
}

// Statements that read the same in a migration and in the newest schema (below): written once.
// A table a later migration altered (ADD COLUMN, the rebuild for AUTOINCREMENT) is spelled twice,
// as it was created and as sqlite_master holds it now.
const PENDING_WORK_SQL = [
  `CREATE TABLE pending_work (
      id INTEGER PRIMARY KEY,
      session_id INTEGER NOT NULL REFERENCES sessions(id),
      kind TEXT NOT NULL CHECK (kind IN ('observation','summary')),
      payload TEXT NOT NULL,
      content_hash TEXT NOT NULL,
      status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','dead')),
      attempts INTEGER NOT NULL DEFAULT 0,
      next_attempt_at INTEGER NOT NULL DEFAULT 0,
      last_error TEXT,
      created_at INTEGER NOT NULL,
      UNIQUE (session_id, content_hash)
    )`,
  `CREATE INDEX pending_ready ON pending_work (status, next_attempt_at, id)`,
];
const TEAM_SQL = [
  `CREATE TABLE team_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
  `CREATE TABLE team_shares (project TEXT PRIMARY KEY, team TEXT NOT NULL, cursor INTEGER NOT NULL DEFAULT 0, shared_at INTEGER NOT NULL, prompts INTEGER NOT NULL DEFAULT 0)`,
  `CREATE TABLE team_records (
      kind TEXT NOT NULL CHECK (kind IN ('observation','summary','prompt')),
      local_id INTEGER NOT NULL,
      gid TEXT NOT NULL UNIQUE,
      project TEXT NOT NULL,
      origin TEXT NOT NULL,
      author TEXT,
      machine TEXT,
      PRIMARY KEY (kind, local_id)
    )`,
  `CREATE TABLE team_tombstones (gid TEXT PRIMARY KEY, project TEXT NOT NULL)`,
  `CREATE TABLE team_outbox (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      op TEXT NOT NULL CHECK (op IN ('put','delete')),
      kind TEXT NOT NULL,
      local_id INTEGER,
      gid TEXT NOT NULL,
      project TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      next_attempt_at INTEGER NOT NULL DEFAULT 0,
      last_error TEXT
    )`,
  `CREATE INDEX team_outbox_ready ON team_outbox (next_attempt_at, id)`,
  `CREATE INDEX team_outbox_gid ON team_outbox (gid)`,
  ...teamTriggersSql(),
];
const FILE_SEEN_SQL = [
  `CREATE TABLE file_seen (
      id INTEGER PRIMARY KEY,
      session_id INTEGER NOT NULL,
      project TEXT NOT NULL,
      path TEXT NOT NULL,
      blob TEXT,
      tracked INTEGER NOT NULL DEFAULT 0,
      commit_id TEXT,
      branch TEXT,
      seen_at INTEGER NOT NULL
    )`,
  `CREATE INDEX file_seen_by_session ON file_seen (session_id, seen_at)`,
];
/** What follows the citations table: its indexes, the memory states, the sessions' git state, the triggers. */
const CITED_SQL = [
  `CREATE INDEX citations_by_path ON citations (project, path)`,
  `CREATE INDEX citations_by_observation ON citations (observation_id)`,
  `CREATE TABLE memory_state (
      observation_id INTEGER PRIMARY KEY,
      status TEXT NOT NULL CHECK (status IN ('confirmed','retired')),
      replaced_by INTEGER,
      note TEXT,
      at INTEGER NOT NULL
    )`,
  `CREATE TABLE session_git (
      session_id INTEGER PRIMARY KEY,
      branch TEXT,
      commit_id TEXT,
      bases TEXT NOT NULL DEFAULT '[]',
      updated_at INTEGER NOT NULL
    )`,
  `CREATE TRIGGER citations_from_seen AFTER INSERT ON observations BEGIN
      INSERT OR IGNORE INTO citations (observation_id, project, path, blob, tracked, commit_id, branch, cited_at)
        SELECT new.id, new.project, f.path, f.blob, f.tracked, f.commit_id, f.branch, new.created_at
          FROM file_seen f WHERE f.session_id = new.session_id AND f.seen_at = new.created_at AND f.blob IS NOT NULL ORDER BY f.id;
    END`,
  `CREATE TRIGGER citations_gone AFTER DELETE ON observations BEGIN
      DELETE FROM citations WHERE observation_id = old.id;
      DELETE FROM memory_state WHERE observation_id = old.id;
    END`,
  `CREATE TRIGGER file_seen_gone AFTER DELETE ON sessions BEGIN
      DELETE FROM file_seen WHERE session_id = old.id;
      DELETE FROM session_git WHERE session_id = old.id;
    END`,
];
const CITATION_VERDICTS_TABLE = `CREATE TABLE citation_verdicts (
      citation_id INTEGER NOT NULL,
      branch TEXT NOT NULL,
      state TEXT NOT NULL CHECK (state IN ('changed','deleted')),
      current_blob TEXT,
      changed_at INTEGER,
      change_kind TEXT,
      PRIMARY KEY (citation_id, branch)
    )`;
const CITATION_VERDICTS_GONE = `CREATE TRIGGER citation_verdicts_gone AFTER DELETE ON citations BEGIN
      DELETE FROM citation_verdicts WHERE citation_id = old.id;
    END`;

/**
 * Running totals of what /api/stats reports (each table's rows, the model's tokens), kept by
 * triggers on every insert, delete and token update: summing every row read the whole table through
 * the page cache, 1.3 s of the worker's CPU at 100,000 observations on each refresh of the panel's status.
 */
const TOTALS_TABLE = `CREATE TABLE totals (name TEXT PRIMARY KEY, n INTEGER NOT NULL, input INTEGER NOT NULL, output INTEGER NOT NULL, discovery INTEGER NOT NULL) WITHOUT ROWID`;
const TOTALS_FILL = [
  `INSERT INTO totals SELECT 'observations', count(*), coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0), coalesce(sum(discovery_tokens), 0) FROM observations`,
  `INSERT INTO totals SELECT 'session_summaries', count(*), coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0), 0 FROM session_summaries`,
  `INSERT INTO totals SELECT 'sessions', count(*), 0, 0, 0 FROM sessions`,
  `INSERT INTO totals SELECT 'user_prompts', count(*), 0, 0, 0 FROM user_prompts`,
];
const OBS_TOKENS = (sign: string, row: string) => `input = input ${sign} ${row}.input_tokens, output = output ${sign} ${row}.output_tokens, discovery = discovery ${sign} ${row}.discovery_tokens`;
const SUM_TOKENS = (sign: string, row: string) => `input = input ${sign} ${row}.input_tokens, output = output ${sign} ${row}.output_tokens`;
const TOTALS_TRIGGERS = [
  `CREATE TRIGGER totals_observations_ai AFTER INSERT ON observations BEGIN UPDATE totals SET n = n + 1, ${OBS_TOKENS('+', 'new')} WHERE name = 'observations'; END`,
  `CREATE TRIGGER totals_observations_ad AFTER DELETE ON observations BEGIN UPDATE totals SET n = n - 1, ${OBS_TOKENS('-', 'old')} WHERE name = 'observations'; END`,
  `CREATE TRIGGER totals_observations_au AFTER UPDATE OF input_tokens, output_tokens, discovery_tokens ON observations BEGIN UPDATE totals SET ${OBS_TOKENS('-', 'old')} WHERE name = 'observations'; UPDATE totals SET ${OBS_TOKENS('+', 'new')} WHERE name = 'observations'; END`,
  `CREATE TRIGGER totals_summaries_ai AFTER INSERT ON session_summaries BEGIN UPDATE totals SET n = n + 1, ${SUM_TOKENS('+', 'new')} WHERE name = 'session_summaries'; END`,
  `CREATE TRIGGER totals_summaries_ad AFTER DELETE ON session_summaries BEGIN UPDATE totals SET n = n - 1, ${SUM_TOKENS('-', 'old')} WHERE name = 'session_summaries'; END`,
  `CREATE TRIGGER totals_summaries_au AFTER UPDATE OF input_tokens, output_tokens ON session_summaries BEGIN UPDATE totals SET ${SUM_TOKENS('-', 'old')} WHERE name = 'session_summaries'; UPDATE totals SET ${SUM_TOKENS('+', 'new')} WHERE name = 'session_summaries'; END`,
  ...['sessions', 'user_prompts'].flatMap((t) => [
    `CREATE TRIGGER totals_${t}_ai AFTER INSERT ON ${t} BEGIN UPDATE totals SET n = n + 1 WHERE name = '${t}'; END`,
    `CREATE TRIGGER totals_${t}_ad AFTER DELETE ON ${t} BEGIN UPDATE totals SET n = n - 1 WHERE name = '${t}'; END`,
  ]),
];

const MIGRATIONS: Migration[] = [
  // 1: the core tables
  [
    `CREATE TABLE sessions (
      id INTEGER PRIMARY KEY,
      platform TEXT NOT NULL,
      content_session_id TEXT NOT NULL,
      project TEXT NOT NULL,
      cwd TEXT,
      status TEXT NOT NULL CHECK (status IN ('initialized','active','completed')),
      prompt_counter INTEGER NOT NULL DEFAULT 0,
      prompt_private INTEGER NOT NULL DEFAULT 0,
      started_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      completed_at INTEGER,
      completion_reason TEXT,
      UNIQUE (platform, content_session_id)
    )`,
    `CREATE INDEX sessions_by_project ON sessions (project, started_at)`,
    `CREATE TABLE user_prompts (
      id INTEGER PRIMARY KEY,
      session_id INTEGER NOT NULL REFERENCES sessions(id),
      project TEXT NOT NULL,
      prompt_number INTEGER NOT NULL,
      text TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      UNIQUE (session_id, prompt_number)
    )`,
    `CREATE INDEX prompts_by_project ON user_prompts (project, created_at)`,
    `CREATE TABLE observations (
      id INTEGER PRIMARY KEY,
      session_id INTEGER NOT NULL REFERENCES sessions(id),
      project TEXT NOT NULL,
      type TEXT NOT NULL,
      title TEXT NOT NULL,
      subtitle TEXT,
      facts TEXT NOT NULL DEFAULT '[]',
      narrative TEXT,
      concepts TEXT NOT NULL DEFAULT '[]',
      files_read TEXT NOT NULL DEFAULT '[]',
      files_modified TEXT NOT NULL DEFAULT '[]',
      tool_name TEXT,
      prompt_number INTEGER,
      content_hash TEXT NOT NULL,
      source TEXT NOT NULL DEFAULT 'local',
      input_tokens INTEGER NOT NULL DEFAULT 0,
      output_tokens INTEGER NOT NULL DEFAULT 0,
      discovery_tokens INTEGER NOT NULL DEFAULT 0,
      created_at INTEGER NOT NULL,
      UNIQUE (session_id, content_hash)
    )`,
    `CREATE INDEX observations_by_project ON observations (project, created_at)`,
    `CREATE INDEX observations_by_session ON observations (session_id)`,
    `CREATE TABLE session_summaries (
      id INTEGER PRIMARY KEY,
      session_id INTEGER NOT NULL REFERENCES sessions(id),
      project TEXT NOT NULL,
      request TEXT, investigated TEXT, learned TEXT, completed TEXT, next_steps TEXT, notes TEXT,
      prompt_number INTEGER,
      content_hash TEXT NOT NULL,
      input_tokens INTEGER NOT NULL DEFAULT 0,
      output_tokens INTEGER NOT NULL DEFAULT 0,
      created_at INTEGER NOT NULL,
      UNIQUE (session_id, content_hash)
    )`,
    `CREATE INDEX summaries_by_project ON session_summaries (project, created_at)`,
    ...PENDING_WORK_SQL,
    // Full-text indexes over the content tables (external content FTS4, kept in sync by triggers).
    `CREATE VIRTUAL TABLE observations_fts USING fts4(content="observations", title, subtitle, narrative, facts, concepts, files_read, files_modified, tokenize=porter)`,
    `CREATE TRIGGER observations_bu BEFORE UPDATE ON observations BEGIN DELETE FROM observations_fts WHERE docid = old.id; END`,
    `CREATE TRIGGER observations_bd BEFORE DELETE ON observations BEGIN DELETE FROM observations_fts WHERE docid = old.id; END`,
    `CREATE TRIGGER observations_au AFTER UPDATE ON observations BEGIN INSERT INTO observations_fts(docid, title, subtitle, narrative, facts, concepts, files_read, files_modified) VALUES (new.id, new.title, new.subtitle, new.narrative, new.facts, new.concepts, new.files_read, new.files_modified); END`,
    `CREATE TRIGGER observations_ai AFTER INSERT ON observations BEGIN INSERT INTO observations_fts(docid, title, subtitle, narrative, facts, concepts, files_read, files_modified) VALUES (new.id, new.title, new.subtitle, new.narrative, new.facts, new.concepts, new.files_read, new.files_modified); END`,
    `CREATE VIRTUAL TABLE summaries_fts USING fts4(content="session_summaries", request, investigated, learned, completed, next_steps, notes, tokenize=porter)`,
    `CREATE TRIGGER summaries_bu BEFORE UPDATE ON session_summaries BEGIN DELETE FROM summaries_fts WHERE docid = old.id; END`,
    `CREATE TRIGGER summaries_bd BEFORE DELETE ON session_summaries BEGIN DELETE FROM summaries_fts WHERE docid = old.id; END`,
    `CREATE TRIGGER summaries_au AFTER UPDATE ON session_summaries BEGIN INSERT INTO summaries_fts(docid, request, investigated, learned, completed, next_steps, notes) VALUES (new.id, new.request, new.investigated, new.learned, new.completed, new.next_steps, new.notes); END`,
    `CREATE TRIGGER summaries_ai AFTER INSERT ON session_summaries BEGIN INSERT INTO summaries_fts(docid, request, investigated, learned, completed, next_steps, notes) VALUES (new.id, new.request, new.investigated, new.learned, new.completed, new.next_steps, new.notes); END`,
    `CREATE VIRTUAL TABLE prompts_fts USING fts4(content="user_prompts", text, tokenize=porter)`,
    `CREATE TRIGGER prompts_bu BEFORE UPDATE ON user_prompts BEGIN DELETE FROM prompts_fts WHERE docid = old.id; END`,
    `CREATE TRIGGER prompts_bd BEFORE DELETE ON user_prompts BEGIN DELETE FROM prompts_fts WHERE docid = old.id; END`,
    `CREATE TRIGGER prompts_au AFTER UPDATE ON user_prompts BEGIN INSERT INTO prompts_fts(docid, text) VALUES (new.id, new.text); END`,
    `CREATE TRIGGER prompts_ai AFTER INSERT ON user_prompts BEGIN INSERT INTO prompts_fts(docid, text) VALUES (new.id, new.text); END`,
  ],
  // 2: embeddings. Which records have a vector of which model; per-project vector indexes are rebuilt from them (the vectors themselves moved to files in 8).
  [
    `CREATE TABLE vectors (
      kind TEXT NOT NULL CHECK (kind IN ('observation','summary')),
      ref_id INTEGER NOT NULL,
      project TEXT NOT NULL,
      model TEXT NOT NULL,
      dims INTEGER NOT NULL,
      data BLOB NOT NULL,
      created_at INTEGER NOT NULL,
      PRIMARY KEY (kind, ref_id)
    )`,
    `CREATE INDEX vectors_by_project ON vectors (project, kind)`,
  ],
  // 3: search. Time indexes for cross-project timelines and date filters; a vector goes when its
  // record goes or its text changes (the background indexer then embeds the new text).
  [
    `CREATE INDEX observations_by_time ON observations (created_at)`,
    `CREATE INDEX summaries_by_time ON session_summaries (created_at)`,
    `CREATE INDEX prompts_by_time ON user_prompts (created_at)`,
    `CREATE TRIGGER vectors_observation_gone AFTER DELETE ON observations BEGIN DELETE FROM vectors WHERE kind = 'observation' AND ref_id = old.id; END`,
    `CREATE TRIGGER vectors_observation_changed AFTER UPDATE OF title, subtitle, narrative, facts, project ON observations BEGIN DELETE FROM vectors WHERE kind = 'observation' AND ref_id = old.id; END`,
    `CREATE TRIGGER vectors_summary_gone AFTER DELETE ON session_summaries BEGIN DELETE FROM vectors WHERE kind = 'summary' AND ref_id = old.id; END`,
    `CREATE TRIGGER vectors_summary_changed AFTER UPDATE OF request, investigated, learned, completed, next_steps, notes, project ON session_summaries BEGIN DELETE FROM vectors WHERE kind = 'summary' AND ref_id = old.id; END`,
  ],
  // 4: ids never reused.
  addAutoincrement,
  // 5: sessions by platform: search, the panel, the viewer and @memory filter by it
  // (every record reaches its platform through its session).
  [`CREATE INDEX sessions_by_platform ON sessions (platform, id)`],
  // 6: team memory (worker/team/). Shared projects, the global id and origin of every shared
  // record, tombstones, and the durable outbox. Triggers fill the outbox in the same transaction as
  // the record, so nothing shared can be stored without being queued; records pulled from the hub
  // live in sessions of platform 'team' and are never queued again. Triggers use no clock or random
  // value, so a journal replay rebuilds exactly the same rows.
  [
    ...TEAM_SQL,
  ],
  // 7: freshness (docs/freshness.md): fingerprints clients took of the files a tool use touched
  // (file_seen), copied to citations when the tool use's observations are stored (same session and
  // time: the queue files an observation at its job's time); the branch each session was on; what
  // a person or the model decided about a memory. Additive: no existing table changes.
  [
    ...FILE_SEEN_SQL,
    `CREATE TABLE citations (
      id INTEGER PRIMARY KEY,
      observation_id INTEGER NOT NULL,
      project TEXT NOT NULL,
      path TEXT NOT NULL,
      blob TEXT,
      tracked INTEGER NOT NULL DEFAULT 0,
      commit_id TEXT,
      branch TEXT,
      cited_at INTEGER NOT NULL,
      state TEXT NOT NULL DEFAULT 'fresh' CHECK (state IN ('fresh','changed','deleted')),
      current_blob TEXT,
      changed_at INTEGER,
      changed_branch TEXT,
      moved_from TEXT,
      checked_at INTEGER,
      UNIQUE (observation_id, path)
    )`,
    ...CITED_SQL,
  ],
  // 8: vectors in their own files (worker/search/vectors/files.ts). A row with a
  // file_offset has its vector in that generation's file and an empty `data`; older rows keep the
  // blob until the indexer moves it out.
  [`ALTER TABLE vectors ADD COLUMN file_gen INTEGER`, `ALTER TABLE vectors ADD COLUMN file_offset INTEGER`],
  // 9: the full-text index reads each record through a view that cuts words at dashes, curly
  // quotes, arrows and other non-ASCII punctuation (ftsText.ts); the indexes are rebuilt once.
  ftsThroughViewsSql(),
  // 10: freshness says whether a cited file's change is committed on the branch or only in the
  // work tree or index (the client asks git at the moment of use: docs/freshness.md).
  [`ALTER TABLE citations ADD COLUMN change_kind TEXT`],
  // 11: a stale verdict per branch it was found on (docs/freshness.md): a check on feature-b sets
  // feature-b's row only, so main's view of the same citation keeps its own. A row exists only while
  // the citation is changed or deleted on that branch. The citation's own columns keep the newest
  // verdict of any branch (reads without a branch, export, confirm).
  [
    CITATION_VERDICTS_TABLE,
    `INSERT INTO citation_verdicts (citation_id, branch, state, current_blob, changed_at, change_kind)
       SELECT id, changed_branch, state, current_blob, changed_at, change_kind FROM citations WHERE state <> 'fresh' AND changed_branch IS NOT NULL`,
    CITATION_VERDICTS_GONE,
  ],
  // 12: a note that tells a later reader nothing new (worker/compression/triage.ts: a search that
  // found nothing, a re-read, a repeated test run with the same result) is stored and searchable
  // but not listed or injected.
  [`ALTER TABLE observations ADD COLUMN quiet INTEGER NOT NULL DEFAULT 0`],
  // 13: the vectors a store from before 8 still kept as blobs in `vectors.data` are dropped (vectors
  // are derived data: the indexer's start-up pass embeds those records again, into the files);
  // every row now names its vector's place in a file and `data` stays empty.
  [`DELETE FROM vectors WHERE file_offset IS NULL`],
  // 14: running totals for /api/stats (TOTALS_TABLE), filled once from the rows.
  [TOTALS_TABLE, ...TOTALS_FILL, ...TOTALS_TRIGGERS],
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/**
 * The schema every migration above leads to, created at once on an empty database: a new store
 * starts here instead of running the fourteen migrations, journaled one by one and replayed by every
 * start until a checkpoint (the table rebuilds of 4, the ALTERs that re-read the whole schema, and
 * V8 compiling with TurboFan the 60 more SQLite functions they make hot: 0.15-0.2 CPU s of a fresh
 * start's 1.1-1.3 on the bench machine, bench/worker-start.mjs). The statements are what sqlite_master holds after the migrations, in its order,
 * so a new store and a migrated one are the same (test/unit/store-schema-newest.test.ts compares
 * their sqlite_master). A new migration changes this list too.
 */
const NEWEST: string[] = [
  'CREATE TABLE schema_version (version INTEGER NOT NULL)',
  ...PENDING_WORK_SQL,
  `CREATE TABLE vectors (
      kind TEXT NOT NULL CHECK (kind IN ('observation','summary')),
      ref_id INTEGER NOT NULL,
      project TEXT NOT NULL,
      model TEXT NOT NULL,
      dims INTEGER NOT NULL,
      data BLOB NOT NULL,
      created_at INTEGER NOT NULL, file_gen INTEGER, file_offset INTEGER,
      PRIMARY KEY (kind, ref_id)
    )`,
  `CREATE INDEX vectors_by_project ON vectors (project, kind)`,
  `CREATE TABLE "sessions" (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      platform TEXT NOT NULL,
      content_session_id TEXT NOT NULL,
      project TEXT NOT NULL,
      cwd TEXT,
      status TEXT NOT NULL CHECK (status IN ('initialized','active','completed')),
      prompt_counter INTEGER NOT NULL DEFAULT 0,
      prompt_private INTEGER NOT NULL DEFAULT 0,
      started_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      completed_at INTEGER,
      completion_reason TEXT,
      UNIQUE (platform, content_session_id)
    )`,
  `CREATE INDEX sessions_by_project ON sessions (project, started_at)`,
  `CREATE TABLE "user_prompts" (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      session_id INTEGER NOT NULL REFERENCES sessions(id),
      project TEXT NOT NULL,
      prompt_number INTEGER NOT NULL,
      text TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      UNIQUE (session_id, prompt_number)
    )`,
  `CREATE INDEX prompts_by_project ON user_prompts (project, created_at)`,
  `CREATE INDEX prompts_by_time ON user_prompts (created_at)`,
  `CREATE TABLE "observations" (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      session_id INTEGER NOT NULL REFERENCES sessions(id),
      project TEXT NOT NULL,
      type TEXT NOT NULL,
      title TEXT NOT NULL,
      subtitle TEXT,
      facts TEXT NOT NULL DEFAULT '[]',
      narrative TEXT,
      concepts TEXT NOT NULL DEFAULT '[]',
      files_read TEXT NOT NULL DEFAULT '[]',
      files_modified TEXT NOT NULL DEFAULT '[]',
      tool_name TEXT,
      prompt_number INTEGER,
      content_hash TEXT NOT NULL,
      source TEXT NOT NULL DEFAULT 'local',
      input_tokens INTEGER NOT NULL DEFAULT 0,
      output_tokens INTEGER NOT NULL DEFAULT 0,
      discovery_tokens INTEGER NOT NULL DEFAULT 0,
      created_at INTEGER NOT NULL, quiet INTEGER NOT NULL DEFAULT 0,
      UNIQUE (session_id, content_hash)
    )`,
  `CREATE INDEX observations_by_project ON observations (project, created_at)`,
  `CREATE INDEX observations_by_session ON observations (session_id)`,
  `CREATE INDEX observations_by_time ON observations (created_at)`,
  `CREATE TRIGGER vectors_observation_changed AFTER UPDATE OF title, subtitle, narrative, facts, project ON observations BEGIN DELETE FROM vectors WHERE kind = 'observation' AND ref_id = old.id; END`,
  `CREATE TRIGGER vectors_observation_gone AFTER DELETE ON observations BEGIN DELETE FROM vectors WHERE kind = 'observation' AND ref_id = old.id; END`,
  `CREATE TABLE "session_summaries" (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      session_id INTEGER NOT NULL REFERENCES sessions(id),
      project TEXT NOT NULL,
      request TEXT, investigated TEXT, learned TEXT, completed TEXT, next_steps TEXT, notes TEXT,
      prompt_number INTEGER,
      content_hash TEXT NOT NULL,
      input_tokens INTEGER NOT NULL DEFAULT 0,
      output_tokens INTEGER NOT NULL DEFAULT 0,
      created_at INTEGER NOT NULL,
      UNIQUE (session_id, content_hash)
    )`,
  `CREATE INDEX summaries_by_project ON session_summaries (project, created_at)`,
  `CREATE INDEX summaries_by_time ON session_summaries (created_at)`,
  `CREATE TRIGGER vectors_summary_changed AFTER UPDATE OF request, investigated, learned, completed, next_steps, notes, project ON session_summaries BEGIN DELETE FROM vectors WHERE kind = 'summary' AND ref_id = old.id; END`,
  `CREATE TRIGGER vectors_summary_gone AFTER DELETE ON session_summaries BEGIN DELETE FROM vectors WHERE kind = 'summary' AND ref_id = old.id; END`,
  `CREATE INDEX sessions_by_platform ON sessions (platform, id)`,
  ...TEAM_SQL,
  ...FILE_SEEN_SQL,
  `CREATE TABLE citations (
      id INTEGER PRIMARY KEY,
      observation_id INTEGER NOT NULL,
      project TEXT NOT NULL,
      path TEXT NOT NULL,
      blob TEXT,
      tracked INTEGER NOT NULL DEFAULT 0,
      commit_id TEXT,
      branch TEXT,
      cited_at INTEGER NOT NULL,
      state TEXT NOT NULL DEFAULT 'fresh' CHECK (state IN ('fresh','changed','deleted')),
      current_blob TEXT,
      changed_at INTEGER,
      changed_branch TEXT,
      moved_from TEXT,
      checked_at INTEGER, change_kind TEXT,
      UNIQUE (observation_id, path)
    )`,
  ...CITED_SQL,
  ...ftsTablesSql(),
  CITATION_VERDICTS_TABLE,
  CITATION_VERDICTS_GONE,
  TOTALS_TABLE,
  ...TOTALS_TRIGGERS,
];

/** The newest schema's statements, its versions recorded as the migrations record them. */
function newestSchemaSql(): string[] {
  return [...NEWEST, ...TOTALS_FILL, `INSERT INTO schema_version (version) VALUES ${MIGRATIONS.map((_, v) => `(${v + 1})`).join(', ')}`];
}

function runMigration(tx: WriteTx, v: number): void {
  if (v === 0) tx.run('CREATE TABLE schema_version (version INTEGER NOT NULL)');
  const m = MIGRATIONS[v];
  if (typeof m === 'function') m(tx);
  else for (const sql of m) tx.run(sql);
  tx.run('INSERT INTO schema_version (version) VALUES (?)', [v + 1]);
}

/**
 * Creates the current schema on an empty database, not journaled: a new store's first snapshot
 * (store.ts), or the base recovery replays surviving journals onto.
 */
export function createSchema(db: Database): void {
  db.run('BEGIN');
  try {
    for (const sql of newestSchemaSql()) db.run(sql);
    db.run('COMMIT');
  } catch (e) {
    db.run('ROLLBACK');
    throw e;
  }
}

export function currentVersion(store: Store): number {
  const hasTable = store.get(`SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'`);
  if (!hasTable) return 0;
  return Number(store.get<{ v: number }>('SELECT max(version) AS v FROM schema_version')?.v ?? 0);
}

/** Brings the schema up to `target` (the current version unless a test asks for an older one). */
export async function migrate(store: Store, target = SCHEMA_VERSION): Promise<number> {
  const from = currentVersion(store);
  if (from > SCHEMA_VERSION) throw new Error(`database schema ${from} is newer than this worker (${SCHEMA_VERSION}); upgrade the extension`);
  if (from === 0 && target >= SCHEMA_VERSION) {
    // An empty store: the newest schema in one transaction.
    const create = (tx: WriteTx) => {
      for (const sql of newestSchemaSql()) tx.run(sql);
    };
    if (store.degraded) store.applyInMemory(create);
    else await store.write(create);
    return currentVersion(store);
  }
  for (let v = from; v < Math.min(target, SCHEMA_VERSION); v++) {
    // Degraded storage is read-only: the schema is brought up to date in memory only, so reads work.
    if (store.degraded) store.applyInMemory((tx) => runMigration(tx, v));
    else await store.write((tx) => runMigration(tx, v));
  }
  return currentVersion(store);
}
