// Worker entry: config -> lock -> store -> services -> HTTP server, and a graceful shutdown.
import * as path from 'node:path';
import { createAdaptorServer } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { createCompressor } from './compression';
import { ensureToken } from './auth';
import { codeCacheState, READY_EVENT } from './codeCache';
import { checkHealthProof, dropProof, newNonce } from '../common/node/identity';
import { isLoopbackHost, loadConfig } from '../common/node/config';
import { EventBus } from './events';
import { Lifecycle } from './lifecycle';
import { keepHeapSmall } from './memory';
import { prepareDataDir } from './dataDir';
import { startSpool, type Spool } from './server/spool';
import { acquireLock, releaseLock, updateLock } from './lock';
import { askHolder, holdDirLock, type LockHolder, showAddress } from './dirLock';
import { createLogger } from '../common/node/log';
import type { HealthResponse } from '../common/contract';
import { Processor } from './queue/processor';
import { runRecover } from './recover';
import { Lull } from './lull';
import { SearchService } from './search/service';
import { createApp } from './server/app';
import { moduleRoutes } from './server/routes';
import type { AppContext } from './server/context';
import { createSchema, migrate } from './store/schema';
import { Store } from './store/store';
import { teamService } from './team/service';
import type { Server } from 'node:http';

/** How long an idle kept-alive connection stays open. */
const KEEP_ALIVE_MS = 60_000;

type Probe = { kind: 'ours'; health: HealthResponse } | { kind: 'other'; health?: HealthResponse; why: string } | { kind: 'none' };

/**
 * What answers on the port: our worker for this data dir (it proved it holds our token), something
 * else (another data dir's worker, an older worker, any other program), or nothing.
 */
async function probeAt(port: number, host: string, dataDir: string, token: string): Promise<Probe> {
  const nonce = newNonce();
  let res: Response;
  try {
    res = await fetch(`http://${host.includes(':') ? `[${host}]` : host}:${port}/api/health?nonce=${nonce}`, { signal: AbortSignal.timeout(1000) });
  } catch {
    return { kind: 'none' };
  }
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    return { kind: 'other', why: `it answered HTTP ${res.status} with something that is not JSON` };
  }
  const why = checkHealthProof(body, token, { nonce, port, dataDir });
  const health = body && typeof body === 'object' && (body as HealthResponse).service === 'claude-mem-vscode' ? (body as HealthResponse) : undefined;
  return why === undefined && health ? { kind: 'ours', health } : { kind: 'other', health, why: why ?? 'no health reply' };
}

function describeHolder(p: Probe & { kind: 'other' }): string {
  return p.health ? `a process answering as claude-mem-vscode (pid ${p.health.pid}, version ${p.health.version}), but ${p.why}` : `a program that is not a claude-mem worker (${p.why})`;
}

async function waitOurs(port: number, host: string, dataDir: string, token: string, ms: number): Promise<Probe> {
  const end = Date.now() + ms;
  let last: Probe = { kind: 'none' };
  while (Date.now() < end) {
    last = await probeAt(port, host, dataDir, token);
    if (last.kind === 'ours') return last;
    await new Promise((r) => setTimeout(r, 200));
  }
  return last;
}

async function main(): Promise<void> {
  keepHeapSmall();
  // Until it listens, a timer keeps the event loop alive. A loop with nothing left to wait for (an
  // await of sql.js's WebAssembly compile, of an open on the thread pool) makes Node wait on the main
  // thread for every V8 background task, the compiler tiering up sql.js among them: 100-330 ms of a
  // start at 100k on a loaded machine (perf: NodePlatform::DrainTasks in SpinEventLoopInternal).
  const startingUp = setInterval(() => {}, 60_000);
  const config = loadConfig();
  const say = (s: string) => process.stdout.write(`${s}\n`);
  if (!isLoopbackHost(config.host) && !config.settings.allowRemoteBind) {
    process.stderr.write(`refusing to bind to non-loopback host "${config.host}": set "allowRemoteBind": true in settings.json or CLAUDE_MEM_ALLOW_REMOTE=1 if you really mean it\n`);
    process.exit(2);
  }
  const dirProblems = prepareDataDir(config.dataDir);
  if (dirProblems.length > 0) {
    process.stderr.write(`claude-mem worker refuses to start: the data dir must belong to you alone.\n  ${dirProblems.join('\n  ')}\n`);
    process.exit(1);
  }
  const log = createLogger(config.dataDir, 'worker', process.env.CLAUDE_MEM_LOG_STDERR === '1');
  if (config.problem) log.warn(config.problem);

  const token = ensureToken(config.dataDir);
  // The kernel's lock first: it holds whatever happened to worker.pid, and dies with the process.
  let dirLock = await holdDirLock(config.dataDir);
  let holder: LockHolder | undefined;
  if (!dirLock.ok) {
    // A holder still starting knows no port yet (it says so once it listens), and on a loaded
    // machine may not even answer within a second: ask again until it names a port or goes away
    // (then take the lock), so a starter that lost the race uses the winner instead of failing.
    holder = dirLock.holder;
    const askUntil = Date.now() + 20_000;
    while (!dirLock.ok && !holder?.port && Date.now() < askUntil) {
      await new Promise((r) => setTimeout(r, 100));
      const again = await askHolder(dirLock.address, 3000);
      if (again.refused) dirLock = await holdDirLock(config.dataDir);
      else holder = again.holder ?? holder;
    }
  }
  if (!dirLock.ok) {
    const h = holder;
    if (h?.port) {
      const p = await waitOurs(h.port, config.host, config.dataDir, token, 30_000);
      if (p.kind === 'ours') {
        say(`claude-mem worker already running (pid ${p.health.pid}) at http://127.0.0.1:${p.health.port}; using it.`);
        process.exit(0);
      }
    }
    const who = h?.pid ? `another worker (pid ${h.pid}${h.port ? `, port ${h.port}` : ', still starting'})` : 'another process';
    const why = dirLock.why === 'held' || h ? `${who} holds its lock (${showAddress(dirLock.address)})` : dirLock.why;
    process.stderr.write(
      `claude-mem worker refuses to start: data dir ${config.dataDir} has a worker already; ${why}. One worker writes a data dir: use that one, or stop it first (\`claude-mem stop\`${h?.pid ? ` or \`kill ${h.pid}\`` : ''}).\n`,
    );
    log.error(`data dir lock held: ${why}`);
    process.exit(1);
  }
  const held = dirLock;
  const lock = acquireLock(config.dataDir, config.port);
  if (!lock.ok) {
    const p = await waitOurs(lock.holder.port, config.host, config.dataDir, token, 10_000);
    if (p.kind === 'ours') {
      say(`claude-mem worker already running (pid ${p.health.pid}) at http://127.0.0.1:${p.health.port}; using it.`);
      process.exit(0);
    }
    const what = p.kind === 'other' ? `port ${lock.holder.port} is held by ${describeHolder(p)}` : 'it does not answer';
    process.stderr.write(`another process (pid ${lock.holder.pid}) holds ${path.join(config.dataDir, 'worker.pid')} but ${what}; stop it or remove the file\n`);
    process.exit(1);
  }

  const startedAt = Date.now();
  const store = await Store.open({
    dir: path.join(config.dataDir, 'db'),
    log,
    snapshotJournalBytes: config.settings.snapshotJournalBytes,
    replicaScript: process.env.CLAUDE_MEM_NO_REPLICA === '1' ? null : path.join(__dirname, 'replica.js'),
    emptySchema: createSchema,
    compactAfterDeleteMs: config.settings.compactAfterDeleteMs,
    snapshotAtFirstStart: true,
    packChain: true,
  });
  await migrate(store);
  if (!store.degraded && (store.recovery.recordsReplayed > 0 || store.recovery.problems.length > 0)) {
    // What this start replayed (the journal a stop left after the newest checkpoint) is written
    // as a delta before it answers: a stop right after it then leaves the next start nothing to
    // replay, and no stop ever waits for this checkpoint. A failure leaves it to the next start.
    await store.snapshot(false, false, true).catch((e: Error) => log.error(`post-recovery checkpoint failed: ${e.message}`));
  }
  const events = new EventBus();
  const compressor = createCompressor({ config, env: process.env, store, events, log });
  const processor = new Processor(store, events, log, compressor);
  const lifecycle = new Lifecycle(store, config.settings, events, () => processor.kick());
  const lull = new Lull();
  const search = new SearchService({ config, store, events, log, lull });

  let boundPort = config.port;
  let lastActivity = Date.now();
  let stopping: Promise<void> | undefined;
  let spool: Spool | undefined;
  const ctx: AppContext = {
    config,
    store,
    lifecycle,
    processor,
    compressor,
    events,
    search,
    log,
    token,
    startedAt,
    port: () => boundPort,
    touch: () => {
      lastActivity = Date.now();
    },
    lull,
    shutdown: (reason) => void shutdown(reason),
  };
  const team = teamService({ store, events, log, dataDir: config.dataDir, gap: () => processor.nextGap() });
  const app = createApp(ctx, moduleRoutes);
  const server = createAdaptorServer({ fetch: app.fetch, hostname: config.host });
  // An idle kept-alive connection stays a minute (Node's default is 5 s). A client whose event loop
  // was busy for about that long (a synchronous child process, a long computation) writes its next
  // request on the connection just as a 5 s worker closes it, and the request is reset. The header
  // tells clients the same figure, so they close first.
  (server as Server).keepAliveTimeout = KEEP_ALIVE_MS;
  (server as Server).headersTimeout = KEEP_ALIVE_MS + 5_000;

  async function shutdown(reason: string): Promise<void> {
    if (stopping) return stopping;
    stopping = (async () => {
      log.info(`shutting down: ${reason}`);
      dropProof(config.dataDir); // clients prove the next worker again
      if (spool) updateLock(config.dataDir, { port: boundPort, spool: false }); // hooks: TCP from now on
      spool?.stop();
      server.close();
      // What each part of the stop took (ms), in the 'stopped' line: where a slow stop waits.
      const took: Record<string, number> = {};
      let t = performance.now();
      const lap = (part: string) => {
        const now = performance.now();
        took[part] = Math.round(now - t);
        t = now;
      };
      await processor.stop();
      lap('processor');
      await search.stop();
      lap('search');
      await team.stop();
      lap('team');
      // No checkpoint on the way out: the journal holds every acknowledged write; the next start
      // replays it and writes a delta of it before it answers.
      await store.close(false, (part) => lap(`store.${part}`));
      releaseLock(config.dataDir);
      held.release();
      log.info('stopped', took);
    })();
    await stopping;
    process.exit(0);
  }

  await new Promise<void>((resolve) => {
    server.once('error', async (e: NodeJS.ErrnoException) => {
      if (e.code === 'EADDRINUSE') {
        const p = await probeAt(config.port, config.host, config.dataDir, token);
        await store.close(false);
        releaseLock(config.dataDir);
        if (p.kind === 'ours') {
          say(`claude-mem worker already running (pid ${p.health.pid}) at http://127.0.0.1:${config.port}; using it.`);
          process.exit(0);
        }
        // Not a worker for this data dir: never "already running", and say what holds the port.
        const what = p.kind === 'other' ? describeHolder(p) : 'another program (it does not answer HTTP)';
        process.stderr.write(`port ${config.port} is in use by ${what}; this worker (data dir ${config.dataDir}) cannot start there. Stop that program, or set CLAUDE_MEM_WORKER_PORT to a free port.\n`);
        log.error(`port ${config.port} is in use by ${what}`);
        process.exit(1);
      }
      process.stderr.write(`cannot listen: ${e.message}\n`);
      process.exit(1);
    });
    server.listen(config.port, config.host, () => resolve());
  });
  clearInterval(startingUp);
  boundPort = (server.address() as AddressInfo).port;
  held.setPort(boundPort);
  if (process.env.CLAUDE_MEM_NO_SPOOL !== '1') {
    try {
      spool = startSpool({ dataDir: config.dataDir, token, port: () => boundPort, fetch: app.fetch, log });
    } catch (e) {
      log.warn(`hook spool not served (hooks use TCP): ${(e as Error).message}`);
    }
  }
  updateLock(config.dataDir, { port: boundPort, spool: spool !== undefined });

  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(sig, () => void shutdown(sig));
  processor.kick();
  search.start();
  if (!store.degraded) team.start(); // a read-only (degraded) store cannot apply pulls
  if (config.settings.idleShutdownMs > 0) {
    const t = setInterval(() => {
      if (Date.now() - lastActivity > config.settings.idleShutdownMs && events.clientCount === 0) void shutdown('idle');
    }, Math.min(config.settings.idleShutdownMs, 30_000));
    t.unref();
  }

  const r = store.recovery;
  log.info(`listening on ${config.host}:${boundPort}`, { pid: process.pid, snapshotGen: r.snapshotGen, replayed: r.recordsReplayed, problems: r.problems.length, startupMs: Date.now() - startedAt, codeCache: codeCacheState() });
  say(`claude-mem worker listening on http://${config.host}:${boundPort}`);
  say(`  data dir: ${config.dataDir}`);
  say(`  token:    ${path.join(config.dataDir, 'auth.token')}`);
  if (r.problems.length > 0) say(`  recovered with problems:\n    ${r.problems.join('\n    ')}`);
  if (store.degraded) say(`  NOT READY: ${store.degraded}`);
  say('  stop:     Ctrl+C, or `node dist/cli.js stop`');
  (process as NodeJS.EventEmitter).emit(READY_EVENT);
}

// `node dist/worker.js recover [--accept-loss] [--json]` (what `claude-mem recover` runs): the
// offline rebuild of the store from its files, with the worker stopped; no server.
if (process.argv[2] === 'recover') {
  runRecover(process.argv.slice(3)).then(
    (code) => process.exit(code),
    (e: Error) => {
      process.stderr.write(`claude-mem: ${e.message}\n`);
      process.exit(1);
    },
  );
} else {
  main().catch((e: Error) => {
    process.stderr.write(`claude-mem worker failed to start: ${e.stack ?? e.message}\n`);
    process.exit(1);
  });
}
