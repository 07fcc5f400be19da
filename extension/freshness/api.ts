// The freshness routes for the extension (docs/freshness.md). No vscode import.
import type { CheckFile, CitedFilesResponse, FileMemoriesResponse, FreshnessCheckResponse, MemoryFreshness, VerifyFile, VerifyResponse } from '../../common/contract';
import type { Requester } from '../core/memoryApi';

export class FreshnessError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

const qs = (o: Record<string, string | undefined>) =>
  Object.entries(o)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v as string)}`)
    .join('&');

export interface BranchInfo {
  branch: string | null;
  bases: string[];
  commit: string | null;
}

export class FreshnessApi {
  constructor(private readonly client: () => Requester | undefined) {}

  private async ok<T>(method: string, url: string, body?: unknown, timeoutMs = 5000): Promise<T> {
    const c = this.client();
    if (!c) throw new FreshnessError('the memory worker is not running yet', 0);
    const r = await c.request<T>(method, url, body, timeoutMs);
    if (r.status >= 400) {
      const b = r.body as { error?: unknown } | undefined;
      throw new FreshnessError(typeof b?.error === 'string' ? b.error : `HTTP ${r.status}`, r.status);
    }
    return r.body;
  }

  cited(project: string): Promise<CitedFilesResponse> {
    return this.ok('GET', `/api/freshness/cited?${qs({ project })}`);
  }

  check(project: string, b: BranchInfo, files: CheckFile[]): Promise<FreshnessCheckResponse> {
    return this.ok('POST', '/api/freshness/check', { project, branch: b.branch, bases: b.bases, commit: b.commit, files }, 15_000);
  }

  async fileMemories(project: string, path: string, b: BranchInfo | undefined): Promise<MemoryFreshness[]> {
    const r = await this.ok<FileMemoriesResponse>('GET', `/api/freshness/file?${qs({ project, path, branch: b?.branch ?? undefined, bases: b?.bases.join(',') })}`);
    return r.items;
  }

  confirm(id: number, files: { path: string; blob: string | null }[] = []): Promise<MemoryFreshness> {
    return this.ok('POST', '/api/freshness/confirm', { id, files });
  }

  retire(id: number, replacedBy?: number): Promise<MemoryFreshness> {
    return this.ok('POST', '/api/freshness/retire', { id, ...(replacedBy ? { replacedBy } : {}) });
  }

  verify(id: number, files: VerifyFile[]): Promise<VerifyResponse> {
    return this.ok('POST', '/api/freshness/verify', { id, files }, 90_000);
  }
}
