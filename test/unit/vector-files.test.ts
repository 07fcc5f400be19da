// The vector files: append-only entries with a checksum each, read only at the
// offsets SQLite names and only when the entry there is the one asked for.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { encodeVector } from '../../worker/search/vectors/blob';
import { entrySize, VectorFiles, type WantedEntry } from '../../worker/search/vectors/files';
import { readEntry } from '../helpers/vectorFiles';
import { tempDir } from '../helpers/worker';

const DIMS = 8;
const vec = (seed: number) => encodeVector(Float32Array.from({ length: DIMS }, (_, i) => Math.sin(seed * 7 + i)));

async function readAll(files: VectorFiles, gen: number, wanted: WantedEntry[]): Promise<(Uint8Array | undefined)[]> {
  const got = new Map<WantedEntry, Uint8Array | undefined>();
  await files.readMany('m', 'proj', gen, wanted, (w, blob) => got.set(w, blob?.slice()));
  return wanted.map((w) => got.get(w));
}

describe('vector files', () => {
  it('appends entries, syncs them and reads each back at its offset, one or many at a time', async () => {
    const files = new VectorFiles(path.join(tempDir('vec-files-'), 'vector-data'));
    const blobs = [vec(1), vec(2), vec(3)];
    const locs = await files.append('m', 'proj', blobs.map((blob, i) => ({ kind: i === 2 ? 'summary' : 'observation', id: 10 + i, blob })));
    assert.deepEqual(locs, [0, 1, 2].map((i) => ({ gen: 1, offset: i * entrySize(DIMS) })));
    const more = await files.append('m', 'proj', [{ kind: 'observation', id: 13, blob: vec(4) }]);
    assert.deepEqual(more, [{ gen: 1, offset: 3 * entrySize(DIMS) }]);
    const wanted: WantedEntry[] = [
      { kind: 'summary', id: 12, dims: DIMS, offset: locs[2].offset },
      { kind: 'observation', id: 10, dims: DIMS, offset: locs[0].offset },
      { kind: 'observation', id: 13, dims: DIMS, offset: more[0].offset },
    ];
    assert.deepEqual(await readAll(files, 1, wanted), [blobs[2], blobs[0], vec(4)]);
    assert.deepEqual(await readEntry(files, 'm', 'proj', 1, wanted[1]), blobs[0]);
    // Another project or model is another file.
    assert.equal(files.list().length, 1);
    await files.append('m2', 'proj', [{ kind: 'observation', id: 10, blob: vec(9) }]);
    await files.append('m', 'other', [{ kind: 'observation', id: 10, blob: vec(9) }]);
    assert.equal(files.list().length, 3);
    // A record without a project still gets a file of its own.
    const [noProject] = await files.append('m', '', [{ kind: 'observation', id: 1, blob: vec(5) }]);
    assert.deepEqual(await readEntry(new VectorFiles(files.dir), 'm', '', 1, { kind: 'observation', id: 1, dims: DIMS, offset: noProject.offset }), vec(5));
    assert.equal(files.list().length, 4);
    // Private like the rest of the data dir.
    assert.equal(fs.statSync(files.dir).mode & 0o777, 0o700);
    for (const f of files.list()) assert.equal(fs.statSync(path.join(files.dir, f)).mode & 0o777, 0o600);
  });

  it('never serves a damaged entry, or the wrong record at a stale offset, and appends past a torn tail', async () => {
    const dir = path.join(tempDir('vec-files-'), 'vector-data');
    const files = new VectorFiles(dir);
    const locs = await files.append('m', 'proj', [1, 2, 3].map((i) => ({ kind: 'observation' as const, id: i, blob: vec(i) })));
    const file = path.join(dir, files.fileName('m', 'proj', 1));
    const bytes = fs.readFileSync(file);
    bytes[locs[1].offset + 20] ^= 0x40;
    fs.writeFileSync(file, Buffer.concat([bytes, Buffer.from([1, 2, 3, 4, 5])]));
    const want = (id: number, offset: number): WantedEntry => ({ kind: 'observation', id, dims: DIMS, offset });
    const got = await readAll(files, 1, [want(1, locs[0].offset), want(2, locs[1].offset), want(3, locs[2].offset), want(2, locs[2].offset), want(4, locs[2].offset + entrySize(DIMS))]);
    assert.deepEqual(got, [vec(1), undefined, vec(3), undefined, undefined]);
    assert.equal(await readEntry(files, 'm', 'proj', 1, want(2, locs[1].offset)), undefined);
    assert.equal(await readEntry(files, 'm', 'proj', 7, want(1, 0)), undefined, 'a missing file serves nothing');
    // The next append starts after the torn bytes: no row names them.
    const [next] = await files.append('m', 'proj', [{ kind: 'observation', id: 4, blob: vec(4) }]);
    assert.equal(next.offset, 3 * entrySize(DIMS) + 5);
    assert.deepEqual(await readEntry(files, 'm', 'proj', 1, want(4, next.offset)), vec(4));
  });

  it('rewrites a generation with the kept entries, and sweeps files nobody uses', async () => {
    const dir = path.join(tempDir('vec-files-'), 'vector-data');
    const files = new VectorFiles(dir);
    await files.append('m', 'proj', [1, 2, 3].map((i) => ({ kind: 'observation' as const, id: i, blob: vec(i) })));
    const kept = await files.rewrite('m', 'proj', [{ kind: 'observation', id: 3, blob: vec(3) }]);
    assert.deepEqual(kept, [{ gen: 2, offset: 0 }]);
    assert.equal(files.currentGen('m', 'proj'), 2);
    assert.equal(files.size('m', 'proj', 2), entrySize(DIMS));
    // A new VectorFiles (a restart) finds the newest generation on disk.
    assert.equal(new VectorFiles(dir).currentGen('m', 'proj'), 2);
    fs.writeFileSync(path.join(dir, 'left-over.vec.tmp'), 'x');
    fs.writeFileSync(path.join(dir, 'not-ours.txt'), 'x');
    assert.equal(await files.sweep(new Set([files.fileName('m', 'proj', 2)])), 2);
    assert.deepEqual(fs.readdirSync(dir).sort(), [files.fileName('m', 'proj', 2), 'not-ours.txt'].sort());
  });
});
