// A throwaway PostgreSQL cluster for the team-sync tests: initdb into a temp dir (as the postgres
// user when running as root: initdb refuses root), pg_ctl start on 127.0.0.1 and a free port,
// stop/start/crash for fault tests, and destroy at the end. Needs Debian's postgresql package
// (scripts/test-setup.sh installs it).
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from 'pg';

export interface PgCluster {
  port: number;
  dir: string;
  /** Superuser connection (local trust over TCP on loopback). */
  adminUrl(db?: string): string;
  url(user: string, password: string, db?: string): string;
  /** Runs SQL as the superuser. */
  sql<T = Record<string, unknown>>(text: string, params?: unknown[], db?: string): Promise<T[]>;
  start(): void;
  /** mode 'immediate' is a crash (no shutdown checkpoint); 'fast' a clean stop. */
  stop(mode?: 'fast' | 'immediate'): void;
  destroy(): void;
  log(): string;
}

export function pgBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return undefined;
  const versions = fs
    .readdirSync(root)
    .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(root, versions[0], 'bin') : undefined;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

export async function createCluster(): Promise<PgCluster> {
  const bin = pgBinDir();
  if (!bin) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql; run scripts/test-setup.sh');
  const asRoot = process.getuid?.() === 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cmem-pg-'));
  const data = path.join(dir, 'data');
  const logFile = path.join(dir, 'server.log');
  const run = (cmd: string, args: string[]) => {
    const full = asRoot ? ['runuser', ['-u', 'postgres', '--', path.join(bin, cmd), ...args]] : [path.join(bin, cmd), args];
    const r = spawnSync(full[0] as string, full[1] as string[], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`${cmd} failed (${r.status}): ${r.stderr || r.stdout}\n${fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').slice(-2000) : ''}`);
  };
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    fs.chownSync(dir, uid, gid);
  }
  const superuser = asRoot ? 'postgres' : os.userInfo().username;
  run('initdb', ['-D', data, '-U', superuser, '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  // Members log in with passwords over TCP; the superuser is trusted on loopback (test only).
  fs.writeFileSync(
    path.join(data, 'pg_hba.conf'),
    [`local all all trust`, `host all ${superuser} 127.0.0.1/32 trust`, `host all all 127.0.0.1/32 scram-sha-256`, ''].join('\n'),
  );
  const port = await freePort();
  // fsync off is safe here: a test "crash" kills the server, never the OS, so the page cache survives.
  // synchronous_commit stays on: with it off, an immediate stop loses commits the client was told about.
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=50 -c shared_buffers=16MB`;
  const cluster: PgCluster = {
    port,
    dir,
    adminUrl: (db = 'postgres') => `postgres://${superuser}@127.0.0.1:${port}/${db}`,
    url: (user, password, db = 'postgres') => `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}/${db}`,
    async sql(text, params = [], db = 'postgres') {
      const c = new Client({ connectionString: cluster.adminUrl(db) });
      await c.connect();
      try {
        return (await c.query(text, params)).rows;
      } finally {
        await c.end();
      }
    },
    start() {
      run('pg_ctl', ['-D', data, '-l', logFile, '-o', opts, '-w', '-t', '30', 'start']);
    },
    stop(mode = 'fast') {
      run('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '30', 'stop']);
    },
    destroy() {
      try {
        cluster.stop('immediate');
      } catch {
        /* not running */
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
    log: () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : ''),
  };
  cluster.start();
  return cluster;
}

/**
 * A hub database set up as docs/team.md describes: the admin and member group roles, an admin
 * login, a team, and member logins. Returns the connection strings.
 */
export async function createHub(
  pg: PgCluster,
  opts: { db: string; teams: Record<string, string[]>; extraMembers?: string[] },
): Promise<{ admin: string; member(name: string): string }> {
  const pw = (name: string) => `pw-${name}-Secret`;
  await pg.sql(`CREATE DATABASE ${opts.db}`);
  await pg.sql(`DO $$ BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'claude_mem_admin') THEN CREATE ROLE claude_mem_admin NOLOGIN; END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'claude_mem_member') THEN CREATE ROLE claude_mem_member NOLOGIN; END IF;
  END $$`);
  await pg.sql(`GRANT CREATE, CONNECT ON DATABASE ${opts.db} TO claude_mem_admin`);
  const admin = `${opts.db}_admin`;
  await pg.sql(`CREATE ROLE ${admin} LOGIN PASSWORD '${pw(admin)}' IN ROLE claude_mem_admin`);
  const members = new Set([...Object.values(opts.teams).flat(), ...(opts.extraMembers ?? [])]);
  for (const m of members) {
    const exists = await pg.sql(`SELECT 1 FROM pg_roles WHERE rolname = $1`, [m]);
    if (exists.length === 0) await pg.sql(`CREATE ROLE ${m} LOGIN PASSWORD '${pw(m)}' IN ROLE claude_mem_member`);
  }
  return {
    admin: pg.url(admin, pw(admin), opts.db),
    member: (name: string) => pg.url(name, pw(name), opts.db),
  };
}

/** Adds teams and memberships (as the admin would, after the first worker migrated the hub). */
export async function addTeams(pg: PgCluster, db: string, teams: Record<string, string[]>): Promise<void> {
  for (const [team, members] of Object.entries(teams)) {
    await pg.sql(`INSERT INTO claude_mem.teams (id) VALUES ($1) ON CONFLICT DO NOTHING`, [team], db);
    for (const m of members) await pg.sql(`INSERT INTO claude_mem.members (team_id, role_name) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [team, m], db);
  }
}
