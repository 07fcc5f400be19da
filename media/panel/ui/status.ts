// Queue and provider status, totals, and token economics.
import type { AgentStatusResponse, ConnectionState, HealthResponse, QueueResponse, SearchStatus, StatsResponse } from '../../../common/contract';
import { formatBytes, formatCount, formatDuration, h, icon, type Child } from '../dom';
import { l10n } from '../l10n';
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
  connecting: l10n.t('Connecting…'),
  connected: l10n.t('Live: changes appear as they happen'),
  disconnected: l10n.t('Connection lost; retrying'),
  'no-worker': l10n.t('No worker running'),
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
      h('span', { class: 'grow' }, d.loading ? l10n.t('Refreshing…') : l10n.t('Worker, queue and token economics')),
      h('span', { class: 'spacer' }),
      h('button', { type: 'button', class: 'icon-button refresh-status', 'aria-label': l10n.t('Refresh status'), title: l10n.t('Refresh'), onclick: cb.refresh }, icon('refresh')),
    ),
    d.error ? h('div', { class: 'notice error', role: 'alert' }, icon('error'), h('span', { class: 'grow' }, d.error)) : null,
    storageNotice(stats),
    h(
      'div',
      { class: 'cards' },
      card(
        l10n.t('Worker'),
        'server-process',
        h(
          'dl',
          { class: 'meta-grid' },
          row(l10n.t('Stream'), CONNECTION_TEXT[d.connection]),
          health ? row(l10n.t('Version'), health.version) : [],
          health ? row(l10n.t('Port'), String(health.port)) : [],
          stats ? row(l10n.t('Up for'), formatDuration(stats.worker.uptimeMs)) : [],
          stats ? row(l10n.t('Memory'), formatBytes(stats.worker.rssBytes)) : [],
        ),
      ),
      card(
        l10n.t('Compression provider'),
        'sparkle',
        provider.name
          ? [
              h(
                'dl',
                { class: 'meta-grid' },
                row(l10n.t('Provider'), provider.name + (provider.model ? ` (${provider.model})` : '')),
                row(
                  l10n.t('State'),
                  providerState.replace(/_/g, ' ') +
                    (provider.pausedReason ? ` (${provider.pausedReason})` : '') +
                    (provider.until ? ` ${l10n.t('until {0}', new Date(provider.until).toLocaleTimeString())}` : ''),
                ),
                provider.fallback && providerState !== 'ready' ? row(l10n.t('Meanwhile'), l10n.t('work goes to the {0} compressor', provider.fallback)) : [],
                d.agent?.chosenBy ? row(l10n.t('Chosen by'), d.agent.chosenBy) : [],
                budget?.dailyTokens ? row(l10n.t('Today'), l10n.t('{0} of {1} tokens', formatCount(budget.usedToday ?? 0), formatCount(budget.dailyTokens))) : [],
                d.agent?.windows ? row(l10n.t('VS Code windows'), l10n.t('{0} lending a model', d.agent.windows.length)) : [],
                provider.lastError ? row(l10n.t('Last error'), provider.lastError) : [],
              ),
              providerState === 'paused' || providerState === 'backoff'
                ? h('vscode-button', { secondary: true, class: 'resume-provider', onclick: cb.resumeProvider }, icon('debug-start'), l10n.t('Resume provider'))
                : null,
            ]
          : h('p', { class: 'muted' }, l10n.t('Unknown until the worker answers.')),
      ),
      card(
        l10n.t('Queue'),
        'list-ordered',
        queue
          ? [
              h('div', { class: 'big' }, formatCount(queue.pending)),
              h('p', { class: 'muted' }, l10n.t('waiting · {0} in progress · {1} failed', queue.inFlight, dead.length)),
              dead.length
                ? h(
                    'div',
                    null,
                    h(
                      'ul',
                      { class: 'dead-list' },
                      dead.slice(0, 10).map((j) => h('li', null, l10n.t('#{0} {1} (session {2}, {3} attempts): {4}', j.id, j.kind, j.sessionDbId, j.attempts, j.lastError ?? l10n.t('no error recorded')))),
                    ),
                    h('vscode-button', { secondary: true, class: 'retry-dead', onclick: cb.retryDead }, icon('debug-restart'), ` ${l10n.t('Retry failed jobs')}`),
                  )
                : null,
            ]
          : h('p', { class: 'muted' }, l10n.t('Unknown until the worker answers.')),
      ),
      card(
        l10n.t('Stored'),
        'database',
        stats
          ? h(
              'dl',
              { class: 'meta-grid' },
              row(l10n.t('Observations'), formatCount(stats.observations)),
              row(l10n.t('Sessions'), formatCount(stats.sessions)),
              row(l10n.t('Prompts'), formatCount(stats.prompts)),
              row(l10n.t('Summaries'), formatCount(stats.summaries)),
            )
          : h('p', { class: 'muted' }, l10n.t('Unknown until the worker answers.')),
      ),
      search
        ? card(
            l10n.t('Search index'),
            'search',
            h(
              'dl',
              { class: 'meta-grid' },
              row(l10n.t('Embeddings'), [search.embeddings?.provider, search.embeddings?.model].filter(Boolean).join(', ') || l10n.t('off')),
              row(l10n.t('State'), search.embeddings?.state ?? l10n.t('unknown')),
              row(l10n.t('Indexed'), l10n.t('{0} observations, {1} summaries', formatCount(search.indexed?.observations ?? 0), formatCount(search.indexed?.summaries ?? 0))),
              row(l10n.t('Waiting'), formatCount(search.pending ?? 0)),
              search.embeddings?.lastError ? row(l10n.t('Last error'), search.embeddings.lastError) : [],
              (search.problems ?? []).length ? row(l10n.t('Problems'), (search.problems ?? []).join('; ')) : [],
            ),
          )
        : null,
      card(
        d.project ? l10n.t('Token economics: {0}', d.project) : l10n.t('Token economics: all projects'),
        'graph',
        e && e.observations > 0
          ? [
              h(
                'p',
                null,
                // {1} is the strong "N tokens".
                around(
                  e.observations === 1
                    ? l10n.t('Reading {0} observation costs about {1}; the work they record took {2}.', formatCount(e.observations), MARK, formatCount(e.workTokens))
                    : d.economicsPartial
                      ? l10n.t('Reading {0} observations (the most recent) costs about {1}; the work they record took {2}.', formatCount(e.observations), MARK, formatCount(e.workTokens))
                      : l10n.t('Reading {0} observations costs about {1}; the work they record took {2}.', formatCount(e.observations), MARK, formatCount(e.workTokens)),
                  h('strong', null, l10n.t('{0} tokens', formatCount(e.readTokens))),
                ),
              ),
              e.savedPercent === undefined
                ? h('p', { class: 'muted' }, l10n.t('No work tokens recorded yet.'))
                : e.savedPercent > 0
                  ? [
                      h(
                        'div',
                        { class: 'meter', role: 'meter', 'aria-label': l10n.t('Tokens saved by reading memory'), 'aria-valuemin': 0, 'aria-valuemax': 100, 'aria-valuenow': e.savedPercent },
                        meterFill(e.savedPercent),
                      ),
                      h('p', { class: 'muted' }, l10n.t('{0}% fewer tokens than redoing the work.', e.savedPercent)),
                    ]
                  : h('p', { class: 'muted' }, l10n.t('Here memory is not smaller than the work it records (the tools saw little); the saving grows with longer sessions.')),
              h(
                'p',
                { class: 'muted' },
                stats
                  ? l10n.t('Compressing them used {0} model tokens ({1} for all memory).', formatCount(e.modelTokens), formatCount(stats.tokens.modelInput + stats.tokens.modelOutput))
                  : l10n.t('Compressing them used {0} model tokens.', formatCount(e.modelTokens)),
              ),
            ]
          : h('p', { class: 'muted' }, l10n.t('No observations yet, so nothing to count.')),
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
    h('span', { class: 'grow' }, st.message ?? l10n.t('Memory storage is {0}.', st.state)),
  );
}

/** Stands for an element inside a translated sentence (see around). */
const MARK = '\u0000';

/** A translated sentence formatted with MARK where an element goes, with the element put there. */
function around(sentence: string, el: HTMLElement): Child[] {
  const i = sentence.indexOf(MARK);
  return i < 0 ? [sentence, ' ', el] : [sentence.slice(0, i), el, sentence.slice(i + MARK.length)];
}

function meterFill(pct: number): HTMLElement {
  const el = h('div', { class: 'bar-meter' });
  el.style.width = `${Math.max(0, Math.min(100, pct))}%`;
  return el;
}
