// Pieces of the hook CLI that need no worker: input decoding, bounding of huge fields, the transcript
// reader, the file-context rows and their once-per-session memory, and the context body.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { contextText } from '../../cli/hooks/handlers/context';
import { formatFileHistory, historyReply, historyRows } from '../../cli/hooks/handlers/file-context';
import { claim, forgetSession } from '../../cli/hooks/fileContextState';
import { parseHookInput } from '../../cli/hooks/io';
import { boundField, shrinkDeep } from '../../cli/hooks/shrink';
import { lastMessages } from '../../cli/hooks/transcript';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'cli-hooks-'));

describe('parseHookInput', () => {
  it('takes a JSON object, with or without a BOM', () => {
    assert.deepEqual(parseHookInput(Buffer.from('{"a":1}')).input, { a: 1 });
    assert.deepEqual(parseHookInput(Buffer.from('\uFEFF{"a":1}')).input, { a: 1 });
  });
  it('turns invalid UTF-8 into U+FFFD', () => {
    const raw = Buffer.concat([Buffer.from('{"p":"a'), Buffer.from([0xff, 0xfe]), Buffer.from('b"}')]);
    assert.equal(parseHookInput(raw).input.p, 'a\uFFFD\uFFFDb');
  });
  it('reports empty, non-JSON and non-object input, giving {}', () => {
    for (const [s, re] of [['', /empty/], [' \n', /empty/], ['nope', /not JSON/], ['[1]', /not an object/], ['null', /not an object/]] as const) {
      const r = parseHookInput(Buffer.from(s));
      assert.deepEqual(r.input, {});
      assert.match(r.problem ?? '', re);
    }
  });
});

describe('bounding tool fields', () => {
  it('caps long strings keeping head and tail, and leaves structure valid JSON', () => {
    const v = shrinkDeep({ file: { content: 'A' + 'x'.repeat(10_000) + 'Z' }, n: 3 }, 1000) as { file: { content: string }; n: number };
    assert.ok(v.file.content.length <= 1000);
    assert.ok(v.file.content.startsWith('A') && v.file.content.endsWith('Z'));
    assert.match(v.file.content, /elided/);
    assert.equal(v.n, 3);
  });
  it('bounds long arrays and deep nesting', () => {
    const arr = shrinkDeep(Array.from({ length: 5000 }, (_, i) => i), 100) as unknown[];
    assert.equal(arr.length, 1001);
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100; i++) deep = { d: deep };
    assert.match(JSON.stringify(shrinkDeep(deep, 100)), /nested too deep/);
  });
  it('falls back to capped JSON text when many strings together are still too big', () => {
    const many = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, 'y'.repeat(900)]));
    const out = boundField(many, 1000, 10_000);
    assert.equal(typeof out, 'string');
    assert.ok((out as string).length <= 10_000);
    assert.equal(boundField(undefined, 10, 10), undefined);
    assert.equal(boundField('short', 10, 10), 'short');
  });
});

describe('lastMessages (transcript JSONL)', () => {
  const line = (o: unknown) => JSON.stringify(o) + '\n';
  it('finds the last real prompt and the last assistant text, skipping tool results and meta lines', () => {
    const f = path.join(tmp(), 't.jsonl');
    fs.writeFileSync(
      f,
      line({ type: 'user', message: { role: 'user', content: 'first question' } }) +
        line({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'first answer' }] } }) +
        line({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'second question' }] } }) +
        line({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'x', name: 'Read', input: {} }] } }) +
        line({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x', content: 'data' }] } }) +
        line({ type: 'user', isMeta: true, message: { role: 'user', content: 'meta' } }) +
        line({ type: 'user', message: { role: 'user', content: '<command-name>/clear</command-name>' } }) +
        line({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'final answer' }] } }) +
        'not json\n',
    );
    assert.deepEqual(lastMessages(f), { user: 'second question', assistant: 'final answer' });
  });
  it('reads only the tail of a long transcript, across a window boundary', () => {
    const f = path.join(tmp(), 'big.jsonl');
    const filler = line({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'x', name: 'Bash', input: { c: 'z'.repeat(2000) } }] } });
    fs.writeFileSync(f, line({ type: 'user', message: { role: 'user', content: 'the prompt' } }) + filler.repeat(200) + line({ type: 'assistant', message: { role: 'assistant', content: 'done' } }));
    assert.deepEqual(lastMessages(f), { user: 'the prompt', assistant: 'done' });
    assert.deepEqual(lastMessages(f, 64 * 1024), { user: undefined, assistant: 'done' });
  });
  it('never throws on a missing file', () => {
    assert.deepEqual(lastMessages('/no/such/file.jsonl'), {});
  });
});

describe('file context', () => {
  it('reads the by-file rows and formats them inside claude-mem-context', () => {
    // Rows as the worker sends them (common/contract FileHistoryResponse).
    const row = (id: number, type: string, title: string, time: string, action: 'modified' | 'read') => ({
      kind: 'observation', id, ref: String(id), type, title, project: 'p', sessionId: 1, time, epoch: Date.parse(time), readTokens: 10, action, path: 'src/parser.ts',
    });
    const reply = (items: unknown[]) => ({ path: '/p/src/parser.ts', project: 'p', items, limit: 50, offset: 0, hasMore: false });
    const rows = historyRows(
      reply([row(7, 'bugfix', 'Fixed the  parser\n crash', '2025-03-02T10:00:00Z', 'modified'), row(3, 'discovery', 'Read parser', '2025-03-01T09:00:00Z', 'read')]),
    );
    assert.deepEqual(rows.map((r) => r.id), [7, 3]);
    const text = formatFileHistory('src/parser.ts', rows);
    assert.match(text, /^<claude-mem-context>\n/);
    assert.match(text, /<\/claude-mem-context>$/);
    assert.match(text, /2 past observations about src\/parser\.ts/);
    assert.ok(text.indexOf('#3 ') < text.indexOf('#7 '), 'oldest first');
    assert.match(text, /#7 .*\[bugfix\] Fixed the parser crash \(modified\)/);
    // No mtime guess: a memory is marked only by what the check found.
    assert.doesNotMatch(text, /changed since|MAY BE STALE/);
    const marked = formatFileHistory('src/parser.ts', historyRows(reply([{ ...row(7, 'bugfix', 'Fixed it', '2025-03-02T10:00:00Z', 'modified'), freshness: 'stale', staleReason: 'src/parser.ts changed (committed) on main' }, { ...row(3, 'discovery', 'Read parser', '2025-03-01T09:00:00Z', 'read'), branch: 'feature-b', otherBranch: true }])));
    assert.match(marked, /#7 .*\[MAY BE STALE: src\/parser\.ts changed \(committed\) on main\]/);
    assert.match(marked, /#3 .*\[from branch feature-b\]/);
    assert.match(marked, /1 of these may no longer hold/);
    // The hook asks for the rows it shows; a reply with more says so instead of a count it lacks.
    const many = Array.from({ length: 12 }, (_, i) => row(20 + i, 'change', `Edit ${i}`, `2025-03-0${1 + (i % 9)}T10:00:00Z`, 'modified'));
    const h = historyReply({ ...reply(many), limit: 12, hasMore: true });
    assert.equal(h.more, true);
    const capped = formatFileHistory('src/parser.ts', h.rows, h.more);
    assert.match(capped, /Memory has more than 12 past observations about src\/parser\.ts \(the newest 12, oldest first\)/);
    assert.match(capped, /…and older ones/);
    assert.equal(historyReply(reply([])).more, false);
    // A reply off the contract is a bug: named, never guessed at.
    assert.throws(() => historyRows(reply([{ id: 'bad' }])), /GET \/api\/search\/by-file does not match the contract: items\[0\]/);
    assert.throws(() => historyRows([{ id: 1, title: 't' }]), /must be an object/);
    assert.throws(() => historyRows('nope'), /must be an object/);
  });
  it('claims a (file, signature) once per session', () => {
    const d = tmp();
    assert.equal(claim(d, 'sess/1', '/p/a.ts', '1:2:3'), true);
    assert.equal(claim(d, 'sess/1', '/p/a.ts', '1:2:3'), false);
    assert.equal(claim(d, 'sess/1', '/p/a.ts', '1:2:4'), true, 'a new observation or change shows it again');
    assert.equal(claim(d, 'sess-2', '/p/a.ts', '1:2:4'), true, 'another session');
    forgetSession(d, 'sess/1');
    assert.equal(claim(d, 'sess/1', '/p/a.ts', '1:2:4'), true);
  });
  it('drops sessions older than a week when a new session starts, at most once an hour', () => {
    const d = tmp();
    const dir = path.join(d, 'hooks', 'file-context');
    const stale = (name: string) => {
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, name), '{}');
      const old = (Date.now() - 8 * 24 * 3600 * 1000) / 1000;
      fs.utimesSync(path.join(dir, name), old, old);
    };
    stale('gone-1.json');
    assert.equal(claim(d, 'new-1', '/p/a.ts', '1'), true);
    assert.equal(fs.existsSync(path.join(dir, 'gone-1.json')), false, 'pruned at a new session');
    stale('gone-2.json');
    assert.equal(claim(d, 'new-2', '/p/a.ts', '1'), true);
    assert.equal(fs.existsSync(path.join(dir, 'gone-2.json')), true, 'not again within the hour');
    const hourAgo = (Date.now() - 3601 * 1000) / 1000;
    fs.utimesSync(path.join(dir, '.pruned'), hourAgo, hourAgo);
    assert.equal(claim(d, 'new-3', '/p/a.ts', '1'), true);
    assert.equal(fs.existsSync(path.join(dir, 'gone-2.json')), false, 'pruned once the hour is up');
    assert.equal(claim(d, 'new-1', '/p/a.ts', '1'), false, 'live sessions are kept');
  });
});

describe('contextText', () => {
  it('takes markdown text or JSON carrying it', () => {
    assert.equal(contextText('<claude-mem-context>x</claude-mem-context>'), '<claude-mem-context>x</claude-mem-context>');
    const json = { project: 'p', markdown: 'm', tokens: 1, budget: 4000, observations: 0, summaries: 0, truncated: false };
    assert.equal(contextText(json), 'm');
    // Off the contract: no guessing at other keys; the hook logs the error and starts without memory.
    const logged: string[] = [];
    const env = { log: { error: (m: string) => logged.push(m) } } as unknown as Parameters<typeof contextText>[1];
    assert.equal(contextText({ markdown: 'm' }, env), '');
    assert.match(logged[0], /GET \/api\/context\/inject does not match the contract: project must be a string/);
    assert.equal(contextText({ error: 'x' }), '');
    assert.equal(contextText(undefined), '');
  });
});
