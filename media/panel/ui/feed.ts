// The list pane from the state: the feed grouped by session, or search results, with the head
// line ("12 observations in 3 sessions, newest first"), notices, the empty and error states, and
// the "more" button.
import { h, icon } from '../dom';
import { l10n } from '../l10n';
import { filtersActive } from '../model';
import type { PanelState } from '../state';
import { renderFeed, renderRows, settleTabStop, type ListCallbacks } from './list';

/** The elements the list pane renders into. */
export interface FeedParts {
  list: HTMLElement;
  listHead: HTMLElement;
  notice: HTMLElement;
  more: HTMLElement;
}

export interface FeedCallbacks extends ListCallbacks {
  reload(): void;
  /** The next page of search results. */
  moreResults(): void;
  /** The next page of the feed. */
  loadMore(): void;
  clearFilters(): void;
  /** Leaves the project for all projects. */
  showAll(): void;
}

/** "12 observations in 3 sessions, newest first", over the feed. */
function feedHead(observations: number, sessions: number, filtered: boolean): string {
  const head =
    observations === 1
      ? sessions === 1
        ? l10n.t('{0} observation in {1} session', observations, sessions)
        : l10n.t('{0} observation in {1} sessions', observations, sessions)
      : sessions === 1
        ? l10n.t('{0} observations in {1} session', observations, sessions)
        : l10n.t('{0} observations in {1} sessions', observations, sessions);
  return filtered ? l10n.t('{0} (filtered), newest first', head) : l10n.t('{0}, newest first', head);
}

function empty(cb: FeedCallbacks, iconName: string, title: string, text: string, clear: boolean, extra?: HTMLElement): HTMLElement {
  return h(
    'div',
    { class: 'empty', role: 'status' },
    icon(iconName),
    h('p', null, h('strong', null, title)),
    h('p', null, text),
    clear ? h('vscode-button', { secondary: true, class: 'clear-filters-empty', onclick: () => cb.clearFilters() }, l10n.t('Clear filters')) : null,
    extra ?? null,
  );
}

export function renderList(parts: FeedParts, s: PanelState, host: 'webview' | 'browser', cb: FeedCallbacks): void {
  const { list, listHead, notice, more } = parts;
  const focused = document.activeElement instanceof HTMLElement && list.contains(document.activeElement) ? document.activeElement.dataset.key : undefined;
  const opts = { fresh: s.fresh, selectedId: s.selectedId, showProject: s.project === undefined };
  notice.replaceChildren();
  more.replaceChildren();
  if (s.searchUnavailable && (s.query.trim() || filtersActive(s.filters))) {
    notice.append(
      h(
        'div',
        { class: 'notice warning search-unavailable', role: 'status' },
        icon('info'),
        h('span', { class: 'grow' }, l10n.t('Search is not available from this worker yet (it has no /api/search route), so your words and filters narrow the loaded feed instead. Update the worker for ranked search over all memory.')),
      ),
    );
  }
  if (s.connection === 'no-worker' && s.connectionDetail) {
    notice.append(h('div', { class: 'notice error', role: 'status' }, icon('debug-disconnect'), h('span', { class: 'grow' }, s.connectionDetail)));
  }
  if (s.load.state === 'loading') {
    listHead.textContent = l10n.t('Loading memory…');
    list.replaceChildren(h('div', { class: 'empty' }, h('vscode-progress-ring', { 'aria-label': l10n.t('Loading memory') })));
    return;
  }
  if (s.load.state === 'error') {
    listHead.textContent = '';
    list.replaceChildren(
      h(
        'div',
        { class: 'empty error-state', role: 'alert' },
        icon('error'),
        h('p', null, h('strong', null, l10n.t('Memory could not be loaded.'))),
        h('p', null, s.load.message),
        h(
          'p',
          { class: 'muted' },
          host === 'webview'
            ? l10n.t('Check that the worker runs: "Claude Mem: Restart Worker" in the Command Palette, and the "Claude Mem" output for errors.')
            : l10n.t('Check that the worker runs (node dist/cli.js status); if it was restarted, open the viewer again with node dist/cli.js viewer.'),
        ),
        h('vscode-button', { class: 'retry-load', onclick: () => cb.reload() }, icon('refresh'), ` ${l10n.t('Try again')}`),
      ),
    );
    return;
  }
  if (s.searching() && s.search) {
    const r = s.search;
    if (r.state === 'loading') {
      listHead.textContent = l10n.t('Searching for “{0}”…', s.query.trim());
      list.replaceChildren(h('div', { class: 'empty' }, h('vscode-progress-ring', { 'aria-label': l10n.t('Searching') })));
    } else if (r.state === 'error') {
      listHead.textContent = '';
      list.replaceChildren(h('div', { class: 'empty error-state', role: 'alert' }, icon('error'), h('p', null, l10n.t('Search failed: {0}', r.message)), h('p', { class: 'muted' }, l10n.t('Change the words or filters and try again.'))));
    } else {
      const rows = r.list.rows;
      const words = s.query.trim();
      const mode = r.list.modeUsed && r.list.modeUsed !== 'browse' ? r.list.modeUsed : s.mode;
      const count = `${rows.length}${r.list.hasMore ? '+' : ''}`;
      const one = rows.length === 1;
      listHead.textContent = words
        ? one
          ? l10n.t('{0} result for “{1}” ({2})', count, words, mode)
          : l10n.t('{0} results for “{1}” ({2})', count, words, mode)
        : one
          ? l10n.t('{0} result matching the filters, newest first', count)
          : l10n.t('{0} results matching the filters, newest first', count);
      if (r.list.hasMore) more.append(h('vscode-button', { secondary: true, class: 'more-results', onclick: () => cb.moreResults() }, l10n.t('More results')));
      if (r.list.notice) notice.append(h('div', { class: 'notice', role: 'status' }, icon('info'), h('span', { class: 'grow' }, r.list.notice)));
      list.replaceChildren(
        rows.length
          ? renderRows(rows, opts, cb, l10n.t('Search results'))
          : empty(
              cb,
              'search',
              l10n.t('Nothing matches.'),
              words
                ? filtersActive(s.filters)
                  ? l10n.t('No memory matches “{0}” with these filters. Try other words, another search mode, or clear the filters.', words)
                  : l10n.t('No memory matches “{0}”. Try other words, another search mode, or clear the filters.', words)
                : l10n.t('No memory matches these filters. Loosen or clear them to see more.'),
              filtersActive(s.filters),
            ),
      );
    }
    settleTabStop(list, focused, s.selectedId);
    return;
  }
  const filters = s.localFilters();
  const groups = s.feed.groups(filters);
  const count = groups.reduce((n, g) => n + g.entries.filter((x) => x.kind === 'observation').length, 0);
  listHead.textContent = groups.length ? feedHead(count, groups.length, filtersActive(filters)) : '';
  if (groups.length) {
    list.replaceChildren(renderFeed(groups, opts, cb));
    if (s.hasMore && !filtersActive(filters)) more.append(h('vscode-button', { secondary: true, class: 'load-more', onclick: () => cb.loadMore() }, l10n.t('Load older observations')));
  } else if (filtersActive(filters)) {
    list.replaceChildren(empty(cb, 'filter', l10n.t('Nothing matches these filters.'), l10n.t('Loosen or clear the filters to see more.'), true));
  } else if (s.project) {
    list.replaceChildren(
      empty(
        cb,
        'inbox',
        l10n.t('No memory for {0} yet.', s.project),
        l10n.t('Work in this project (Claude Code or VS Code) and observations appear here as they are made; or save one by hand in the Save tab.'),
        false,
        h('vscode-button', { secondary: true, class: 'show-all', onclick: () => cb.showAll() }, l10n.t('Show all projects')),
      ),
    );
  } else {
    list.replaceChildren(
      empty(
        cb,
        'inbox',
        l10n.t('No memory yet.'),
        l10n.t('Work in a session (Claude Code, or VS Code with capture on) and observations appear here as they are made. You can also save one by hand in the Save tab.'),
        false,
      ),
    );
  }
  settleTabStop(list, focused, s.selectedId);
}
