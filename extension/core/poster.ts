// Fire-and-forget posts that survive the worker's start-up: while no worker is connected, posts
// wait in a small bounded queue and go out in order once one is; past the bound the oldest are
// dropped (and counted). Never blocks, never throws. No vscode import.
import type { Poster } from './session';

export interface Target {
  fire(urlPath: string, body: unknown): void;
  request(method: string, urlPath: string, body?: unknown, timeoutMs?: number): Promise<unknown>;
}

export class QueuedPoster implements Poster {
  private readonly queue: Array<{ urlPath: string; body: unknown }> = [];
  dropped = 0;

  constructor(
    private readonly target: () => Target | undefined,
    private readonly max = 500,
  ) {}

  fire(urlPath: string, body: unknown): void {
    const t = this.target();
    if (t && this.queue.length === 0) return t.fire(urlPath, body);
    this.queue.push({ urlPath, body });
    if (this.queue.length > this.max) {
      this.queue.shift();
      this.dropped++;
    }
    if (t) this.flush();
  }

  request(method: string, urlPath: string, body?: unknown, timeoutMs?: number): Promise<unknown> {
    const t = this.target();
    if (!t) return Promise.reject(new Error('no worker connected'));
    this.flush();
    return t.request(method, urlPath, body, timeoutMs);
  }

  /** Sends what waited (call when a worker becomes healthy). */
  flush(): void {
    const t = this.target();
    if (!t) return;
    for (const item of this.queue.splice(0)) t.fire(item.urlPath, item.body);
  }

  get pending(): number {
    return this.queue.length;
  }
}
