// Forward-only migrations. Each runs once, journaled like any other write, and bumps schema_version.
import type { Store } from './store';

const MIGRATIONS: string[][] = [
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
  // 2: embeddings. SQLite keeps every vector (the source of truth); per-project vector indexes are rebuilt from it.
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
  // freshness (docs/freshness.md): fingerprints clients took of the files a tool use touched
  // (file_seen), copied to citations when the tool use's observations are stored (same session and
  // time: the queue files an observation at its job's time); the branch each session was on; what
  // a person or the model decided about a memory. Additive: no existing table changes.
  [
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
  ],
];

export const SCHEMA_VERSION = MIGRATIONS.length;

export function currentVersion(store: Store): number {
  const hasTable = store.get(`SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'`);
  if (!hasTable) return 0;
  return Number(store.get<{ v: number }>('SELECT max(version) AS v FROM schema_version')?.v ?? 0);
}

export async function migrate(store: Store): Promise<number> {
  const from = currentVersion(store);
  if (from > SCHEMA_VERSION) throw new Error(`database schema ${from} is newer than this worker (${SCHEMA_VERSION}); upgrade the extension`);
  for (let v = from; v < SCHEMA_VERSION; v++) {
    await store.write((tx) => {
      if (v === 0) tx.run('CREATE TABLE schema_version (version INTEGER NOT NULL)');
      for (const sql of MIGRATIONS[v]) tx.run(sql);
      tx.run('INSERT INTO schema_version (version) VALUES (?)', [v + 1]);
    });
  }
  return SCHEMA_VERSION;
}
