// What route handlers may use. Built once in main.ts.
import type { Compressor } from '../compression/compressor';
import type { WorkerConfig } from '../../common/node/config';
import type { EventBus } from '../events';
import type { Lifecycle } from '../lifecycle';
import type { Logger } from '../../common/node/log';
import type { Lull } from '../lull';
import type { Processor } from '../queue/processor';
import type { SearchService } from '../search/service';
import type { Store } from '../store/store';

export interface AppContext {
  config: WorkerConfig;
  store: Store;
  lifecycle: Lifecycle;
  processor: Processor;
  compressor: Compressor;
  events: EventBus;
  /** Keyword and vector search, and its indexer (subscribed to `events`). */
  search: SearchService;
  log: Logger;
  token: string;
  startedAt: number;
  /** The bound port (known after listen). */
  port(): number;
  /** Counts client activity for the idle shutdown. */
  touch(): void;
  /** Told when each request starts and ends: background work waits for a lull (lull.ts). */
  lull?: Lull;
  shutdown(reason: string): void;
}
