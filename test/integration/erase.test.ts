// Deleting erases. After deleting an observation, a session and a project, their
// text is gone from every file in the data dir within the stated bound (compactAfterDeleteMs plus
// two snapshots), while everything else stays and any one file can still be damaged without loss.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { it } from 'node:test';
import { JOURNAL_MAGIC, thawToMemory, unpackToMemory } from '../../worker/store/coldSnapshot';
import { deltaLoc, readDeltaHeader } from '../../worker/store/delta';
import { FileRef, PAGED_CHUNK, readLocSync } from '../../worker/store/pagedFile';
import { snapshotBytesOf } from '../../worker/store/snapshot';
import { readIfPresent, startWorker, tempDir, until, type RunningWorker } from '../helpers/worker';

const TOKENS = { observation: 'zebraquokka7731', session: 'lemurfox4412', project: 'narwhalotter9981' };
const KEEP = 'keepsakeowl5150';

function thawIfPresent(dir: string, gen: number, journal = false): Buffer | undefined {
  try {
    return journal ? unpackToMemory(path.join(dir, `journal-${String(gen).padStart(10, '0')}.logz`), JOURNAL_MAGIC) : thawToMemory(dir, gen);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** A packed snapshot's or delta's bytes inflated (with its raw header bytes, so nothing is hidden); other files as read. */
function unpackedIfPacked(file: string, b: Buffer | undefined): Buffer | undefined {
  const magic = b?.subarray(0, 8).toString('latin1');
  if (!b || (magic !== 'CMEMSNP3' && magic !== 'CMEMDLT2')) return b;
  if (magic === 'CMEMSNP3') return Buffer.concat([b, snapshotBytesOf(b)]);
  // Read from a copy of the bytes read (the file may be renamed meanwhile).
  const copy = path.join(tempDir('erase-delta-'), path.basename(file));
  fs.writeFileSync(copy, b);
  const fd = fs.openSync(copy, 'r');
  try {
    const ref = new FileRef(copy, fd);
    const chunks = readDeltaHeader(fd).entries.map((e, i) => {
      const into = Buffer.alloc(PAGED_CHUNK);
      readLocSync(deltaLoc(ref, e), into, i);
      return into;
    });
    return Buffer.concat([b, ...chunks]);
  } finally {
    fs.closeSync(fd);
  }
}

/** Every file under dir that contains one of the words, as "file: word". */
function grep(dir: string, words: string[]): string[] {
  const hits: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else {
        // A temp file the worker renames while this walks (a snapshot being written) is read under its final name.
        // A compressed older snapshot or journal segment is read inflated: compression must not hide deleted text from this check.
        const m = /^(snapshot|journal)-(\d+)\.(dbz|logz)$/.exec(e.name);
        // A packed snapshot or delta (worker/store/packChain.ts) is read inflated too.
        const b = m ? thawIfPresent(d, Number(m[2]), m[1] === 'journal') : unpackedIfPacked(p, readIfPresent(p));
        for (const w of words) if (b?.includes(w)) hits.push(`${path.relative(dir, p)}: ${w}`);
      }
    }
  };
  walk(dir);
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
