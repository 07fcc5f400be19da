// Loads just vectra's LocalIndex, ProtobufCodec and LocalFileStorage by file path, at run time.
// `require('vectra')` costs about 1.2 s and 120 MB (it loads an OpenAI client, gRPC, a CLI...);
// these three files cost about 0.2 s and 30 MB (mostly wink-nlp's English model, which
// LocalIndex requires eagerly). The package's `exports` map hides lib/*, so the folder is found by
// resolving the package entry without loading it. Not bundled: vectra must be in node_modules.
import * as fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type { FileDetails, FileStorage, IndexCodec, ListFilesFilter, LocalIndex } from 'vectra';

export type { IndexCodec, LocalIndex } from 'vectra';

export interface Vectra {
  LocalIndex: typeof LocalIndex;
  newCodec(): IndexCodec;
  /** LocalFileStorage with an atomic upsertFile, so a crash mid-save cannot leave half an index. */
  newStorage(): FileStorage;
}

let loaded: Vectra | undefined;

export function loadVectra(): Vectra {
  if (loaded) return loaded;
  // A variable module name keeps esbuild from bundling vectra (its .proto file must stay beside it).
  const pkg = 'vectra';
  const req = createRequire(__filename);
  const lib = path.dirname(req.resolve(pkg));
  const { LocalIndex } = req(path.join(lib, 'LocalIndex.js')) as { LocalIndex: typeof import('vectra').LocalIndex };
  const { ProtobufCodec } = req(path.join(lib, 'codecs', 'ProtobufCodec.js')) as { ProtobufCodec: new () => IndexCodec };
  const { LocalFileStorage } = req(path.join(lib, 'storage', 'LocalFileStorage.js')) as { LocalFileStorage: new () => FileStorage };
  loaded = {
    LocalIndex,
    newCodec: () => new ProtobufCodec(),
    newStorage: () => new AtomicStorage(new LocalFileStorage()),
  };
  return loaded;
}

class AtomicStorage implements FileStorage {
  constructor(private readonly base: FileStorage) {}
  createFile(p: string, content: Buffer | string) {
    return this.base.createFile(p, content);
  }
  createFolder(p: string) {
    return this.base.createFolder(p);
  }
  deleteFile(p: string) {
    return this.base.deleteFile(p);
  }
  deleteFolder(p: string) {
    return this.base.deleteFolder(p);
  }
  getDetails(p: string): Promise<FileDetails> {
    return this.base.getDetails(p);
  }
  listFiles(p: string, filter?: ListFilesFilter): Promise<FileDetails[]> {
    return this.base.listFiles(p, filter);
  }
  pathExists(p: string) {
    return this.base.pathExists(p);
  }
  readFile(p: string) {
    return this.base.readFile(p);
  }
  async upsertFile(p: string, content: Buffer | string) {
    const tmp = `${p}.${process.pid}.tmp`;
    await fs.writeFile(tmp, content);
    await fs.rename(tmp, p);
  }
}
