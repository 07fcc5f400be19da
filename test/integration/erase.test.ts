// Deleting erases. After deleting an observation, a session and a project, their
// text is gone from every file in the data dir within the stated bound (compactAfterDeleteMs plus
// two snapshots), while everything else stays and any one file can still be damaged without loss.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { it } from 'node:test';
import { plainFiles } from '../helpers/dataFiles';
import { startWorker, tempDir, until, type RunningWorker } from '../helpers/worker';

const TOKENS = { observation: 'zebraquokka7731', session: 'lemurfox4412', project: 'narwhalotter9981' };
const KEEP = 'keepsakeowl5150';

/** Every file under dir that contains one of the words (read inflated: dataFiles.ts), as "file: word". */
function grep(dir: string, words: string[]): string[] {
  const hits: string[] = [];
  for (const f of plainFiles(dir)) for (const w of words) if (f.bytes.includes(w)) hits.push(`${f.file}: ${w}`);
  return hits;
}

it('deleted text leaves the live database, the snapshots and the journals within the stated bound', async () => {
  const dataDir = tempDir();
  const env = { CLAUDE_MEM_COMPACT_AFTER_DELETE_MS: '1000', CLAUDE_MEM_EMBEDDINGS: 'off' };
  let w: RunningWorker = await startWorker({ dataDir, env });
  const save = async (text: string, project: string) => {
    const r = await w.req('POST', '/api/memory/save', { text, project });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    return r.body.id as number;
  };
  const doomed = await save(`a plan about ${TOKENS.observation} that must go`, 'erase');
  await save(`a memory to keep: ${KEEP}`, 'erase');
  await save(`the whole project ${TOKENS.project} goes`, TOKENS.project);
  const init = await w.req('POST', '/api/sessions/init', { contentSessionId: 'erase-s1', project: 'erase', prompt: `please remember ${TOKENS.session}` });
  assert.equal(init.status, 200, JSON.stringify(init.body));
  const sessionId = init.body.sessionDbId as number;
  // Two runs: the words are in snapshots and journals on disk before the deletes.
  await w.stop();
  w = await startWorker({ dataDir, env });
  assert.equal(grep(dataDir, Object.values(TOKENS)).length > 0, true);

  assert.equal((await w.req('DELETE', `/api/observation/${doomed}`)).status, 200);
  assert.equal((await w.req('DELETE', `/api/session/${sessionId}`)).status, 200);
  assert.equal((await w.req('DELETE', `/api/projects/${TOKENS.project}`)).status, 200);
  const t0 = Date.now();
  let left: string[] = [];
  await until(() => (left = grep(dataDir, Object.values(TOKENS))).length === 0, 30_000, 'deleted text to leave the files').catch((e: Error) => {
    throw new Error(`${e.message}: ${left.join(', ')}`);
  });
  const ms = Date.now() - t0;
  console.log(`# deleted text left every file in ${ms} ms (bound: compactAfterDeleteMs 1000 + two snapshots)`);
  // Kept data is intact, and the files still rebuild it with any one of them damaged (two snapshots).
  assert.ok(grep(dataDir, [KEEP]).length > 0);
  const snaps = fs.readdirSync(path.join(dataDir, 'db')).filter((n) => n.startsWith('snapshot-'));
  assert.equal(snaps.length, 2, snaps.join(' '));
  await w.stop();
  assert.deepEqual(grep(dataDir, Object.values(TOKENS)), [], 'nothing came back with the final snapshot');
  w = await startWorker({ dataDir, env });
  try {
    const items = (await w.req('GET', '/api/observations?project=erase&limit=100')).body.items as { narrative: string }[];
    assert.deepEqual(items.map((o) => o.narrative), [`a memory to keep: ${KEEP}`]);
    assert.equal((await w.req('GET', `/api/search?query=${TOKENS.observation}`)).body.items?.length ?? 0, 0);
  } finally {
    await w.stop();
  }
});

it('a compaction due when the worker stops runs after the next start (a stop does not compact)', async () => {
  const dataDir = tempDir();
  const word = 'pangolinwren6602';
  // A long delay: the compaction cannot run before the stop.
  let w: RunningWorker = await startWorker({ dataDir, env: { CLAUDE_MEM_COMPACT_AFTER_DELETE_MS: '600000', CLAUDE_MEM_EMBEDDINGS: 'off' } });
  const doomed = (await w.req('POST', '/api/memory/save', { text: `a note about ${word}`, project: 'erase-stop' })).body.id as number;
  await w.req('POST', '/api/memory/save', { text: `a memory to keep: ${KEEP}`, project: 'erase-stop' });
  assert.equal((await w.req('POST', '/api/admin/snapshot', {})).status, 200);
  assert.equal((await w.req('DELETE', `/api/observation/${doomed}`)).status, 200);
  // A checkpoint after the delete: the next start replays no erase, only the mark says a compaction is due.
  assert.equal((await w.req('POST', '/api/admin/snapshot', {})).status, 200);
  await w.stop();
  assert.ok(fs.existsSync(path.join(dataDir, 'db', 'compact-due')), 'the due compaction is kept in db/compact-due');
  assert.ok(grep(dataDir, [word]).length > 0, 'the stop did not compact');
  w = await startWorker({ dataDir, env: { CLAUDE_MEM_COMPACT_AFTER_DELETE_MS: '1000', CLAUDE_MEM_EMBEDDINGS: 'off' } });
  try {
    await until(() => grep(dataDir, [word]).length === 0, 30_000, 'deleted text to leave the files after the restart');
    await until(() => !fs.existsSync(path.join(dataDir, 'db', 'compact-due')), 5_000, 'the mark to go once compacted');
    const items = (await w.req('GET', '/api/observations?project=erase-stop&limit=10')).body.items as { narrative: string }[];
    assert.deepEqual(items.map((o) => o.narrative), [`a memory to keep: ${KEEP}`]);
  } finally {
    await w.stop();
  }
});
