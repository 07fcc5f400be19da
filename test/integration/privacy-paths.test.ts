// Privacy on every ingest path, against the real worker and the real hook CLI: nested private
// blocks, blocks that span fields, tags in keys, cwd, reasons and import fields, and secrets
// (a Claude Code Read of .env, tokens in tool output, prompts, summaries, saved memories and
// imports). Every check ends with a grep of the whole data dir: what is not there cannot leak.
// Needs `npm run build`.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CLI_JS, readIfPresent, startWorker, tempDir, until, type RunningWorker } from '../helpers/worker';

let w: RunningWorker;
const cwd = tempDir('cmem-privproj-');
const project = path.basename(cwd);

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

/** Every file under the data dir that holds needle (journal, snapshots, logs, vectors…). */
function filesHolding(needle: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (readIfPresent(p)?.includes(needle)) found.push(path.relative(w.dataDir, p));
    }
  };
  walk(w.dataDir);
  return found;
}

async function settled(): Promise<void> {
  await until(async () => {
    const q = (await w.req('GET', '/api/queue')).body as { pending: number; inFlight: number };
    return q.pending === 0 && q.inFlight === 0;
  }, 20_000, 'an empty queue');
  await w.req('POST', '/api/admin/snapshot');
}

const hits = async (query: string): Promise<number> => ((await w.req('GET', `/api/search?query=${encodeURIComponent(query)}&mode=keyword`)).body.items as unknown[]).length;

before(async () => {
  w = await startWorker({ env: { CLAUDE_MEM_EMBEDDINGS: 'off', CLAUDE_MEM_PROVIDER: 'local' } });
});

after(async () => {
  await w?.stop();
});

describe('privacy on every path', () => {
  it('item 7: a Claude Code Read of .env through the hook CLI stores no secret', async () => {
    const content = 'AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY\nDEBUG=true\n';
    const code = await runHook('observation', {
      session_id: 'priv-read',
      hook_event_name: 'PostToolUse',
      cwd,
      tool_name: 'Read',
      tool_input: { file_path: path.join(cwd, '.env') },
      tool_response: { type: 'text', file: { filePath: path.join(cwd, '.env'), content, numLines: 3, startLine: 1, totalLines: 3 } },
    });
    assert.equal(code, 0);
    const items = await until(async () => {
      const r = (await w.req('GET', `/api/observations?project=${project}&limit=50`)).body.items as { title: string; narrative: string | null }[];
      return r.length > 0 ? r : undefined;
    }, 20_000, 'the Read observation');
    await settled();
    assert.equal(await hits('AKIAIOSFODNN7EXAMPLE'), 0, 'search finds the access key');
    assert.deepEqual(filesHolding('AKIAIOSFODNN7EXAMPLE'), [], 'the access key is on disk');
    assert.deepEqual(filesHolding('wJalrXUtnFEMIK7MDENG'), [], 'the secret key is on disk');
    assert.match(JSON.stringify(items), /redacted/, 'the stored text shows a redaction marker');
  });

  it('item 7: tokens from any client, in prompts, summaries, saved memories and imports, are redacted', async () => {
    const secrets = {
      gh: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
      ant: 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123',
      oai: 'sk-proj-AbCdEfGhIjKlMnOpQrStUvWx0123456789',
      slack: 'xoxb-1234567890-abcdefghijKLMN',
      jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
      gl: 'glpat-AbCdEfGhIjKlMnOpQrSt',
      pem: 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7',
      urlpw: 'hunter2pw99',
      envval: 'Zq8xWv3PqLmN5tRy',
    };
    const blob = [
      `export GITHUB_TOKEN=${secrets.gh}`,
      `ANTHROPIC_API_KEY=${secrets.ant}`,
      `openai key ${secrets.oai}`,
      `slack ${secrets.slack}`,
      `Authorization: Bearer ${secrets.jwt}`,
      `gitlab ${secrets.gl}`,
      `-----BEGIN PRIVATE KEY-----\n${secrets.pem}\n-----END PRIVATE KEY-----`,
      `DATABASE_URL=postgres://app:${secrets.urlpw}@db.internal:5432/app`,
      `SESSION_SIGNING=${secrets.envval}`,
    ].join('\n');
    // An agent hook from another platform, straight to the route.
    const obs = await w.req('POST', '/api/sessions/observations', { contentSessionId: 'priv-any', platform: 'copilot', cwd, tool_name: 'run_in_terminal', tool_input: { command: 'cat config.txt' }, tool_response: blob });
    assert.equal(obs.status, 202);
    assert.equal((await w.req('POST', '/api/sessions/init', { contentSessionId: 'priv-any', platform: 'copilot', cwd, prompt: `use this key ${secrets.ant} please` })).status, 200);
    assert.equal((await w.req('POST', '/api/sessions/summarize', { contentSessionId: 'priv-any', platform: 'copilot', cwd, last_user_message: blob, last_assistant_message: `done with ${secrets.gh}` })).status, 202);
    const saved = await w.req('POST', '/api/memory/save', { project, title: `token ${secrets.slack}`, text: `the deploy token is ${secrets.gl}` });
    assert.equal(saved.status, 201);
    const imported = await w.req('POST', '/api/import', importDoc({ narrative: blob, concepts: [secrets.jwt], filesRead: [`https://u:${secrets.urlpw}@x.example/f`], toolName: secrets.oai }));
    assert.equal(imported.status, 200, JSON.stringify(imported.body));
    await settled();
    for (const [name, s] of Object.entries(secrets)) {
      assert.deepEqual(filesHolding(s), [], `${name} is on disk`);
      assert.equal(await hits(s.slice(0, 24).replace(/[^A-Za-z0-9]/g, ' ')), 0, `search finds ${name}`);
    }
  });

  it('item 5: nested private blocks hide everything inside, in prompts, titles and tool fields', async () => {
    const nested = 'a <private>x <private>y</private> NESTSECRETA</private> b';
    await w.req('POST', '/api/sessions/init', { contentSessionId: 'priv-nest', cwd, prompt: nested });
    await w.req('POST', '/api/memory/save', { project, title: 'T <private>1 <private>2</private> NESTSECRETB</private> end', text: `note ${nested.replace('NESTSECRETA', 'NESTSECRETC')}` });
    await w.req('POST', '/api/sessions/observations', { contentSessionId: 'priv-nest', cwd, tool_name: 'Bash', tool_input: { command: nested.replace('NESTSECRETA', 'NESTSECRETD') }, tool_response: 'ok' });
    await settled();
    for (const s of ['NESTSECRETA', 'NESTSECRETB', 'NESTSECRETC', 'NESTSECRETD']) {
      assert.deepEqual(filesHolding(s), [], `${s} is on disk`);
      assert.equal(await hits(s), 0, s);
    }
  });

  it('item 6: the hook CLI strips before it cuts, so the tail of a block cut in two is not kept', async () => {
    const big = `${'h'.repeat(70_000)}<private>${'p'.repeat(30_000)} CUTSECRET </private> visible-end`;
    await runHook('observation', { session_id: 'priv-cut', hook_event_name: 'PostToolUse', cwd, tool_name: 'Bash', tool_input: { command: 'make' }, tool_response: big });
    await until(async () => (await w.req('GET', '/api/sessions?project=' + project)).body.items.some((s: { contentSessionId?: string; content_session_id?: string }) => (s.contentSessionId ?? s.content_session_id) === 'priv-cut'), 20_000, 'the session');
    await settled();
    assert.deepEqual(filesHolding('CUTSECRET'), []);
  });

  it('item 8: tags in object keys, cwd, completion reasons, tool names and across fields', async () => {
    const r = await w.req('POST', '/api/sessions/observations', {
      contentSessionId: 'priv-keys',
      cwd: path.join(cwd, '<private>CWDSECRET</private>'),
      tool_name: 'Edit<private>TOOLSECRET</private>',
      tool_input: { '<private>KEYSECRET</private>': 'KEYVALSECRET', file_path: 'a.ts', old_string: 'start <private> SPANSECRETA', new_string: 'SPANSECRETB </private> after' },
      tool_response: 'ok',
    });
    assert.equal(r.status, 202, JSON.stringify(r.body));
    await w.req('POST', '/api/sessions/complete', { contentSessionId: 'priv-keys', cwd, reason: 'exit <private>REASONSECRET</private>' });
    const doc = importDoc({ narrative: 'n', concepts: ['<private>CONCEPTSECRET</private>x'], filesRead: ['<private>FILESECRET</private>f.ts'], toolName: '<private>IMPTOOLSECRET</private>Read' });
    doc.sessions[0].cwd = '/w/<private>IMPCWDSECRET</private>';
    doc.sessions[0].completionReason = '<private>IMPREASONSECRET</private>';
    doc.sessions[0].contentSessionId = 'imp-2';
    doc.sessions[0].observations[0].contentHash = 'h2';
    assert.equal((await w.req('POST', '/api/import', doc)).status, 200);
    await settled();
    for (const s of ['CWDSECRET', 'TOOLSECRET', 'KEYSECRET', 'KEYVALSECRET', 'SPANSECRETA', 'SPANSECRETB', 'REASONSECRET', 'CONCEPTSECRET', 'FILESECRET', 'IMPTOOLSECRET', 'IMPCWDSECRET', 'IMPREASONSECRET']) {
      assert.deepEqual(filesHolding(s), [], `${s} is on disk`);
    }
  });
});

function importDoc(o: { narrative: string; concepts: string[]; filesRead: string[]; toolName: string }) {
  const now = Date.now();
  return {
    format: 'claude-mem-vscode/export',
    version: 1,
    exportedAt: new Date().toISOString(),
    project,
    sessions: [
      {
        platform: 'import-test',
        contentSessionId: 'imp-1',
        project,
        cwd: cwd as string | null,
        status: 'completed',
        promptCounter: 1,
        startedAt: now,
        updatedAt: now,
        completedAt: now,
        completionReason: 'done' as string | null,
        prompts: [{ promptNumber: 1, text: o.narrative, createdAt: now }],
        observations: [
          {
            type: 'discovery',
            title: 'imported',
            subtitle: null,
            facts: [o.narrative],
            narrative: o.narrative,
            concepts: o.concepts,
            filesRead: o.filesRead,
            filesModified: [],
            toolName: o.toolName,
            promptNumber: 1,
            contentHash: 'h1',
            source: 'import',
            inputTokens: 0,
            outputTokens: 0,
            discoveryTokens: 0,
            createdAt: now,
          },
        ],
        summaries: [],
      },
    ],
  };
}
