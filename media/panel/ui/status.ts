// Queue and provider status, totals, and token economics.
import type { AgentStatusResponse, ConnectionState, HealthResponse, QueueResponse, SearchStatus, StatsResponse } from '../../../common/contract';
import { formatBytes, formatCount, formatDuration, h, icon, type Child } from '../dom';
import type { Economics } from '../model';

export interface StatusData {
  connection: ConnectionState;
  health?: HealthResponse;
  stats?: StatsResponse;
  queue?: QueueResponse;
  agent?: AgentStatusResponse;
  search?: SearchStatus;
  economics?: Economics;
  /** Whether economics covers every observation of the scope or only the most recent ones. */
  economicsPartial?: boolean;
  project?: string;
  error?: string;
  loading: boolean;
}

export interface StatusCallbacks {
  refresh(): void;
  retryDead(): void;
  resumeProvider(): void;
}

const CONNECTION_TEXT: Record<ConnectionState, string> = {
  connecting: 'Connecting…',
  connected: 'Live: changes appear as they happen',
  disconnected: 'Connection lost; retrying',
  'no-worker': 'No worker running',
};

function card(title: string, iconName: string, ...body: Child[]): HTMLElement {
  return h('section', { class: 'card', 'aria-label': title }, h('h3', null, icon(iconName), title), body);
}

function row(label: string, value: string): HTMLElement[] {
  return [h('dt', null, label), h('dd', null, value)];
}

export function renderStatus(d: StatusData, cb: StatusCallbacks): HTMLElement {
  const { health, stats, queue, economics: e } = d;
  const dead = queue?.dead ?? [];
  const provider = { ...health?.provider, ...d.agent?.provider };
  const providerState = provider.state ?? '';
  const budget = d.agent?.budget;
  const search = d.search;
  return h(
    'div',
    { class: 'status', 'aria-busy': d.loading ? 'true' : 'false' },
    h(
      'div',
      { class: 'list-head' },
      h('span', { class: 'grow' }, d.loading ? 'Refreshing…' : 'Worker, queue and token economics'),
      h('span', { class: 'spacer' }),
      h('button', { type: 'button', class: 'icon-button refresh-status', 'aria-label': 'Refresh status', title: 'Refresh', onclick: cb.refresh }, icon('refresh')),
    ),
    d.error ? h('div', { class: 'notice error', role: 'alert' }, icon('error'), h('span', { class: 'grow' }, d.error)) : null,
    storageNotice(stats),
    h(
      'div',
      { class: 'cards' },
      card(
        'Worker',
        'server-process',
        h(
          'dl',
          { class: 'meta-grid' },
          row('Stream', CONNECTION_TEXT[d.connection]),
          health ? row('Version', health.version) : [],
          health ? row('Port', String(health.port)) : [],
          stats ? row('Up for', formatDuration(stats.worker.uptimeMs)) : [],
          stats ? row('Memory', formatBytes(stats.worker.rssBytes)) : [],
        ),
      ),
      card(
        'Compression provider',
        'sparkle',
        provider.name
          ? [
              h(
                'dl',
                { class: 'meta-grid' },
                row('Provider', provider.name + (provider.model ? ` (${provider.model})` : '')),
                row('State', providerState.replace(/_/g, ' ') + (provider.pausedReason ? ` (${provider.pausedReason})` : '') + (provider.until ? ` until ${new Date(provider.until).toLocaleTimeString()}` : '')),
                provider.fallback && providerState !== 'ready' ? row('Meanwhile', `work goes to the ${provider.fallback} compressor`) : [],
                d.agent?.chosenBy ? row('Chosen by', d.agent.chosenBy) : [],
                budget?.dailyTokens ? row('Today', `${formatCount(budget.usedToday ?? 0)} of ${formatCount(budget.dailyTokens)} tokens`) : [],
                d.agent?.windows ? row('VS Code windows', `${d.agent.windows.length} lending a model`) : [],
                provider.lastError ? row('Last error', provider.lastError) : [],
              ),
              providerState === 'paused' || providerState === 'backoff'
                ? h('vscode-button', { secondary: true, class: 'resume-provider', onclick: cb.resumeProvider }, icon('debug-start'), 'Resume provider')
                : null,
            ]
          : h('p', { class: 'muted' }, 'Unknown until the worker answers.'),
      ),
      card(
        'Queue',
        'list-ordered',
        queue
          ? [
              h('div', { class: 'big' }, formatCount(queue.pending)),
              h('p', { class: 'muted' }, `waiting · ${queue.inFlight} in progress · ${dead.length} failed`),
              dead.length
                ? h(
                    'div',
                    null,
                    h('ul', { class: 'dead-list' }, dead.slice(0, 10).map((j) => h('li', null, `#${j.id} ${j.kind} (session ${j.sessionDbId}, ${j.attempts} attempts): ${j.lastError ?? 'no error recorded'}`))),
                    h('vscode-button', { secondary: true, class: 'retry-dead', onclick: cb.retryDead }, icon('debug-restart'), ' Retry failed jobs'),
                  )
                : null,
            ]
          : h('p', { class: 'muted' }, 'Unknown until the worker answers.'),
      ),
      card(
        'Stored',
        'database',
        stats
          ? h(
              'dl',
              { class: 'meta-grid' },
              row('Observations', formatCount(stats.observations)),
              row('Sessions', formatCount(stats.sessions)),
              row('Prompts', formatCount(stats.prompts)),
              row('Summaries', formatCount(stats.summaries)),
            )
          : h('p', { class: 'muted' }, 'Unknown until the worker answers.'),
      ),
      search
        ? card(
            'Search index',
            'search',
            h(
              'dl',
              { class: 'meta-grid' },
              row('Embeddings', [search.embeddings?.provider, search.embeddings?.model].filter(Boolean).join(', ') || 'off'),
              row('State', search.embeddings?.state ?? 'unknown'),
              row('Indexed', `${formatCount(search.indexed?.observations ?? 0)} observations, ${formatCount(search.indexed?.summaries ?? 0)} summaries`),
              row('Waiting', formatCount(search.pending ?? 0)),
              search.embeddings?.lastError ? row('Last error', search.embeddings.lastError) : [],
              (search.problems ?? []).length ? row('Problems', (search.problems ?? []).join('; ')) : [],
            ),
          )
        : null,
      card(
        d.project ? `Token economics: ${d.project}` : 'Token economics: all projects',
        'graph',
        e && e.observations > 0
          ? [
              h(
                'p',
                null,
                `Reading ${formatCount(e.observations)} observation${e.observations === 1 ? '' : 's'}${d.economicsPartial ? ' (the most recent)' : ''} costs about `,
                h('strong', null, `${formatCount(e.readTokens)} tokens`),
                `; the work they record took ${formatCount(e.workTokens)}.`,
              ),
              e.savedPercent === undefined
                ? h('p', { class: 'muted' }, 'No work tokens recorded yet.')
                : e.savedPercent > 0
                  ? [
                      h('div', { class: 'meter', role: 'meter', 'aria-label': 'Tokens saved by reading memory', 'aria-valuemin': 0, 'aria-valuemax': 100, 'aria-valuenow': e.savedPercent }, meterFill(e.savedPercent)),
                      h('p', { class: 'muted' }, `${e.savedPercent}% fewer tokens than redoing the work.`),
                    ]
                  : h('p', { class: 'muted' }, 'Here memory is not smaller than the work it records (the tools saw little); the saving grows with longer sessions.'),
              h('p', { class: 'muted' }, `Compressing them used ${formatCount(e.modelTokens)} model tokens${stats ? ` (${formatCount(stats.tokens.modelInput + stats.tokens.modelOutput)} for all memory)` : ''}.`),
            ]
          : h('p', { class: 'muted' }, 'No observations yet, so nothing to count.'),
      ),
    ),
  );
}

/** Degraded or read-only storage, with what to do: shown above everything while it lasts. */
function storageNotice(stats: StatsResponse | undefined): HTMLElement | null {
  const st = stats?.storage;
  if (!st?.state || st.state === 'ok') return null;
  return h(
    'div',
    { class: 'notice error storage-degraded', role: 'alert' },
    icon('warning'),
    h('span', { class: 'grow' }, st.message ?? `Memory storage is ${st.state}.`),
  );
}

function meterFill(pct: number): HTMLElement {
  const el = h('div', { class: 'bar-meter' });
  el.style.width = `${Math.max(0, Math.min(100, pct))}%`;
  return el;
}
