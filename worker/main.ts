// Worker entry: config -> lock -> store -> services -> HTTP server, and a graceful shutdown.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createAdaptorServer } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { createCompressor } from './agent';
import { ensureToken } from './auth';
import { isLoopbackHost, loadConfig } from './config';
import { EventBus } from './events';
import { Lifecycle } from './lifecycle';
import { acquireLock, releaseLock, updateLockPort } from './lock';
import { createLogger } from './log';
import type { HealthResponse } from './protocol';
import { Processor } from './queue/processor';
import { searchService } from './search/service';
import { createApp } from './server/app';
import { moduleRoutes } from './server/routes';
import type { AppContext } from './server/context';
import { migrate } from './store/schema';
import { Store } from './store/store';
import { teamService } from './team/service';

async function healthAt(port: number, host = '127.0.0.1'): Promise<HealthResponse | undefined> {
  try {
    const r = await fetch(`http://${host.includes(':') ? `[${host}]` : host}:${port}/api/health`, { signal: AbortSignal.timeout(1000) });
    const body = (await r.json()) as HealthResponse;
    return body.service === 'claude-mem-vscode' ? body : undefined;
  } catch {
    return undefined;
  }
}

async function waitHealthy(port: number, ms: number): Promise<HealthResponse | undefined> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const h = await healthAt(port);
    if (h) return h;
    await new Promise((r) => setTimeout(r, 200));
  }
  return undefined;
}

async function main(): Promise<void> {
  const config = loadConfig();
  const say = (s: string) => process.stdout.write(`${s}\n`);
  if (!isLoopbackHost(config.host) && !config.settings.allowRemoteBind) {
    process.stderr.write(`refusing to bind to non-loopback host "${config.host}": set "allowRemoteBind": true in settings.json or CLAUDE_MEM_ALLOW_REMOTE=1 if you really mean it\n`);
    process.exit(2);
  }
  try {
    fs.mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
    fs.accessSync(config.dataDir, fs.constants.W_OK);
    fs.chmodSync(config.dataDir, 0o700);
  } catch (e) {
    process.stderr.write(`data dir ${config.dataDir} is not usable (${(e as Error).message}); the worker needs to write its journal there. Fix its permissions or set CLAUDE_MEM_DATA_DIR.\n`);
    process.exit(1);
  }
  const log = createLogger(config.dataDir, 'worker', process.env.CLAUDE_MEM_LOG_STDERR === '1');
  if (config.problem) log.warn(config.problem);

  const lock = acquireLock(config.dataDir, config.port);
  if (!lock.ok) {
    const h = await waitHealthy(lock.holder.port, 10_000);
    if (h) {
      say(`claude-mem worker already running (pid ${h.pid}) at http://127.0.0.1:${h.port}; using it.`);
      process.exit(0);
    }
    process.stderr.write(`another process (pid ${lock.holder.pid}) holds ${path.join(config.dataDir, 'worker.pid')} but does not answer; stop it or remove the file\n`);
    process.exit(1);
  }

  const startedAt = Date.now();
  const token = ensureToken(config.dataDir);
  const store = await Store.open({
    dir: path.join(config.dataDir, 'db'),
    log,
    snapshotJournalBytes: config.settings.snapshotJournalBytes,
    replicaScript: process.env.CLAUDE_MEM_NO_REPLICA === '1' ? null : path.join(__dirname, 'replica.js'),
  });
  await migrate(store);
  const events = new EventBus();
  const compressor = createCompressor({ config, env: process.env, store, events, log });
  const processor = new Processor(store, events, log, compressor);
  const lifecycle = new Lifecycle(store, config.settings, events, () => processor.kick());

  let boundPort = config.port;
  let lastActivity = Date.now();
  let stopping: Promise<void> | undefined;
  const ctx: AppContext = {
    config,
    store,
    lifecycle,
    processor,
    compressor,
    events,
    log,
    token,
    startedAt,
    port: () => boundPort,
    touch: () => {
      lastActivity = Date.now();
    },
    shutdown: (reason) => void shutdown(reason),
  };
  const search = searchService(ctx);
  const team = teamService({ store, events, log, dataDir: config.dataDir });
  const app = createApp(ctx, moduleRoutes);
  const server = createAdaptorServer({ fetch: app.fetch, hostname: config.host });

  async function shutdown(reason: string): Promise<void> {
    if (stopping) return stopping;
    stopping = (async () => {
      log.info(`shutting down: ${reason}`);
      server.close();
      await processor.stop();
      await search.stop();
      await team.stop();
      await store.close(true);
      releaseLock(config.dataDir);
      log.info('stopped');
    })();
    await stopping;
    process.exit(0);
  }

  await new Promise<void>((resolve) => {
    server.once('error', async (e: NodeJS.ErrnoException) => {
      if (e.code === 'EADDRINUSE') {
        const h = await healthAt(config.port);
        await store.close(false);
        releaseLock(config.dataDir);
        if (h) {
          say(`claude-mem worker already running (pid ${h.pid}) at http://127.0.0.1:${config.port}; using it.`);
          process.exit(0);
        }
        process.stderr.write(`port ${config.port} is in use by another program; set CLAUDE_MEM_WORKER_PORT\n`);
        process.exit(1);
      }
      process.stderr.write(`cannot listen: ${e.message}\n`);
      process.exit(1);
    });
    server.listen(config.port, config.host, () => resolve());
  });
  boundPort = (server.address() as AddressInfo).port;
  updateLockPort(config.dataDir, boundPort);

  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(sig, () => void shutdown(sig));
  processor.kick();
  search.start();
  team.start();
  if (store.recovery.recordsReplayed > 0 || store.recovery.problems.length > 0) {
    store.snapshot().catch((e: Error) => log.error(`post-recovery snapshot failed: ${e.message}`));
  }
  if (config.settings.idleShutdownMs > 0) {
    const t = setInterval(() => {
      if (Date.now() - lastActivity > config.settings.idleShutdownMs && events.clientCount === 0) void shutdown('idle');
    }, Math.min(config.settings.idleShutdownMs, 30_000));
    t.unref();
  }

  const r = store.recovery;
  log.info(`listening on ${config.host}:${boundPort}`, { pid: process.pid, snapshotGen: r.snapshotGen, replayed: r.recordsReplayed, problems: r.problems.length, startupMs: Date.now() - startedAt });
  say(`claude-mem worker listening on http://${config.host}:${boundPort}`);
  say(`  data dir: ${config.dataDir}`);
  say(`  token:    ${path.join(config.dataDir, 'auth.token')}`);
  if (r.problems.length > 0) say(`  recovered with problems:\n    ${r.problems.join('\n    ')}`);
  say('  stop:     Ctrl+C, or `node dist/cli.js stop`');
}

main().catch((e: Error) => {
  process.stderr.write(`claude-mem worker failed to start: ${e.stack ?? e.message}\n`);
  process.exit(1);
});
