// The app's transport inside a VS Code webview: every operation is a typed message to the
// extension host, which calls the worker and answers; events arrive relayed by the host.
import { parseHostMessage, type OpName, type OpParams, type OpResult, type PageMessage } from '../../common/contract';
import { l10n } from './l10n';
import { ApiError, type HostInfo, type Transport, type TransportListener } from './transport';

export interface MessageSource {
  addEventListener(type: 'message', listener: (e: { data: unknown }) => void): void;
}

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

export class WebviewTransport implements Transport {
  readonly host = 'webview' as const;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(
    private readonly api: { postMessage(m: PageMessage): void },
    private readonly source: MessageSource,
    private readonly timeoutMs = 60_000,
  ) {}

  start(listener: TransportListener): Promise<HostInfo> {
    return new Promise((resolve) => {
      let hello = false;
      this.source.addEventListener('message', (e) => {
        const msg = parseHostMessage(e.data);
        if (!msg) return;
        switch (msg.type) {
          case 'hello':
            if (!hello) resolve({ capabilities: msg.capabilities, project: msg.project, capturePaused: msg.capturePaused });
            else if (msg.capturePaused !== undefined) listener.capture(msg.capturePaused);
            hello = true;
            return;
          case 'reply': {
            const p = this.pending.get(msg.id);
            if (!p) return;
            this.pending.delete(msg.id);
            clearTimeout(p.timer);
            if (msg.ok) p.resolve(msg.result);
            else p.reject(new ApiError(msg.status, msg.error));
            return;
          }
          case 'event':
            return listener.event(msg.event);
          case 'connection':
            return listener.connection(msg.state, msg.detail);
          case 'capture':
            return listener.capture(msg.paused);
        }
      });
      this.api.postMessage({ type: 'ready' });
    });
  }

  request<K extends OpName>(op: K, params: OpParams<K>): Promise<OpResult<K>> {
    const id = this.nextId++;
    return new Promise<OpResult<K>>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new ApiError(0, l10n.t('The extension did not answer. Reload the view (Developer: Reload Webviews).')));
      }, this.timeoutMs);
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.api.postMessage({ type: 'request', id, op, params });
    });
  }

  openFile(path: string, project?: string): void {
    this.api.postMessage({ type: 'openFile', path, ...(project ? { project } : {}) });
  }

  toggleCapture(): void {
    this.api.postMessage({ type: 'toggleCapture' });
  }
}
