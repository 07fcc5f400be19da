// One vector file entry read back through VectorFiles.readMany, the way the worker reads them.
import type { VectorFiles, WantedEntry } from '../../worker/search/vectors/files';

/** The entry's vector bytes (a copy), or undefined when it is missing or fails its check. */
export async function readEntry(files: VectorFiles, model: string, project: string, gen: number, want: WantedEntry): Promise<Uint8Array | undefined> {
  let out: Uint8Array | undefined;
  await files.readMany(model, project, gen, [want], (_, blob) => {
    out = blob?.slice();
  });
  return out;
}
