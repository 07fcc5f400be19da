// Chooses the compression provider from the environment and settings. The local heuristic is the default.
import type { WorkerConfig } from '../config';
import type { EventBus } from '../events';
import type { Logger } from '../log';
import type { Store } from '../store/store';
import { LocalCompressor, type Compressor } from './compressor';

export interface CompressorDeps {
  config: WorkerConfig;
  env: NodeJS.ProcessEnv;
  store: Store;
  events: EventBus;
  log: Logger;
}

export function createCompressor(_deps: CompressorDeps): Compressor {
  return new LocalCompressor();
}
