// Bad input: 10,000 generated requests over every route get only 2xx/4xx, the worker survives,
// and no rejected request changes what is stored. Tag stripping is fuzzed for time.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as http from 'node:http';
import { after, before, it } from 'node:test';
import { parseObservations, parseSummary } from '../../worker/compression/parser';
import { stripPrivate } from '../../common/privacy';
import { startWorker, type RunningWorker } from '../helpers/worker';
import { FACTOR, MAX_RATIO, measureScaling } from '../helpers/linear';
import { faultCase } from './record';

const N = Number(process.env.FUZZ_REQUESTS ?? 10_000);
let w: RunningWorker;

// Deterministic PRNG so a failure can be replayed.
let seed = Number(process.env.FUZZ_SEED ?? 20261202);
const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 0x100000000);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];

const NASTY_STRINGS = [
  '', ' ', '\u0000', '../../../../etc/passwd', '..\\..\\windows\\system32', '/etc/shadow', '%2e%2e%2f%2e%2e%2f',
  "'; DROP TABLE observations; --", '" OR 1=1 --', 'NEAR/3', '"unbalanced', 'title:secret', '*', 'a OR', '-', '(((', 'AND NOT',
  '<private>x', '</private>', '<claude-mem-context>', '100%', '%E0%A4%A', '\ud800', '😀'.repeat(50), 'x'.repeat(100_000), '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
];
const NASTY_NUMBERS = [-1, 0, 1, 2 ** 53, -(2 ** 63), 1e308, NaN, 3.5, Number.MAX_SAFE_INTEGER + 2];

function deep(depth: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = rand() < 0.5 ? [v] : { k: v };
  return v;
}

function anyValue(): unknown {
  switch (Math.floor(rand() * 9)) {
    case 0: return pick(NASTY_STRINGS);
    case 1: return pick(NASTY_NUMBERS);
    case 2: return rand() < 0.5;
    case 3: return null;
    case 4: return [pick(NASTY_STRINGS), pick(NASTY_NUMBERS)];
    case 5: return { unknown: pick(NASTY_STRINGS) };
    case 6: return deep(Math.floor(rand() * 200));
    case 7: return `s-${Math.floor(rand() * 5)}`;
    default: return undefined;
  }
}

const WRITE_BODIES: Record<string, () => Record<string, unknown>> = {
  '/api/sessions/init': () => ({ contentSessionId: 'fz', project: 'fuzz', prompt: 'a prompt' }),
  '/api/sessions/observations': () => ({ contentSessionId: 'fz', project: 'fuzz', tool_name: 'Read', tool_input: { file_path: 'a.ts' }, tool_response: 'x' }),
  '/api/sessions/summarize': () => ({ contentSessionId: 'fz', project: 'fuzz', last_assistant_message: 'done' }),
  '/api/sessions/complete': () => ({ contentSessionId: 'fz', project: 'fuzz', reason: 'exit' }),
  '/api/memory/save': () => ({ text: 'remember this', project: 'fuzz' }),
  '/api/import': () => ({ format: 'claude-mem-vscode/export', version: 1, sessions: [] }),
  '/api/queue/retry': () => ({ ids: [1] }),
  '/api/observations/batch': () => ({ ids: [1, 2] }),
  '/api/noop': () => ({}),
};
const GET_PATHS = [
  '/api/health', '/api/readiness', '/api/stats', '/api/observations', '/api/observation/{n}', '/api/sessions', '/api/projects',
  '/api/export', '/api/queue', '/api/search', '/api/timeline', '/api/search/by-file', '/api/context/inject', '/api/nope',
];
const QUERY_KEYS = ['project', 'limit', 'offset', 'query', 'type', 'concepts', 'file', 'dateStart', 'dateEnd', 'mode', 'anchor', 'depth_before', 'depth_after', 'path', 'token'];
const DELETE_PATHS = ['/api/observation/{n}', '/api/projects/{s}', '/api/session/{n}'];

/** Lone surrogates cannot be encoded; send an invalid UTF-8 escape instead (a good case in itself). */
function enc(v: string): string {
  try {
    return encodeURIComponent(v);
  } catch {
    return '%ED%A0%80';
  }
}

function fill(p: string): string {
  return p.replace('{n}', String(pick(['1', '0', '-1', 'abc', '99999999999999999999', '1e3', '%00', '..%2F..%2Fetc']))).replace('{s}', enc(String(pick(NASTY_STRINGS)).slice(0, 300)));
}

function query(): string {
  const n = Math.floor(rand() * 4);
  const parts: string[] = [];
  for (let i = 0; i < n; i++) parts.push(`${pick(QUERY_KEYS)}=${enc(String(anyValue()).slice(0, 2000))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

interface FuzzReq {
  method: string;
  path: string;
  body?: Buffer;
  isWrite: boolean;
}

function generate(): FuzzReq {
  const r = rand();
  if (r < 0.3) return { method: 'GET', path: fill(pick(GET_PATHS)) + query(), isWrite: false };
  if (r < 0.35) return { method: 'DELETE', path: fill(pick(DELETE_PATHS)), isWrite: true };
  const route = pick(Object.keys(WRITE_BODIES));
  const body = WRITE_BODIES[route]();
  const kind = rand();
  let raw: Buffer;
  if (kind < 0.1) raw = Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0xc3, 0x28, 0x7d]); // invalid UTF-8
  else if (kind < 0.2) raw = Buffer.from(JSON.stringify(body).slice(0, Math.floor(rand() * 20))); // truncated JSON
  else if (kind < 0.25) raw = Buffer.from('{"contentSessionId":' + '['.repeat(20000) + ']'.repeat(20000) + '}'); // deep JSON
  else {
    const keys = Object.keys(body);
    for (let i = 0; i < 1 + Math.floor(rand() * 3); i++) {
      const k = rand() < 0.8 && keys.length ? pick(keys) : `extra_${Math.floor(rand() * 9)}`;
      const v = anyValue();
      if (v === undefined) delete body[k];
      else body[k] = v;
    }
    raw = Buffer.from(JSON.stringify(rand() < 0.05 ? [body] : body));
  }
  return { method: 'POST', path: route + (rand() < 0.1 ? query() : ''), body: raw, isWrite: route !== '/api/noop' };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
function send(r: FuzzReq): Promise<number> {
  return new Promise((resolve, reject) => {
    const rq = http.request(
      { host: '127.0.0.1', port: w.port, method: r.method, path: r.path, agent, headers: { authorization: `Bearer ${w.token}`, ...(r.body ? { 'content-type': 'application/json', 'content-length': r.body.length } : {}) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    rq.on('error', reject);
    rq.end(r.body);
  });
}

/**
 * What is stored: the export's text as the worker sends it, without its timestamp, and the counts
 * (the queue's too). Hashed as received, without parsing and serializing again an export that grows
 * with the fuzz's large strings, for each of about a thousand batches.
 */
async function fingerprint(): Promise<string> {
  const r = await fetch(`${w.url}/api/export`, { headers: { authorization: `Bearer ${w.token}` } });
  const text = await r.text();
  assert.equal(r.status, 200, text.slice(0, 300));
  const stamp = /^\{"format":"[^"]*","version":\d+,"exportedAt":"[^"]*",/.exec(text);
  assert.ok(stamp, `an export that does not start with its format, version and time: ${text.slice(0, 200)}`);
  const s = await w.req('GET', '/api/stats');
  const counts = [s.body.sessions, s.body.prompts, s.body.observations, s.body.summaries, s.body.queue.pending, s.body.queue.dead];
  return createHash('sha256').update(text.slice(stamp[0].length)).update(JSON.stringify(counts)).digest('hex');
}

before(async () => {
  w = await startWorker();
  // Some data to protect.
  await w.req('POST', '/api/sessions/init', { contentSessionId: 'keep', project: 'keep', prompt: 'keep me' });
  await w.req('POST', '/api/memory/save', { text: 'important memory', project: 'keep' });
});
after(async () => {
  agent.destroy();
  await w.stop();
});

it(`fuzz: ${N} generated requests over every route`, async () => {
  await faultCase(__filename, 'bad input', `${N} fuzzed requests`, async () => {
    const statuses = new Map<number, number>();
    let checkedBatches = 0;
    const BATCH = 10;
    // The fingerprint taken after an all-rejected batch is the next batch's "before": nothing is sent
    // between the two, so taking it again would read the same export.
    let now: string | undefined;
    for (let b = 0; b < N; b += BATCH) {
      const reqs = Array.from({ length: Math.min(BATCH, N - b) }, generate);
      const before = now ?? (await fingerprint());
      now = undefined;
      let acceptedWrites = 0;
      for (const r of reqs) {
        const status = await send(r);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        assert.ok(status >= 200 && status < 500, `${r.method} ${r.path.slice(0, 120)} -> ${status}`);
        if (r.isWrite && status < 300) acceptedWrites += 1;
      }
      // Let queued jobs settle before comparing.
      for (let i = 0; i < 50 && (await w.req('GET', '/api/health')).body.queueDepth > 0; i++) await new Promise((res) => setTimeout(res, 20));
      if (acceptedWrites === 0) {
        now = await fingerprint();
        assert.equal(now, before, `batch at ${b}: rejected requests changed stored data`);
        checkedBatches += 1;
      }
    }
    assert.equal((await w.req('GET', '/api/health')).status, 200, 'worker alive');
    const dist = [...statuses.entries()].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}:${n}`).join(' ');
    assert.ok(checkedBatches > N / 200, `only ${checkedBatches} all-rejected batches were compared`);
    return `statuses ${dist}; ${checkedBatches} all-rejected batches left the export unchanged`;
  });
});

it(`tag stripping: 1 MB adversarial inputs take time linear in their size (against 1/${FACTOR} of each)`, async () => {
  await faultCase(__filename, 'bad input', 'strip 1 MB adversarial inputs', async () => {
    const pieces = ['<private', '<private>', '</private>', '<claude-mem-context', '<', '>', 'x', '\n', '<priv', '</claude-mem-context>', ' a="b"'];
    let worst = { ratio: 0, bigMs: 0 };
    for (let k = 0; k < 30; k++) {
      let s = '';
      while (s.length < 1 << 20) s += pick(pieces);
      // CPU time, best of three, against the same input's first 1/16 (helpers/linear.ts): a loaded
      // machine stretches the wall clock, not the input's own cost.
      const m = measureScaling((f) => s.slice(0, (s.length / FACTOR) * f), (x) => stripPrivate(x));
      if (m.ratio > worst.ratio) worst = m;
    }
    assert.ok(worst.ratio < MAX_RATIO, `${FACTOR}x the input took ${worst.ratio.toFixed(1)}x as long (${worst.bigMs.toFixed(1)} ms of CPU at 1 MB)`);
    return `30 random 1 MB inputs, worst ${worst.ratio.toFixed(1)}x the time of 1/${FACTOR} of the input (${worst.bigMs.toFixed(1)} ms of CPU)`;
  });
});

it(`XML parser: 1 MB adversarial model replies take time linear in their size (against 1/${FACTOR} of each)`, async () => {
  await faultCase(__filename, 'bad input', 'parse 1 MB adversarial model replies', async () => {
    const pieces = ['<observation>', '</observation>', '<type>', 'bugfix', '</type>', '<title>', '</title>', '<facts>', '<fact>', '</fact>', '</facts>', '<', '>', '&amp;', '&#x', '```xml\n', '<summary>', '<skip_summary reason="x"/>', 'text ', '<observation', '"', '\n'];
    let worst = { ratio: 0, bigMs: 0 };
    for (let k = 0; k < 20; k++) {
      let s = '';
      while (s.length < 1 << 20) s += pick(pieces);
      const m = measureScaling((f) => s.slice(0, (s.length / FACTOR) * f), (x) => {
        parseObservations(x);
        parseSummary(x);
      });
      if (m.ratio > worst.ratio) worst = m;
    }
    assert.ok(worst.ratio < MAX_RATIO, `${FACTOR}x the input took ${worst.ratio.toFixed(1)}x as long (${worst.bigMs.toFixed(1)} ms of CPU at 1 MB)`);
    return `20 random 1 MB replies through both parsers, worst ${worst.ratio.toFixed(1)}x the time of 1/${FACTOR} of the reply (${worst.bigMs.toFixed(1)} ms of CPU)`;
  });
});
