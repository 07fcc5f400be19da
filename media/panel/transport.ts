// How the app reaches memory: one interface, two implementations. In a VS Code webview the page
// talks only to the extension host (postMessage); in the browser viewer it talks to the worker
// (fetch + EventSource). The app never knows which.
import type { Capabilities, ConnectionState, OpName, OpParams, OpResult, StreamEvent } from '../../common/contract';

export interface TransportListener {
  event(e: StreamEvent): void;
  connection(state: ConnectionState, detail?: string): void;
  capture(paused: boolean): void;
}

export interface HostInfo {
  capabilities: Capabilities;
  /** The project to show first (the VS Code workspace's). */
  project?: string;
  capturePaused?: boolean;
}

export interface Transport {
  readonly host: 'webview' | 'browser';
  /** Starts listening; resolves with what the host says about itself. */
  start(listener: TransportListener): Promise<HostInfo>;
  request<K extends OpName>(op: K, params: OpParams<K>): Promise<OpResult<K>>;
  openFile(path: string, project?: string): void;
  toggleCapture(): void;
}

/** A failed operation: the worker's (or host's) status and error message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }

  /** The worker has no such route (an older worker, or a module not built yet). */
  get routeMissing(): boolean {
    return this.status === 404 && /^no route /.test(this.message);
  }
}
