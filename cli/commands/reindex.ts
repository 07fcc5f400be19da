// claude-mem reindex [--project P] [--reembed] [--json]
// Rebuilds the semantic-search vector indexes from the stored vectors through POST /api/search/reindex
// (body: {project?, reembed?}; every project when --project is absent). With --reembed the stored
// vectors are dropped first and the worker embeds every record again in the background (after
// switching the embedding model, say). Starts a worker if none is running, like `search`, unless
// CLAUDE_MEM_NO_AUTOSTART=1.
import type { ReindexResponse } from '../../common/contract';
import { health, request, targetFromEnv } from '../client';
import { ensureWorker } from '../startStop';

export const REINDEX_USAGE = 'usage: claude-mem reindex [--project P] [--reembed] [--json]\n';

/** Rebuilding every project's index of a large store can take minutes; the route answers when done. */
const REINDEX_TIMEOUT_MS = 30 * 60_000;

export interface ReindexArgs {
  project?: string;
  reembed: boolean;
  json: boolean;
}

/** Parses the command's arguments; a string is the usage error to print. */
export function parseReindexArgs(args: string[]): ReindexArgs | string {
  const out: ReindexArgs = { reembed: false, json: false };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--project' || a === '-p') {
      const v = args[++i];
      if (v === undefined || v === '' || v.startsWith('--')) return `--project needs a project name\n${REINDEX_USAGE}`;
      out.project = v;
    } else if (a.startsWith('--project=')) {
      const v = a.slice('--project='.length);
      if (v === '') return `--project needs a project name\n${REINDEX_USAGE}`;
      out.project = v;
    } else if (a === '--all') out.project = undefined;
    else if (a === '--reembed') out.reembed = true;
    else if (a === '--json') out.json = true;
    else if (a === '--help' || a === '-h') return REINDEX_USAGE;
    else return `unexpected argument "${a}"\n${REINDEX_USAGE}`;
  }
  return out;
}

export async function runReindex(args: string[]): Promise<number> {
  const parsed = parseReindexArgs(args);
  if (typeof parsed === 'string') {
    const help = parsed === REINDEX_USAGE;
    (help ? process.stdout : process.stderr).write(parsed);
    return help ? 0 : 2;
  }
  const t = targetFromEnv();
  const noStart = process.env.CLAUDE_MEM_NO_AUTOSTART === '1';
  if (!(noStart ? await health(t) : await ensureWorker(t, 20_000))) {
    process.stderr.write(`claude-mem worker is not running${noStart ? ' (CLAUDE_MEM_NO_AUTOSTART=1)' : ' and did not start'} at ${t.host}:${t.port}\n`);
    return 1;
  }
  const body: { project?: string; reembed?: boolean } = {};
  if (parsed.project !== undefined) body.project = parsed.project;
  if (parsed.reembed) body.reembed = true;
  const r = await request<ReindexResponse | { error?: string }>(t, 'POST', '/api/search/reindex', body, REINDEX_TIMEOUT_MS);
  if (r.status === 404) {
    process.stderr.write('this worker has no reindex route (POST /api/search/reindex); update claude-mem\n');
    return 1;
  }
  if (r.status < 200 || r.status >= 300) {
    const err = r.body && typeof r.body === 'object' && typeof (r.body as { error?: unknown }).error === 'string' ? (r.body as { error: string }).error : JSON.stringify(r.body);
    process.stderr.write(`reindex failed (${r.status}): ${err}\n`);
    return 1;
  }
  if (parsed.json) {
    process.stdout.write(JSON.stringify(r.body, null, 2) + '\n');
    return 0;
  }
  process.stdout.write(describeReindex(r.body as ReindexResponse, parsed.project));
  return 0;
}

/** The human summary of a reindex answer. */
export function describeReindex(res: ReindexResponse, project: string | undefined): string {
  const st = res.status;
  const lines: string[] = [];
  if (st?.embeddings?.provider === 'off' || st?.embeddings?.state === 'off') {
    lines.push('semantic search is off (embeddings: off in settings); there are no vector indexes to rebuild');
    return lines.join('\n') + '\n';
  }
  const rebuilt = Array.isArray(res.rebuilt) ? res.rebuilt : [];
  if (rebuilt.length === 0) lines.push(project !== undefined ? `no vector index to rebuild for ${project}` : 'no vector indexes to rebuild yet');
  else lines.push(`rebuilt the vector index of ${rebuilt.length === 1 ? '1 project' : `${rebuilt.length} projects`}: ${rebuilt.join(', ')}`);
  if (res.reembed) lines.push(`dropped ${res.dropped} stored vector${res.dropped === 1 ? '' : 's'}; every record in ${project ?? 'every project'} is being embedded again`);
  if (st) {
    const e = st.embeddings;
    lines.push(
      `embeddings: ${e.provider}${e.model ? ` (${e.model})` : ''}, ${e.state}; indexed ${st.indexed.observations} observations and ${st.indexed.summaries} summaries` +
        (st.pending > 0 ? `; ${st.pending} waiting, embedded in the background` : ''),
    );
    if (e.lastError) lines.push(`last embedding error: ${e.lastError}`);
    for (const p of st.problems ?? []) lines.push(`problem: ${p}`);
  }
  return lines.join('\n') + '\n';
}
