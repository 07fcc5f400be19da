// The workspace project's injected context, fetched once the worker is healthy and kept ready for
// the chat participant and the tools; refreshed when stale or when a new summary lands. No vscode import.
import type { MemoryApi } from './memoryApi';

export class ContextCache {
  private readonly entries = new Map<string, { text: string; at: number }>();
  private readonly inflight = new Map<string, Promise<string>>();

  constructor(
    private readonly api: MemoryApi,
    private readonly params: () => Record<string, string | number | undefined>,
    private readonly maxAgeMs = 120_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The cached text when fresh, else a fetch (shared by concurrent callers). */
  get(project: string): Promise<string> {
    const hit = this.entries.get(project);
    if (hit && this.now() - hit.at < this.maxAgeMs) return Promise.resolve(hit.text);
    let p = this.inflight.get(project);
    if (!p) {
      p = this.api
        .context(project, this.params())
        .then((r) => {
          this.entries.set(project, { text: r.text, at: this.now() });
          return r.text;
        })
        .finally(() => this.inflight.delete(project));
      this.inflight.set(project, p);
    }
    return p;
  }

  /** What is cached, however old (never fetches). */
  peek(project: string): string | undefined {
    return this.entries.get(project)?.text;
  }

  invalidate(project?: string): void {
    if (project === undefined) this.entries.clear();
    else this.entries.delete(project);
  }
}
