// Every file of a data dir as plain bytes, for tests that look for text in it (a leak, or text that
// must be gone): compressed older snapshots and journal segments (.dbz, .logz) are read inflated,
// and so are packed snapshots and deltas (worker/store/packChain.ts), so that compression never
// hides text from the check. Other files are read as they are.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { JOURNAL_MAGIC, thawToMemory, unpackToMemory } from '../../worker/store/coldSnapshot';
import { deltaLoc, readDeltaHeader } from '../../worker/store/delta';
import { FileRef, PAGED_CHUNK, readLocSync } from '../../worker/store/pagedFile';
import { snapshotBytesOf } from '../../worker/store/snapshot';
import { readIfPresent, tempDir } from './worker';

function thawIfPresent(dir: string, gen: number, journal: boolean): Buffer | undefined {
  try {
    return journal ? unpackToMemory(path.join(dir, `journal-${String(gen).padStart(10, '0')}.logz`), JOURNAL_MAGIC) : thawToMemory(dir, gen);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** A packed snapshot's or delta's bytes inflated (after its raw bytes, so nothing is hidden); other bytes as they are. */
function unpackedIfPacked(file: string, b: Buffer | undefined): Buffer | undefined {
  const magic = b?.subarray(0, 8).toString('latin1');
  if (!b || !['CMEMSNP3', 'CMEMSNP4', 'CMEMDLT2', 'CMEMDLT3'].includes(magic ?? '')) return b;
  if (magic?.startsWith('CMEMSNP')) return Buffer.concat([b, snapshotBytesOf(b)]);
  // Read from a copy of the bytes read (the file may be renamed meanwhile).
  const copy = path.join(tempDir('plain-delta-'), path.basename(file));
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
    fs.rmSync(path.dirname(copy), { recursive: true, force: true });
  }
}

/**
 * Every file under dir with its plain bytes (path relative to dir). A file the worker removes or
 * renames while this walks (a temp file, a replaced snapshot) is left out.
 */
export function plainFiles(dir: string): { file: string; bytes: Buffer }[] {
  const out: { file: string; bytes: Buffer }[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        const m = /^(snapshot|journal)-(\d+)\.(dbz|logz)$/.exec(e.name);
        const bytes = m ? thawIfPresent(d, Number(m[2]), m[1] === 'journal') : unpackedIfPacked(p, readIfPresent(p));
        if (bytes) out.push({ file: path.relative(dir, p), bytes });
      }
    }
  };
  walk(dir);
  return out;
}
