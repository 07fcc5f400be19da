// The app's transport in the browser viewer: fetch for operations (the same requests the extension
// host makes, from the same `httpFor`), EventSource for live events. Both authenticate with the
// viewer's HttpOnly session cookie, set by the worker's entry route: the page never holds the token,
// and no URL carries it.
import { errorText, httpFor, STREAM_EVENTS, type OpName, type OpParams, type OpResult, type StreamEventName } from '../../common/contract';
import { ApiError, type HostInfo, type Transport, type TransportListener } from './transport';

export class BrowserTransport implements Transport {
  readonly host = 'browser' as const;
  private source: EventSource | undefined;
  private retryMs = 1000;
  private listener: TransportListener | undefined;

  constructor(private readonly base: string) {}

  async start(listener: TransportListener): Promise<HostInfo> {
    this.listener = listener;
    this.connect();
    return { capabilities: { openFiles: false, pauseCapture: false } };
  }

  private connect(): void {
    const l = this.listener;
    if (!l) return;
    l.connection('connecting');
    const es = new EventSource(`${this.base}/stream`);
    this.source = es;
    es.addEventListener('connected', () => {
      this.retryMs = 1000;
      l.connection('connected');
    });
    for (const name of STREAM_EVENTS) {
      es.addEventListener(name, (e) => {
        try {
          const data: unknown = JSON.parse((e as MessageEvent<string>).data);
          if (data && typeof data === 'object' && !Array.isArray(data)) l.event({ event: name as StreamEventName, data: data as Record<string, unknown> });
        } catch {
          /* malformed event: skip */
        }
      });
    }
    es.onerror = () => {
      l.connection('disconnected', 'Lost the connection to the memory worker; retrying.');
      // EventSource retries by itself unless the server refused (then it is closed for good).
      if (es.readyState === EventSource.CLOSED) {
        es.close();
        setTimeout(() => this.source === es && this.connect(), this.retryMs);
        this.retryMs = Math.min(this.retryMs * 2, 15_000);
      }
    };
  }

  async request<K extends OpName>(op: K, params: OpParams<K>): Promise<OpResult<K>> {
    let call;
    try {
      call = httpFor(op, params);
    } catch (e) {
      throw new ApiError(400, (e as Error).message);
    }
    let res: Response;
    try {
      res = await fetch(this.base + call.path, {
        method: call.method,
        headers: call.body !== undefined ? { 'content-type': 'application/json' } : {},
        credentials: 'same-origin',
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
        cache: 'no-store',
      });
    } catch (e) {
      throw new ApiError(0, `Could not reach the memory worker (${(e as Error).message}). Is it running? Start it with: node dist/cli.js start`);
    }
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    if (!res.ok) {
      const msg = res.status === 401 ? 'The viewer session has expired or the worker token was reset. Open the viewer again with: claude-mem viewer' : errorText(res.status, body);
      throw new ApiError(res.status, msg);
    }
    return body as OpResult<K>;
  }

  openFile(): void {
    /* the browser cannot open files in an editor: paths are shown, not linked */
  }

  toggleCapture(): void {
    /* capture belongs to VS Code windows */
  }
}
