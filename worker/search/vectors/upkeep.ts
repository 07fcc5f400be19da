// Upkeep of the vector files (files.ts), run by the indexer between batches so it never overlaps an
// append: rewriting a file that is mostly dead entries (records edited, deleted or embedded
// again), wiping a deleted record's entry in place (zeros) right after the delete, and deleting
// files no row names any more. Each step writes the new bytes and syncs them before SQLite points
// at them, and deletes old bytes only after no row points at them: a crash anywhere leaves either
// place valid.
import type { Logger } from '../../../common/node/log';
import type { Store } from '../../store/store';
import { entrySize, type FileEntry, type VectorFiles, type VectorKind } from './files';

/** A file is rewritten when it is at least this big and less than half of it is still used. */
const COMPACT_MIN_BYTES = 1 << 20;

interface FileUse {
  model: string;
  project: string;
  file_gen: number;
  n: number;
  dims: number;
}

interface UpkeepResult {
  compacted: number;
  /** Bytes of dead entries overwritten with zeros in place. */
  wiped: number;
  swept: number;
}

/**
 * Rewrites mostly-dead files and deletes files no row uses. `erase`: records of these projects
 * were deleted, so their dead entries are wiped in place now (not only once a file is mostly dead).
 */
export async function compactAndSweep(store: Store, files: VectorFiles, log: Logger, stopped: () => boolean, erase: ReadonlySet<string> = new Set()): Promise<UpkeepResult> {
  const uses = store.all<FileUse>(
    `SELECT model, project, file_gen, count(*) AS n, sum(dims) AS dims FROM vectors WHERE file_offset IS NOT NULL GROUP BY model, project, file_gen`,
  );
  let compacted = 0;
  let wiped = 0;
  for (const u of uses) {
    if (stopped()) return { compacted, wiped, swept: 0 };
    const size = files.size(u.model, u.project, u.file_gen);
    const live = u.n * entrySize(0) + u.dims;
    if (size >= COMPACT_MIN_BYTES && live * 2 <= size) {
      await compact(store, files, u);
      compacted++;
    } else if (erase.has(u.project) && size > live) {
      const kept = store.all<{ offset: number; dims: number }>(
        `SELECT file_offset AS offset, dims FROM vectors WHERE model = ? AND project = ? AND file_gen = ? AND file_offset IS NOT NULL`,
        [u.model, u.project, u.file_gen],
      );
      wiped += await files.wipeGaps(u.model, u.project, u.file_gen, kept);
    }
  }
  if (stopped()) return { compacted, wiped, swept: 0 };
  const used = new Set(
    store
      .all<{ model: string; project: string; file_gen: number }>(`SELECT DISTINCT model, project, file_gen FROM vectors WHERE file_offset IS NOT NULL`)
      .map((r) => files.fileName(r.model, r.project, r.file_gen)),
  );
  const swept = await files.sweep(used);
  if (compacted > 0 || wiped > 0 || swept > 0) log.info('vector files tidied', { compacted, wiped, swept });
  return { compacted, wiped, swept };
}

/** Copies the file's live entries to a new generation, then points their rows there (one transaction). */
async function compact(store: Store, files: VectorFiles, u: FileUse): Promise<void> {
  const rows = store.all<{ kind: VectorKind; ref_id: number; dims: number; file_offset: number }>(
    `SELECT kind, ref_id, dims, file_offset FROM vectors WHERE model = ? AND project = ? AND file_gen = ? AND file_offset IS NOT NULL`,
    [u.model, u.project, u.file_gen],
  );
  const entries: FileEntry[] = [];
  const from: number[] = [];
  const wanted = rows.map((r) => ({ kind: r.kind, id: r.ref_id, dims: r.dims, offset: r.file_offset }));
  await files.readMany(u.model, u.project, u.file_gen, wanted, (w, blob) => {
    // An entry that fails its check is left where it is: the next read drops its row.
    if (!blob) return;
    entries.push({ kind: w.kind, id: w.id, blob: blob.slice() });
    from.push(w.offset);
  });
  const locs = await files.rewrite(u.model, u.project, entries);
  await store.write((tx) => {
    entries.forEach((e, i) =>
      tx.run(`UPDATE vectors SET file_gen = ?, file_offset = ? WHERE kind = ? AND ref_id = ? AND model = ? AND file_gen = ? AND file_offset = ?`, [locs[i].gen, locs[i].offset, e.kind, e.id, u.model, u.file_gen, from[i]]),
    );
  });
}
