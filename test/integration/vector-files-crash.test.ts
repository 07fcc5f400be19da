// Vector files under kills, with the real worker: a loopback embeddings server
// (OpenAI-compatible, bag-of-hashed-words vectors) gives every record a vector while the worker is
// killed with SIGKILL again and again mid-indexing. Every record ends up with exactly one readable
// vector, none reported damaged, and a final restart embeds nothing again: the file append is
// synced before SQLite records it, so a kill between the two leaves unused bytes, never a row
// pointing at nothing.
import { after, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { startWorker, tempDir, until, type RunningWorker } from '../helpers/worker';

const DIMS = 512;
const N = 300;

const bucket = (w: string) => {
  let h = 7;
  for (const ch of w) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return h % DIMS;
};
/** Every word the server embedded, so the test can pick markers no other word shares a bucket with. */
const seen = new Set<string>();

function embed(text: string): number[] {
  const v: number[] = new Array<number>(DIMS).fill(0);
  for (const w of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    seen.add(w);
    v[bucket(w)] += 1;
  }
  if (!v.some((x) => x !== 0)) v[0] = 1;
  return v;
}

let embedded = 0;
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const { input } = JSON.parse(Buffer.concat(chunks).toString()) as { input: string[] };
    embedded += input.length;
    // A little slower than a real local call would be per batch, so kills land mid-indexing.
    setTimeout(() => res.end(JSON.stringify({ data: input.map((t, index) => ({ index, embedding: embed(t) })) })), 15);
  });
});
after(() => server.close());

function exportDoc() {
  const start = Date.UTC(2026, 0, 1);
  const sessions = [];
  for (let s = 0; s < N / 50; s++) {
    sessions.push({
      platform: 'claude-code',
      contentSessionId: `crash-${s}`,
      project: `proj-${s % 2}`,
      cwd: null,
      status: 'completed',
      promptCounter: 1,
      startedAt: start + s * 3600_000,
      updatedAt: start + s * 3600_000,
      completedAt: start + s * 3600_000,
      completionReason: 'exit',
      prompts: [],
      observations: Array.from({ length: 50 }, (_, i) => {
        const j = s * 50 + i;
        return {
          type: 'discovery',
          title: `marker${j} in the parser module`,
          subtitle: null,
          facts: [],
          narrative: `Looked at how marker${j} is handled.`,
          concepts: [],
          filesRead: [],
          filesModified: [],
          toolName: 'Read',
          promptNumber: 1,
          contentHash: `crash-${j}`,
          source: 'local',
          inputTokens: 0,
          outputTokens: 0,
          discoveryTokens: 100,
          createdAt: start + s * 3600_000 + i * 60_000,
        };
      }),
      summaries: [],
    });
  }
  return { format: 'claude-mem-vscode/export', version: 1, exportedAt: new Date().toISOString(), project: null, sessions };
}

it('every record keeps exactly one readable vector through repeated kills mid-indexing', { timeout: 180_000 }, async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const dataDir = tempDir('vec-crash-');
  fs.writeFileSync(path.join(dataDir, 'settings.json'), JSON.stringify({ search: { embeddings: 'remote', remoteUrl: `http://127.0.0.1:${port}`, remoteDims: DIMS, indexBatchSize: 8, indexStartDelayMs: 0, indexQuietMs: 0 } }));
  const env = { CLAUDE_MEM_EMBEDDINGS: '' };
  let w: RunningWorker = await startWorker({ dataDir, env });
  const status = async () => (await w.req('GET', '/api/search/status')).body as { pending: number; indexed: { observations: number }; embeddings: { state: string } };
  try {
    assert.equal((await w.req('POST', '/api/import', exportDoc())).status, 200);
    let kills = 0;
    for (let i = 0; i < 6; i++) {
      await new Promise((r) => setTimeout(r, 60 + 70 * i));
      if ((await status()).pending === 0) break;
      await w.kill('SIGKILL');
      kills++;
      w = await startWorker({ dataDir, env });
    }
    assert.ok(kills >= 2, `killed ${kills} times mid-indexing`);
    console.log(`# ${kills} kills mid-indexing; ${embedded} texts embedded for ${N} records`);
    await until(async () => {
      const s = await status();
      return s.pending === 0 && s.indexed.observations === N && s.embeddings.state !== 'indexing';
    }, 60_000, 'every record embedded');
    const log = () => fs.readFileSync(path.join(dataDir, 'logs', 'worker.log'), 'utf8');
    assert.doesNotMatch(log(), /failed their check/, 'no vector was found damaged');
    assert.ok(fs.readdirSync(path.join(dataDir, 'vector-data')).length >= 1);
    // The vectors are the ones of their records: a marker word whose bucket no other word shares
    // finds its own observation first.
    const owners = new Map<number, number>();
    for (const word of seen) owners.set(bucket(word), (owners.get(bucket(word)) ?? 0) + 1);
    const probes = Array.from({ length: N }, (_, j) => j).filter((j) => owners.get(bucket(`marker${j}`)) === 1);
    assert.ok(probes.length >= 20, `${probes.length} markers with a bucket of their own`);
    for (const j of probes.filter((_, i) => i % Math.floor(probes.length / 8) === 0)) {
      const r = (await w.req('GET', `/api/search?${new URLSearchParams({ query: `marker${j}`, mode: 'semantic', limit: '3' })}`)).body as { items: { title?: string }[] };
      assert.match(r.items[0]?.title ?? '', new RegExp(`^marker${j} `), JSON.stringify(r.items.map((x) => x.title)));
    }
    // A graceful restart embeds nothing again.
    await w.stop();
    const before = embedded;
    w = await startWorker({ dataDir, env });
    await until(async () => (await status()).embeddings.state !== 'indexing', 20_000, 'settled');
    await new Promise((r) => setTimeout(r, 500));
    assert.equal((await status()).indexed.observations, N);
    assert.equal(embedded - before, 0, 'nothing embedded again after a clean restart');
  } finally {
    await w.stop();
  }
});
