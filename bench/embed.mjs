// The local encoder's throughput and where its time goes, old host behaviour against new in one
// run: records/s through the real model process (wall clock and CPU seconds of that process, so a
// busy machine still compares like with like), one text a message (before) against the batch in
// one message in runs of similar length (embed/runs.ts), at indexer batches of 1/8/32/128; a token
// cap; tfjs-wasm threads; tokenizer against graph; how long a query waits behind a backlog. The texts are the development sets' records, embedded as the
// indexer does (embedText.ts: one text a record). Prints only; writes nothing.
//
//   node --import tsx bench/embed.mjs            # sources through tsx; uses dist/embedder.js when built
//   BENCH_EMBED_N=192                            # texts per configuration
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as core from '@energetic-ai/core';
import { locateEmbedderFiles } from '../worker/search/embed/assets.ts';
import { createLocalEmbedder } from '../worker/search/embed/embedder.ts';
import { MAX_TOKENS, RUN_TOKENS } from '../worker/search/embed/protocol.ts';
import { capTokens, planRuns } from '../worker/search/embed/runs.ts';
import { loadUseModel } from '../worker/search/embed/useModel.ts';
import { observationEmbedText, summaryEmbedText } from '../worker/search/embedText.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const N = Number(process.env.BENCH_EMBED_N ?? 192);
const TICK_MS = 1000 / 100; // USER_HZ on Linux

const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
function row(label, value) {
  console.log(`${label.padEnd(58)} ${value}`);
}

/** The development sets' records as the indexer embeds them, spread over the sets. */
function recordTexts() {
  const texts = [];
  for (const folder of ['search', 'search-dev2', 'search-dev4', 'search-heldout', 'search-heldout2', 'search-heldout3']) {
    const file = path.join(root, 'test', 'fixtures', folder, 'history.json');
    if (!fs.existsSync(file)) continue;
    for (const s of JSON.parse(fs.readFileSync(file, 'utf8')).sessions) {
      for (const o of s.observations) texts.push(observationEmbedText(o));
      for (const m of s.summaries) texts.push(summaryEmbedText(m));
    }
  }
  const step = Math.max(1, Math.floor(texts.length / N));
  return texts.filter((_, i) => i % step === 0).slice(0, N);
}

function childPids() {
  try {
    return fs.readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  } catch {
    return [];
  }
}

/** Peak RSS (MB) of the model process. */
function childPeakMB() {
  let kb = 0;
  for (const pid of childPids()) {
    try {
      kb += Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    } catch {}
  }
  return kb / 1024;
}

/** CPU ms (user + system) of this process's child processes: the model process. */
function childCpuMs() {
  let ticks = 0;
  for (const pid of childPids()) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {}
  }
  return ticks * TICK_MS;
}

const threadScript = (() => {
  const built = path.join(root, 'dist', 'embedder.js');
  return fs.existsSync(built) ? built : path.join(root, 'worker', 'search', 'embedderThread.ts');
})();

/**
 * The indexer's way through a fresh model process: batches of `batch` records, sent `perMessage`
 * texts a message (the indexing handle), the host configured by `threadData`.
 */
async function indexerRate(texts, { batch, perMessage, threadData }) {
  const e = createLocalEmbedder({ threadScript, idleMs: 60_000, threadData });
  try {
    const index = e.serial(perMessage, 60_000);
    await index.embed(['warm up the model']);
    const cpu0 = childCpuMs();
    const t0 = performance.now();
    for (let i = 0; i < texts.length; i += batch) await index.embed(texts.slice(i, i + batch));
    const wall = performance.now() - t0;
    const cpu = childCpuMs() - cpu0;
    return { perS: (texts.length / wall) * 1000, perCpuS: (texts.length / cpu) * 1000, peakMB: childPeakMB(), stats: e.stats() };
  } finally {
    await e.close();
  }
}

function rateRow(label, r) {
  row(label, `${f1(r.perS).padStart(6)} records/s  ${f1(r.perCpuS).padStart(6)} per CPU s  peak ${Math.round(r.peakMB)} MB`);
}

async function throughput(texts) {
  console.log(`\n## indexer throughput through the model process (${texts.length} records, ${path.relative(root, threadScript)})`);
  // One text a message is one text a run (the cut at MAX_TOKENS changes no vector: see the cosine rows below).
  const before = { maxTokens: 0 };
  const results = {};
  // Before: the indexer sent one text a message; each message was one graph run, on one thread.
  results.before = await indexerRate(texts, { batch: 16, perMessage: 1, threadData: before });
  rateRow('before: 1 text a message (indexer batch 16)', results.before);
  results.now = await indexerRate(texts, { batch: 16, perMessage: 32, threadData: {} });
  rateRow(`now: the batch in one message, runs of ${RUN_TOKENS} tokens`, results.now);
  row('  ratio now / before (records/s, per CPU s)', `${f1(results.now.perS / results.before.perS)}x, ${f1(results.now.perCpuS / results.before.perCpuS)}x`);
  for (const batch of [1, 8, 32, 128]) {
    rateRow(`batch ${batch}, runs of similar length (${RUN_TOKENS} tokens)`, await indexerRate(texts, { batch, perMessage: batch, threadData: {} }));
  }
  for (const maxTokens of [0, 64, 32]) {
    rateRow(`batch 32, texts cut at ${maxTokens || 'no'} tokens`, await indexerRate(texts, { batch: 32, perMessage: 32, threadData: { maxTokens } }));
  }
  row('  SIMD in the runs above; model load', `${results.now.stats.simd}; ${results.now.stats.lastLoadMs} ms`);
}

/** In this process: tokenizer against graph, CPU time, and what tfjs says about wasm threads. */
async function split(texts) {
  console.log('\n## where the time goes (in this process, CPU time)');
  const m = await loadUseModel(locateEmbedderFiles(path.join(root, 'dist')));
  const tf = /** @type {any} */ (core);
  row('tfjs-wasm threads', (await tf.env().getAsync('WASM_HAS_MULTITHREAD_SUPPORT')) ? 'supported' : 'not offered under Node (tfjs turns them off): 1 thread');
  row('texts per record', '1 (embedText.ts: title, subtitle, narrative; a summary\'s fields)');
  const cpu = (fn) => async () => {
    const c0 = process.cpuUsage();
    await fn();
    const c = process.cpuUsage(c0);
    return (c.user + c.system) / 1000;
  };
  await m.run(texts.slice(0, 8).map((t) => m.tokenize(t)));
  let enc = [];
  const tokMs = await cpu(async () => (enc = texts.map((t) => m.tokenize(t))))();
  const lens = enc.map((e) => e.length);
  row('tokens per text p50 / p90 / max', `${pct(lens, 0.5)} / ${pct(lens, 0.9)} / ${Math.max(...lens)} (chars p50 ${pct(texts.map((t) => t.length), 0.5)})`);
  row('tokenizer, per text', `${(tokMs / texts.length).toFixed(2)} ms CPU`);
  const oneByOne = await cpu(async () => {
    for (const e of enc) await m.run([e]);
  })();
  row('graph, one text a run, per text', `${(oneByOne / texts.length).toFixed(1)} ms CPU`);
  const runs = planRuns(lens, RUN_TOKENS);
  const planned = await cpu(async () => {
    for (const r of runs) await m.run(r.map((i) => enc[i]));
  })();
  row(`graph, runs of ${RUN_TOKENS} tokens (${runs.length} runs), per text`, `${(planned / texts.length).toFixed(1)} ms CPU`);
  const whole = await cpu(async () => {
    for (let i = 0; i < enc.length; i += 32) await m.run(enc.slice(i, i + 32));
  })();
  row('graph, 32 texts a run in record order, per text', `${(whole / texts.length).toFixed(1)} ms CPU`);
  // The model's own length cap: a long text against its first n tokens (cosine 1 from the cap on).
  const long = texts.join(' ');
  const longIds = capTokens(m.tokenize(long), 1500);
  const fullVec = await m.run([longIds]);
  const cosine = (a, b) => {
    let d = 0;
    let x = 0;
    let y = 0;
    for (let i = 0; i < a.length; i++) {
      d += a[i] * b[i];
      x += a[i] * a[i];
      y += b[i] * b[i];
    }
    return d / Math.sqrt(x * y);
  };
  for (const cap of [0, 512, 256, 129, 128, 127, 64, 32]) {
    const ids = capTokens(longIds, cap);
    let v;
    const ms = await cpu(async () => {
      for (let i = 0; i < 3; i++) v = await m.run([ids]);
    })();
    row(`a ${longIds.length}-token text cut at ${cap || 'no'} tokens`, `${(ms / 3).toFixed(1)} ms CPU, cosine to the whole ${cosine(fullVec, v).toFixed(5)}`);
  }
  row('token cap in effect (protocol.ts MAX_TOKENS)', MAX_TOKENS > 0 ? String(MAX_TOKENS) : 'none (the 2,000-character cut only)');
}

/** A query's embedding while the indexer has a backlog: it waits for at most the run under way. */
async function queryWait(texts) {
  console.log('\n## a query embedding while the indexer works (one model process)');
  for (const [label, threadData, perMessage] of [
    ['before (1 text a message)', { maxTokens: 0 }, 1],
    [`now (batch in one message, runs of ${RUN_TOKENS})`, {}, 32],
  ]) {
    const e = createLocalEmbedder({ threadScript, idleMs: 60_000, threadData });
    try {
      const index = e.serial(perMessage, 60_000);
      await e.embed(['warm up']);
      let stop = false;
      const backlog = (async () => {
        for (let i = 0; !stop; i = (i + 16) % texts.length) await index.embed(texts.slice(i, i + 16));
      })();
      const waits = [];
      for (let q = 0; q < 20; q++) {
        await sleep(37);
        const t = performance.now();
        await e.embed([`why did the login fail ${q}`]);
        waits.push(performance.now() - t);
      }
      stop = true;
      await backlog;
      row(`query embedding p50 / p95, ${label}`, `${f1(pct(waits, 0.5))} / ${f1(pct(waits, 0.95))} ms`);
    } finally {
      await e.close();
    }
  }
}

const started = performance.now();
console.log(`# embed bench: ${os.cpus().length} cores, node ${process.version}, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`);
const texts = recordTexts();
await throughput(texts);
await split(texts);
await queryWait(texts);
console.log(`\nload average at the end ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}; total ${((performance.now() - started) / 1000).toFixed(1)} s`);
