// Privacy by construction, end to end: seeded random Unicode (with every kind of character whose
// case mapping changes length), <private> blocks in any case and secrets go through every ingest
// path of a real worker (HTTP prompt, observation, summary, complete, save and retire routes with
// every field a client sends, the hook CLI, import with its ids, hashes, branches and citations, MCP
// save_memory) with the fake Anthropic server as the compression model (its replies carry private
// blocks and keys too). Then every file in the data dir (snapshot, journal, spool, logs), the fake
// model's received requests and the replies are searched: no private text or secret survives.
// Needs `npm run build`.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { plainFiles } from '../helpers/dataFiles';
import { privateText } from '../helpers/privateText';
import { startFakeAnthropic, text, type FakeAnthropic } from '../helpers/fakeAnthropic';
import { CLI_JS, startWorker, tempDir, until, type RunningWorker } from '../helpers/worker';

const { forbidden, alnum, visible, privateMark, secret, messy, idMessy } = privateText(3939);

let w: RunningWorker;
let fake: FakeAnthropic;
const cwd = tempDir('cmem-privingest-');

function runHook(event: string, input: unknown): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_JS, 'hook', 'claude-code', event], {
      env: { ...process.env, CLAUDE_MEM_DATA_DIR: w.dataDir, CLAUDE_MEM_WORKER_PORT: String(w.port) },
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    child.on('error', reject);
    child.on('close', resolve);
    child.stdin.end(JSON.stringify(input));
  });
}

/** Every file under dir, read as text (binary files too: SQLite keeps strings as UTF-8), lower-cased. */
/** Every file of the data dir as lower-case text, compressed and packed files read inflated (dataFiles.ts). */
function allFiles(dir: string): { file: string; text: string }[] {
  return plainFiles(dir).map((f) => ({ file: f.file, text: f.bytes.toString('latin1').toLowerCase() }));
}

/** The model's reply: an observation and a summary, each with a private block and a key of its own. */
function modelReply(): string {
  const mark = privateMark();
  const key = secret();
  return [
    `<observation><type>discovery</type><title>Model title ${visible(4)}</title><narrative>Seen <private>${mark}</private> and ${key}.</narrative><facts><fact>fact ${visible(3)}</fact></facts></observation>`,
    `<summary><request>asked</request><investigated>looked</investigated><learned>learned ${key}</learned><completed>done <private>${mark}</private></completed><next_steps>none</next_steps><notes>n</notes></summary>`,
  ].join('\n');
}

const replies: string[] = [];
const rounds = 4;

before(async () => {
  fake = await startFakeAnthropic(() => text(modelReply()));
  const dataDir = tempDir('cmem-privingest-data-');
  fs.writeFileSync(
    path.join(dataDir, 'settings.json'),
    JSON.stringify({ modelObservations: 'every', agentRetryBaseMs: 100, agentRetryMaxMs: 400, agentMaxAttempts: 2, agentTimeoutMs: 5000, dailyTokenBudget: 0, batchMaxAgeMs: 0, batchMaxUses: 1 }),
  );
  w = await startWorker({ dataDir, env: { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.url, CLAUDE_MEM_EMBEDDINGS: 'off' } });
});

after(async () => {
  await w?.stop();
  await fake?.close();
});

describe('nothing private or secret survives any ingest path (seeded property test)', () => {
  it(`${rounds} rounds of random Unicode, tags and secrets through every path`, async () => {
    const ok = (r: { status: number; body: unknown }, what: string) => {
      assert.ok(r.status < 300, `${what}: ${r.status} ${JSON.stringify(r.body).slice(0, 300)}`);
      replies.push(JSON.stringify(r.body));
    };
    for (let n = 0; n < rounds; n++) {
      const sid = `sess-${n}-${idMessy()}`;
      const project = `proj${n}`;
      // HTTP: prompt, tool uses (every field), summary, end.
      ok(await w.req('POST', '/api/sessions/init', { contentSessionId: sid, project, cwd: `${cwd}/${messy()}`, prompt: messy() }), 'init');
      ok(
        await w.req('POST', '/api/sessions/observations', {
          contentSessionId: sid,
          project,
          cwd,
          tool_name: `mcp__x__ghp_${(() => {
            const c = alnum(36);
            forbidden.push(c);
            return c;
          })()}`,
          tool_use_id: `tu-${n}-${idMessy()}`,
          tool_input: { query: messy(), [`k${messy()}`]: messy() },
          tool_response: messy(),
          citations: { branch: `feat/${idMessy()}`, bases: [secret(true)], files: [{ path: `src/${messy()}.ts`, blob: null, gone: true }] },
        }),
        'observation (mcp tool)',
      );
      // Secret files by tool kind: Gemini read_file, a shell that prints ~/.pgpass, a patch to .env.
      const plainSecret = () => {
        const s = `zqplain${alnum(12, 'abcdefghijklmnopqrstuvwxyz')}`;
        forbidden.push(s);
        return s;
      };
      ok(await w.req('POST', '/api/sessions/observations', { contentSessionId: sid, project, cwd, platform: 'gemini-cli', tool_name: 'read_file', tool_use_id: `r-${n}`, tool_input: { absolute_path: `${cwd}/.env` }, tool_response: `HELLO ${plainSecret()}` }), 'read_file');
      ok(await w.req('POST', '/api/sessions/observations', { contentSessionId: sid, project, cwd, tool_name: 'Bash', tool_use_id: `b-${n}`, tool_input: { command: 'cat ~/.pgpass' }, tool_response: { stdout: `db:5432:app:app:${plainSecret()}` } }), 'cat ~/.pgpass');
      ok(
        await w.req('POST', '/api/sessions/observations', {
          contentSessionId: sid,
          project,
          cwd,
          platform: 'codex',
          tool_name: 'apply_patch',
          tool_use_id: `p-${n}`,
          tool_input: { input: `*** Begin Patch\n*** Add File: .env\n+TOKEN_NOTE ${plainSecret()}\n*** End Patch` },
          tool_response: 'Success',
        }),
        'apply_patch .env',
      );
      ok(await w.req('POST', '/api/sessions/summarize', { contentSessionId: sid, project, last_user_message: messy(), last_assistant_message: messy() }), 'summarize');
      ok(await w.req('POST', '/api/sessions/complete', { contentSessionId: sid, project, reason: idMessy() }), 'complete');
      // A saved memory, then its retire note (echoed back in the reply).
      const saved = await w.req('POST', '/api/memory/save', { text: `keep ${messy()}`, title: idMessy(), project });
      ok(saved, 'save');
      ok(await w.req('POST', '/api/freshness/retire', { id: (saved.body as { id: number }).id, note: messy() }), 'retire');
      // The hook CLI (spool or HTTP, as it chooses).
      const hsid = `hook-${n}-${alnum(6)}`;
      assert.equal(await runHook('session-init', { session_id: hsid, hook_event_name: 'UserPromptSubmit', cwd, prompt: messy() }), 0);
      assert.equal(
        await runHook('observation', {
          session_id: hsid,
          hook_event_name: 'PostToolUse',
          cwd,
          tool_name: 'Grep',
          tool_use_id: `hg-${n}`,
          tool_input: { pattern: messy() },
          tool_response: { mode: 'content', content: `src/a.ts:1:${messy()}\n.env:2:NOTE ${plainSecret()}` },
        }),
        0,
      );
      // An import whose ids, hashes, branches, citations and notes carry the same.
      const imp = await w.req('POST', '/api/import', {
        format: 'claude-mem-vscode/export',
        version: 1,
        sessions: [
          {
            platform: 'import',
            contentSessionId: `imp-${n}-${idMessy()}`,
            project: `imp${n}`,
            cwd: null,
            status: 'completed',
            promptCounter: 1,
            startedAt: 1,
            updatedAt: 1,
            completedAt: null,
            completionReason: null,
            git: { branch: `b/${idMessy()}`, commit: null, bases: [`<private>${privateMark()}</private>main`] },
            prompts: [{ promptNumber: 1, text: messy(), createdAt: 1 }],
            observations: [
              {
                type: 'discovery',
                title: messy(),
                subtitle: null,
                facts: [messy()],
                narrative: messy(),
                concepts: [],
                filesRead: [],
                filesModified: [],
                toolName: `mcp__y__${secret(true)}`,
                promptNumber: 1,
                contentHash: `h-${n}-<private>${privateMark()}</private>`,
                source: 'import',
                inputTokens: 0,
                outputTokens: 0,
                discoveryTokens: 0,
                createdAt: 1,
                citations: [{ path: `src/<private>${privateMark()}</private>x.ts`, blob: null, tracked: false, commit: null, branch: `<private>${privateMark()}</private>`, citedAt: 1, state: 'deleted', currentBlob: null, changedAt: null, changedBranch: secret(true), movedFrom: null }],
                state: { status: 'retired', note: messy(), at: 1, replacedBy: null },
              },
            ],
            summaries: [],
          },
        ],
      });
      ok(imp, 'import');
    }
    // MCP save_memory.
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI_JS, 'mcp'], env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CLAUDE_MEM_DATA_DIR: w.dataDir, CLAUDE_MEM_WORKER_PORT: String(w.port) }, cwd, stderr: 'pipe' });
    const client = new Client({ name: 'privacy-test', version: '0.0.0' });
    await client.connect(transport);
    try {
      for (let n = 0; n < 2; n++) {
        const r = (await client.callTool({ name: 'save_memory', arguments: { text: `mcp ${messy()}`, title: idMessy() } })) as { content: { text?: string }[] };
        replies.push(JSON.stringify(r));
      }
    } finally {
      await client.close();
    }

    // Everything compressed by the model, then written out.
    await until(async () => (await w.req('GET', '/api/health')).body.queueDepth === 0, 180_000, 'the queue to drain');
    assert.ok(fake.requests.some((r) => r.path === '/v1/messages'), 'the model was asked');
    const obs = await w.req('GET', '/api/observations?limit=1000');
    assert.ok((obs.body.items as { source: string }[]).some((o) => o.source === 'anthropic'), 'the model\'s replies were stored');
    replies.push(JSON.stringify(obs.body), JSON.stringify((await w.req('GET', '/api/export')).body));
    await w.req('POST', '/api/admin/snapshot');

    const files = allFiles(w.dataDir);
    assert.ok(files.some((f) => f.file.startsWith('db/')) && files.some((f) => f.file.startsWith('logs/')), files.map((f) => f.file).join(', '));
    const sent = fake.requests.map((r) => r.rawBody.toLowerCase());
    const found: string[] = [];
    for (const needle of forbidden) {
      const lc = needle.toLowerCase();
      for (const f of files) if (f.text.includes(lc)) found.push(`${needle} in ${f.file}`);
      sent.forEach((s, i) => s.includes(lc) && found.push(`${needle} sent to the model (request ${i})`));
      replies.forEach((s, i) => {
        const at = s.toLowerCase().indexOf(lc);
        if (at >= 0) found.push(`${needle} in reply ${i}: …${s.slice(Math.max(0, at - 120), at + 40)}…`);
      });
    }
    assert.deepEqual(found, [], `${found.length} leaks of ${forbidden.length} forbidden strings`);
    // The test would see a leak: the visible text did arrive.
    assert.ok(files.some((f) => f.text.includes('keep ')) && sent.length > 0);
  });
});
