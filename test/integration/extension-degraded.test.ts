// Degraded storage reaches the user: the bundled extension in the stand-in host
// (test/helpers/fakeVscode.cjs) connects to a worker whose journal lost an acknowledged record; the
// status bar says "degraded" and one notification says what to do. Run `npm run build` first.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { after, before, it } from 'node:test';
import { ROOT, startWorker, tempDir, until } from '../helpers/worker';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const fake = require('../helpers/fakeVscode.cjs') as {
  install(o: object): { state: { statusItems: { text: string; tooltip: string }[]; messages: { level: string; message: string }[] } };
  context(p: string): { subscriptions: { dispose(): void }[] };
};

const project = tempDir('cmem-degproj-');
const dataDir = tempDir('cmem-degdata-');
let port = 0;
let ext: { activate(ctx: unknown): { services: { supervisor: any } }; deactivate(): Promise<void> } | undefined;
let services: { supervisor: any } | undefined;
let extContext: { subscriptions: { dispose(): void }[] } | undefined;

before(async () => {
  // A journal whose middle was damaged after its records were acknowledged.
  const w = await startWorker({ dataDir });
  for (let i = 0; i < 20; i++) await w.req('POST', '/api/memory/save', { text: `memory ${i}`, project: 'deg' });
  await w.kill('SIGKILL');
  const db = path.join(dataDir, 'db');
  const seg = path.join(db, fs.readdirSync(db).filter((n) => n.startsWith('journal-')).sort().pop()!);
  const b = fs.readFileSync(seg);
  b[Math.floor(b.length / 2)] ^= 0xff;
  fs.writeFileSync(seg, b);
  fs.rmSync(path.join(dataDir, 'worker.pid'), { force: true });
  port = await new Promise<number>((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
  process.env.CLAUDE_MEM_EMBEDDINGS = 'off';
});

after(async () => {
  const pid = services?.supervisor.state.pid as number | undefined;
  await ext?.deactivate();
  for (const d of extContext?.subscriptions ?? []) d.dispose(); // as the host does after deactivate
  if (pid) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      /* gone */
    }
  }
});

it('the status bar and one notification say storage is degraded and what to do', async () => {
  const state = fake.install({
    folders: [project],
    settings: { 'claudeMem.worker.port': port, 'claudeMem.worker.dataDir': dataDir, 'claudeMem.compression.provider': 'local', 'claudeMem.session.idleSummaryMinutes': 0 },
  }).state;
  ext = require(path.join(ROOT, 'dist', 'extension.js'));
  extContext = fake.context(ROOT);
  services = ext!.activate(extContext).services;
  await until(() => /degraded/.test(state.statusItems[0]?.text ?? ''), 30_000, 'degraded status');
  assert.match(state.statusItems[0].tooltip, /claude-mem recover/);
  const warned = () => state.messages.filter((m) => m.level === 'warn' && /degraded/.test(m.message));
  await until(() => warned().length === 1, 5_000, 'one warning');
  // Asking again (a reconnect does) does not repeat the notification.
  await (services!.supervisor as { suspect(): Promise<void> }).suspect?.();
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(warned().length, 1);
  assert.match(warned()[0].message, /claude-mem recover --accept-loss/);
});
