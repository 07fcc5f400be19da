// Loads just vectra's LocalIndex, ProtobufCodec and LocalFileStorage, at run time, on first use.
// `require('vectra')` costs about 1.2 s and 120 MB (it loads an OpenAI client, gRPC, a CLI...);
// these three files cost far less. The packaged extension ships no node_modules, so the build
// bundles the three (and their dependencies) into dist/vectra/index.js, with the protobuf schema
// beside it (esbuild.config.mjs); that bundle is used when it sits beside the running bundle.
// From sources (tests under tsx) the files are loaded from node_modules by path: the package's
// `exports` map hides lib/*, so the folder is found by resolving the package entry without loading it.
import { existsSync } from 'node:fs';
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

interface VectraModules {
  LocalIndex: typeof import('vectra').LocalIndex;
  ProtobufCodec: new () => IndexCodec;
  LocalFileStorage: new () => FileStorage;
}

/** Where vectra was loaded from: the bundle in dist/ or node_modules (for status and tests). */
export let vectraSource: 'bundle' | 'node_modules' | undefined;

/** The bundle's path when this code runs bundled in dist/ (dist/vectra/index.js beside dist/worker.js). */
export function bundledVectraPath(dir = __dirname): string | undefined {
  const file = path.join(dir, 'vectra', 'index.js');
  return existsSync(file) ? file : undefined;
}

export function loadVectra(): Vectra {
  if (loaded) return loaded;
  const req = createRequire(__filename);
  let m: VectraModules;
  const bundle = bundledVectraPath();
  if (bundle) {
    m = req(bundle) as VectraModules;
    vectraSource = 'bundle';
  } else {
    // A variable module name keeps esbuild from bundling the package entry into the worker.
    const pkg = 'vectra';
    const lib = path.dirname(req.resolve(pkg));
    m = {
      LocalIndex: (req(path.join(lib, 'LocalIndex.js')) as VectraModules).LocalIndex,
      ProtobufCodec: (req(path.join(lib, 'codecs', 'ProtobufCodec.js')) as VectraModules).ProtobufCodec,
      LocalFileStorage: (req(path.join(lib, 'storage', 'LocalFileStorage.js')) as VectraModules).LocalFileStorage,
    };
    vectraSource = 'node_modules';
  }
  const { LocalIndex, ProtobufCodec, LocalFileStorage } = m;
  loaded = {
    LocalIndex,
    newCodec: () => new ProtobufCodec(),
    newStorage: () => new AtomicStorage(new LocalFileStorage()),
  };
  return loaded;
}

class AtomicStorage implements FileStorage {
  constructor(private readonly base: FileStorage) {}
  // Vectors are derived from private text: files 0600 and folders 0700, like the rest of the data dir.
  async createFile(p: string, content: Buffer | string) {
    await fs.writeFile(p, content, { flag: 'wx', mode: 0o600 });
  }
  async createFolder(p: string) {
    await fs.mkdir(p, { recursive: true, mode: 0o700 });
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
    await fs.writeFile(tmp, content, { mode: 0o600 });
    await fs.rename(tmp, p);
  }
}
