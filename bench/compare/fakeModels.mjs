// Loopback fake model server for the side-by-side benchmark, run as its own process so its work
// never shares an event loop with the load generator. It speaks both wire formats:
//   POST <prefix>/v1/chat/completions   OpenAI-compatible (claude-mem's openrouter provider)
//   POST <prefix>/v1/messages           Anthropic Messages, plain or streamed (our worker, via the SDK's baseURL)
// <prefix> is a label (`/ours`, `/theirs`) so each product's traffic is counted apart.
// Both formats get the same answer from the same rule (respond()), instantly, and every request's
// input is counted the same way (countTokens(): characters of all text sent / 4), output as its
// reply's characters / 4.
//   GET  /__stats   counters per label;  POST /__reset   zero them.
// Usage: node bench/compare/fakeModels.mjs <workload.json>   -> prints "fake models listening on http://127.0.0.1:PORT"
import * as fs from 'node:fs';
import * as http from 'node:http';
import { answerBook } from './workload.mjs';

const workload = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const book = answerBook(workload);

const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function observationXml(o) {
  const list = (tag, inner, items) => `<${tag}>${items.map((x) => `<${inner}>${esc(x)}</${inner}>`).join('')}</${tag}>`;
  return (
    `<observation>\n<type>${esc(o.type)}</type>\n<title>${esc(o.title)}</title>\n<subtitle>${esc(o.subtitle)}</subtitle>\n` +
    `${list('facts', 'fact', o.facts)}\n<narrative>${esc(o.narrative)}</narrative>\n${list('concepts', 'concept', o.concepts)}\n` +
    `${list('files_read', 'file', o.files_read)}\n${list('files_modified', 'file', o.files_modified)}\n</observation>`
  );
}

function summaryXml(s) {
  return `<summary>\n${['request', 'investigated', 'learned', 'completed', 'next_steps', 'notes'].map((k) => `<${k}>${esc(s[k])}</${k}>`).join('\n')}\n</summary>`;
}

const uniq = (a) => [...new Set(a)];

/** The one rule both formats share. Looks only at the newest user turn. */
function respond(text) {
  // A trace id may carry a nonce (`wl-T0042~r0i17`, the ingest benchmark's repeats): one answer per distinct use.
  const uses = uniq(text.match(/wl-T\d{4}(?:~[a-z0-9]+)?/g) ?? []).filter((m) => book.observations[m.slice(0, 8)]);
  const p = uniq(text.match(/wl-P\d{4}/g) ?? []).filter((id) => book.summaries[id]);
  const asksSummary = /<summary>/.test(text);
  if (p.length && (uses.length === 0 || asksSummary)) return { kind: 'summary', ids: [p[p.length - 1]], text: summaryXml(book.summaries[p[p.length - 1]]) };
  if (uses.length) return { kind: 'observation', ids: uses, text: uses.map((m) => observationXml(book.observations[m.slice(0, 8)])).join('\n') };
  return { kind: asksSummary ? 'summary-unmatched' : 'other', ids: [], text: '<skip_summary reason="nothing worth recording" />' };
}

/** All text in a value (strings anywhere inside), joined. */
function textOf(v) {
  const parts = [];
  const walk = (x) => {
    if (typeof x === 'string') parts.push(x);
    else if (Array.isArray(x)) x.forEach(walk);
    else if (x && typeof x === 'object') {
      for (const [k, val] of Object.entries(x)) if (k !== 'type' && k !== 'role' && k !== 'cache_control' && k !== 'id' && k !== 'tool_use_id') walk(val);
    }
  };
  walk(v);
  return parts.join('\n');
}

function countTokens(system, messages) {
  return Math.ceil((textOf(system ?? '').length + textOf(messages ?? []).length) / 4);
}

const stats = {};
function statsFor(label) {
  return (stats[label] ??= {
    requests: 0,
    inputTokens: 0,
    outputTokens: 0,
    maxRequestTokens: 0,
    byKind: {},
    tokensByKind: {},
    observationsAnswered: 0,
    summariesAnswered: 0,
    tracesSeen: new Set(),
    tracesAnsweredTwice: 0,
  });
}

function record(label, tokens, r) {
  const s = statsFor(label);
  s.requests++;
  s.inputTokens += tokens;
  s.outputTokens += Math.ceil(r.text.length / 4);
  s.maxRequestTokens = Math.max(s.maxRequestTokens, tokens);
  s.byKind[r.kind] = (s.byKind[r.kind] ?? 0) + 1;
  s.tokensByKind[r.kind] = (s.tokensByKind[r.kind] ?? 0) + tokens;
  if (r.kind === 'observation') {
    s.observationsAnswered += r.ids.length;
    for (const id of r.ids) {
      if (s.tracesSeen.has(id)) s.tracesAnsweredTwice++;
      s.tracesSeen.add(id);
    }
  }
  if (r.kind === 'summary') s.summariesAnswered++;
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function json(res, status, body) {
  const b = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(b) });
  res.end(b);
}

let seq = 0;

function openai(label, body, res) {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const r = respond(textOf(lastUser?.content ?? ''));
  const tokens = countTokens(undefined, messages);
  record(label, tokens, r);
  const out = Math.ceil(r.text.length / 4);
  const id = `chatcmpl-fake${++seq}`;
  if (body.stream) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', model: body.model, choices: [{ index: 0, delta: { role: 'assistant', content: r.text }, finish_reason: null }] })}\n\n`);
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', model: body.model, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: tokens, completion_tokens: out, total_tokens: tokens + out } })}\n\n`);
    res.end('data: [DONE]\n\n');
    return;
  }
  json(res, 200, {
    id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: body.model ?? 'fake',
    choices: [{ index: 0, message: { role: 'assistant', content: r.text }, finish_reason: 'stop' }],
    usage: { prompt_tokens: tokens, completion_tokens: out, total_tokens: tokens + out },
  });
}

function anthropic(label, body, res) {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const r = respond(textOf(lastUser?.content ?? ''));
  const tokens = countTokens(body.system, messages);
  record(label, tokens, r);
  const out = Math.ceil(r.text.length / 4);
  const id = `msg_fake${++seq}`;
  const usage = { input_tokens: tokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  if (!body.stream) {
    json(res, 200, { id, type: 'message', role: 'assistant', model: body.model, content: [{ type: 'text', text: r.text }], stop_reason: 'end_turn', stop_sequence: null, usage: { ...usage, output_tokens: out } });
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const ev = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  ev('message_start', { message: { id, type: 'message', role: 'assistant', model: body.model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } });
  ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
  ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: r.text } });
  ev('content_block_stop', { index: 0 });
  ev('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: out } });
  ev('message_stop', {});
  res.end();
}

const server = http.createServer(async (req, res) => {
  try {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/__stats') {
      const out = {};
      for (const [k, s] of Object.entries(stats)) out[k] = { ...s, tracesSeen: s.tracesSeen.size };
      return json(res, 200, out);
    }
    if (url.pathname === '/__reset') {
      for (const k of Object.keys(stats)) delete stats[k];
      return json(res, 200, { ok: true });
    }
    const m = /^\/([a-z]+)(\/.*)$/.exec(url.pathname);
    const label = m ? m[1] : 'default';
    const rest = m ? m[2] : url.pathname;
    if (req.method === 'GET' && /\/models$/.test(rest)) return json(res, 200, { data: [{ id: 'fake-model', type: 'model', object: 'model' }], has_more: false });
    if (req.method !== 'POST') return json(res, 404, { error: { message: `fake: no route ${req.method} ${url.pathname}` } });
    const raw = await readBody(req);
    let body;
    try {
      body = JSON.parse(raw);
    } catch {
      return json(res, 400, { error: { type: 'invalid_request_error', message: 'body is not JSON' } });
    }
    if (/\/chat\/completions$/.test(rest)) return openai(label, body, res);
    if (/\/messages\/count_tokens$/.test(rest)) return json(res, 200, { input_tokens: countTokens(body.system, body.messages) });
    if (/\/messages$/.test(rest)) return anthropic(label, body, res);
    return json(res, 404, { error: { type: 'not_found_error', message: `fake: no route ${url.pathname}` } });
  } catch (e) {
    if (!res.headersSent) json(res, 500, { error: { type: 'api_error', message: String(e) } });
    else res.destroy();
  }
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`fake models listening on http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
