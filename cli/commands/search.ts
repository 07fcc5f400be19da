// claude-mem search <query> [--project P|--all] [--limit N] [--type T] [--mode keyword|semantic|hybrid] [--json]
import { projectFromCwd } from '../../common/node/project';
import { query, request, targetFromEnv } from '../client';
import { parseSearchResponse } from '../../common/contract';
import { indexLine } from '../format';
import { ensureWorker } from '../startStop';
import { verifyOthers, verifyProject, viewParams, type Send, type UseView } from '../freshnessCheck';

export async function runSearch(args: string[]): Promise<number> {
  const words: string[] = [];
  let project: string | undefined = projectFromCwd(process.cwd());
  let limit: string | undefined;
  let type: string | undefined;
  let mode: string | undefined;
  let json = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--project') project = args[++i];
    else if (a === '--all') project = undefined;
    else if (a === '--limit') limit = args[++i];
    else if (a === '--type') type = args[++i];
    else if (a === '--mode') mode = args[++i];
    else if (a === '--json') json = true;
    else words.push(a);
  }
  const q = words.join(' ').trim();
  if (!q) {
    process.stderr.write('usage: claude-mem search <query> [--project P | --all] [--limit N] [--type T] [--mode keyword|semantic|hybrid] [--json]\n');
    return 2;
  }
  const t = targetFromEnv();
  if (!(await ensureWorker(t, 20_000))) {
    process.stderr.write(`claude-mem worker is not running and did not start at ${t.host}:${t.port}\n`);
    return 1;
  }
  // The check at the moment of use: this project's cited files against the work tree here.
  let view: UseView | undefined;
  if (project && project === projectFromCwd(process.cwd())) {
    try {
      view = await verifyProject(async (method, p, body) => {
        const r = await request(t, method, p, body, 10_000);
        return r.status === 200 ? r.body : undefined;
      }, project, process.cwd());
    } catch {
      view = undefined; // the results still carry the marks the worker has
    }
  }
  const url = `/api/search${query({ query: q, project, limit, type, mode, ...viewParams(view) })}`;
  let r = await request(t, 'GET', url, undefined, 30_000);
  if (r.status !== 200) {
    process.stderr.write(`search failed (${r.status}): ${JSON.stringify(r.body)}\n`);
    return 1;
  }
  // --all: each project the results come from is checked in its own folder (this one here), then read again.
  let unverified: Set<string> | undefined;
  if (!project && r.body && typeof r.body === 'object') {
    const found = new Set(parseSearchResponse(r.body).items.filter((x) => x.kind === 'observation').map((x) => x.project));
    if (found.size > 0) {
      const send: Send = async (method, p, body) => {
        const x = await request(t, method, p, body, 10_000);
        return x.status === 200 ? x.body : undefined;
      };
      try {
        const own = projectFromCwd(process.cwd());
        if (found.has(own)) await verifyProject(send, own, process.cwd());
        unverified = await verifyOthers(send, found, own);
        r = await request(t, 'GET', url, undefined, 30_000);
        if (r.status !== 200) {
          process.stderr.write(`search failed (${r.status}): ${JSON.stringify(r.body)}\n`);
          return 1;
        }
      } catch {
        unverified = undefined; // the results still carry the marks the worker has
      }
    }
  }
  if (json) {
    process.stdout.write(JSON.stringify(r.body, null, 2) + '\n');
    return 0;
  }
  const rows = parseSearchResponse(r.body).items;
  if (rows.length === 0) {
    process.stdout.write(`nothing found for "${q}"${project ? ` in ${project} (try --all)` : ''}\n`);
    return 0;
  }
  process.stdout.write(rows.map((x) => indexLine(x, unverified)).join('\n') + '\n');
  return 0;
}
