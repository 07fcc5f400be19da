// The host side of the Memory panel: answers the page's messages by talking to the worker, and
// relays the worker's live event stream to the page. No vscode import: index.ts supplies the
// editor actions, so this is tested with the real message shapes against a real worker.
import { ENGLISH, type L10n } from '../core/l10n';
import type { WorkerClient } from '../workerClient';
import {
  errorText,
  httpFor,
  parsePageMessage,
  ProtocolError,
  TOGGLE_CAPTURE_COMMAND,
  type Capabilities,
  type ConnectionState,
  type HostMessage,
  type PageMessage,
} from '../../common/contract';

export type PanelWorkerClient = Pick<WorkerClient, 'request' | 'subscribe'>;

export interface Disposable {
  dispose(): void;
}

/** Where capture's paused state comes from (the extension's capture module owns it). */
export interface CaptureState {
  isPaused(): boolean;
  onDidChange(listener: (paused: boolean) => void): Disposable;
}

export interface PanelHostDeps {
  client: () => PanelWorkerClient | undefined;
  post: (msg: HostMessage) => unknown;
  openFile: (path: string, line: number | undefined, project: string | undefined) => Promise<void>;
  executeCommand: (id: string) => Promise<unknown>;
  showError: (msg: string) => void;
  log: { warn(msg: string): void; debug?(msg: string): void };
  capabilities: Capabilities;
  /** The workspace's project, the page's default filter. */
  project?: () => string | undefined;
  capture?: CaptureState;
  /** How often to look again for a worker while there is none. */
  pollMs?: number;
  /** Timeout of one worker request. */
  requestTimeoutMs?: number;
  /** vscode.l10n in the extension; English by default. */
  l10n?: L10n;
}

export class PanelHost implements Disposable {
  private stream: Disposable | undefined;
  private streamClient: PanelWorkerClient | undefined;
  private poll: ReturnType<typeof setInterval> | undefined;
  private state: ConnectionState = 'connecting';
  private readonly captureSub: Disposable | undefined;
  private disposed = false;

  constructor(private readonly deps: PanelHostDeps) {
    this.captureSub = deps.capture?.onDidChange((paused) => this.post({ type: 'capture', paused }));
  }

  private get l10n(): L10n {
    return this.deps.l10n ?? ENGLISH;
  }

  /** Shown in the page while there is no worker. */
  private noWorker(): string {
    return this.l10n.t('The memory worker is not running. It starts with the extension; if it does not, run "Claude Mem: Restart Worker" and see the "Claude Mem" output.');
  }

  /** Handles one message from the page. Malformed messages are logged and ignored. */
  async handle(raw: unknown): Promise<void> {
    const msg = parsePageMessage(raw);
    if (!msg) {
      this.deps.log.warn(`memory panel: ignored a malformed message ${JSON.stringify(raw)?.slice(0, 200)}`);
      return;
    }
    switch (msg.type) {
      case 'ready':
        return this.ready();
      case 'request':
        return this.request(msg);
      case 'openFile':
        return this.deps.openFile(msg.path, msg.line, msg.project).catch((e: Error) => this.deps.showError(this.l10n.t('Could not open {0}: {1}', msg.path, e.message)));
      case 'toggleCapture':
        return this.toggleCapture();
    }
  }

  private ready(): void {
    const project = this.deps.project?.();
    this.post({
      type: 'hello',
      capabilities: this.deps.capabilities,
      ...(project ? { project } : {}),
      ...(this.deps.capture ? { capturePaused: this.deps.capture.isPaused() } : {}),
    });
    this.resume();
    this.post({ type: 'connection', state: this.state });
  }

  private async request(msg: Extract<PageMessage, { type: 'request' }>): Promise<void> {
    const fail = (status: number, error: string) => this.post({ type: 'reply', id: msg.id, ok: false, status, error });
    let call;
    try {
      call = httpFor(msg.op, msg.params);
    } catch (e) {
      if (e instanceof ProtocolError) return fail(400, e.message);
      throw e;
    }
    const client = this.deps.client();
    if (!client) return fail(503, this.noWorker());
    try {
      const r = await client.request(call.method, call.path, call.body, this.deps.requestTimeoutMs ?? 15_000);
      if (r.status >= 200 && r.status < 300) this.post({ type: 'reply', id: msg.id, ok: true, result: r.body });
      else fail(r.status, errorText(r.status, r.body));
    } catch (e) {
      fail(503, `Could not reach the memory worker (${(e as Error).message}).`);
    }
  }

  private async toggleCapture(): Promise<void> {
    try {
      const r = await this.deps.executeCommand(TOGGLE_CAPTURE_COMMAND);
      // The command may answer the new state; a CaptureState source reports it too.
      if (typeof r === 'boolean') this.post({ type: 'capture', paused: r });
      else if (r && typeof r === 'object' && typeof (r as { paused?: unknown }).paused === 'boolean') this.post({ type: 'capture', paused: (r as { paused: boolean }).paused });
    } catch (e) {
      this.deps.showError(this.l10n.t('Could not pause or resume capture: {0}', (e as Error).message));
    }
  }

  /** Subscribes to the worker's events (again, if the worker client changed). */
  resume(): void {
    if (this.disposed) return;
    this.connect();
    if (!this.poll) {
      this.poll = setInterval(() => this.connect(), this.deps.pollMs ?? 3000);
      this.poll.unref?.();
    }
  }

  /** Drops the event stream while the view is hidden (its page reloads and refetches when shown). */
  suspend(): void {
    if (this.poll) clearInterval(this.poll);
    this.poll = undefined;
    this.stream?.dispose();
    this.stream = undefined;
    this.streamClient = undefined;
    this.state = 'connecting';
  }

  private connect(): void {
    const client = this.deps.client();
    if (client === this.streamClient && this.stream) return;
    this.stream?.dispose();
    this.stream = undefined;
    this.streamClient = client;
    if (!client) return this.setState('no-worker', this.noWorker());
    this.setState('connecting');
    this.stream = client.subscribe(
      (event) => this.post({ type: 'event', event }),
      (connected) => this.setState(connected ? 'connected' : 'disconnected'),
    );
  }

  private setState(state: ConnectionState, detail?: string): void {
    if (state === this.state) return;
    this.state = state;
    this.post({ type: 'connection', state, ...(detail ? { detail } : {}) });
  }

  private post(msg: HostMessage): void {
    if (this.disposed) return;
    try {
      const r = this.deps.post(msg);
      if (r && typeof (r as Promise<unknown>).then === 'function') (r as Promise<unknown>).then(undefined, () => undefined);
    } catch (e) {
      this.deps.log.debug?.(`memory panel: post failed: ${(e as Error).message}`);
    }
  }

  dispose(): void {
    this.suspend();
    this.captureSub?.dispose();
    this.disposed = true;
  }
}

/**
 * Where a stored file path may be on disk: absolute paths as they are, relative ones under each
 * workspace folder (observations store paths relative to the project root).
 */
export function candidatePaths(file: string, workspaceFolders: readonly string[], join: (a: string, b: string) => string, isAbsolute: (p: string) => boolean): string[] {
  if (isAbsolute(file)) return [file];
  const rel = file.replace(/^\.\//, '');
  return workspaceFolders.map((root) => join(root, rel));
}
