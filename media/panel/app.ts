// The Memory panel app: one codebase for the VS Code webview and the browser viewer. It holds
// the state, reacts to the live event stream, and renders; the transport does the talking.
import {
  OBSERVATION_TYPES,
  parseObservation,
  parseObservationList,
  parseObservationsBatch,
  parseSearchResponse,
  parseSessionList,
  parseTimelineResponse,
  SEARCH_MODES,
  type ConnectionState,
  type Observation,
  type ProjectInfo,
  type SearchMode,
  type StreamEvent,
} from '../../common/contract';
import { formatCount, h, icon, modeLabel, typeLabel } from './dom';
import { l10n } from './l10n';
import { economics, FeedState, filtersActive, matchesAuthor, PLATFORM_LABELS, searchRows, sessionLite, timelineRows, type Filters, type RowList, type SessionGroup } from './model';
import { ApiError, type HostInfo, type Transport } from './transport';
import { confirmDialog } from './ui/confirm';
import { renderDetail, type TimelineState } from './ui/detail';
import { attachRovingNav, renderFeed, renderRows, settleTabStop, type ListCallbacks } from './ui/list';
import { saveForm, type SaveForm } from './ui/save';
import { renderStatus, type StatusData } from './ui/status';

const PAGE = 100;
const SESSIONS = 200;
const ECONOMICS_LIMIT = 1000;
const SEARCH_PAGE = 50;

type Field = HTMLElement & { value: string };
type SearchState = { state: 'loading' } | { state: 'ready'; list: RowList } | { state: 'error'; message: string };

const CONNECTION_LABEL: Record<ConnectionState, string> = {
  connecting: l10n.t('Connecting'),
  connected: l10n.t('Live'),
  disconnected: l10n.t('Reconnecting'),
  'no-worker': l10n.t('No worker'),
};

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

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export class App {
  private readonly feed = new FeedState();
  private info: HostInfo = { capabilities: { openFiles: false, pauseCapture: false } };
  private project: string | undefined;
  private projects: ProjectInfo[] = [];
  private filters: Filters = {};
  private query = '';
  private mode: SearchMode = 'hybrid';
  private search: SearchState | undefined;
  private searchSeq = 0;
  private searchUnavailable = false;
  private view: 'list' | 'detail' = 'list';
  private selectedId: number | undefined;
  private detail: Observation | undefined;
  private detailNote: string | undefined;
  private timeline: TimelineState = { state: 'idle' };
  private load: { state: 'loading' } | { state: 'ready' } | { state: 'error'; message: string } = { state: 'loading' };
  private loadSeq = 0;
  private hasMore = false;
  private serverCount = 0;
  private connection: ConnectionState = 'connecting';
  private connectionDetail: string | undefined;
  private capturePaused: boolean | undefined;
  private readonly fresh = new Set<string>();
  private readonly hydrate = new Set<number>();
  private statusData: StatusData = { connection: 'connecting', loading: false };
  private statusVisible = false;
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();

  // elements
  private readonly el = {} as {
    conn: HTMLElement;
    pause: HTMLElement;
    alert: HTMLElement;
    announce: HTMLElement;
    project: Field;
    forgetProject: HTMLButtonElement;
    query: Field;
    filterToggle: HTMLButtonElement;
    filters: HTMLElement;
    type: Field;
    platform: Field;
    concept: Field;
    author: Field;
    dateStart: Field;
    dateEnd: Field;
    mode: Field;
    memory: HTMLElement;
    notice: HTMLElement;
    listHead: HTMLElement;
    list: HTMLElement;
    more: HTMLElement;
    detail: HTMLElement;
    status: HTMLElement;
    tabs: HTMLElement & { selectedIndex: number };
  };
  private save!: SaveForm;

  constructor(
    private readonly t: Transport,
    private readonly root: HTMLElement,
  ) {}

  async start(): Promise<void> {
    this.build();
    this.info = await this.t.start({
      event: (e) => this.onEvent(e),
      connection: (s, d) => this.onConnection(s, d),
      capture: (paused) => {
        this.capturePaused = paused;
        this.renderHeader();
      },
    });
    this.project = this.info.project;
    this.capturePaused = this.info.capturePaused;
    this.save.setDefaultProject(this.project);
    this.renderHeader();
    this.root.removeAttribute('aria-busy');
    await Promise.all([this.loadProjects(), this.reload()]);
  }

  // ---- building the page ----------------------------------------------------------------

  private build(): void {
    const e = this.el;
    const browser = this.t.host === 'browser';
    e.conn = h('span', { class: 'conn', role: 'status', 'aria-live': 'polite' });
    e.pause = h('vscode-button', { secondary: true, class: 'pause-capture', hidden: true, onclick: () => this.t.toggleCapture() });
    e.alert = h('div', { class: 'alerts', role: 'alert' });
    e.announce = h('div', { class: 'sr-only', 'aria-live': 'polite', 'aria-atomic': 'true' });

    e.project = h('vscode-single-select', { class: 'project-select', label: l10n.t('Project'), 'aria-label': l10n.t('Project') }) as Field;
    e.project.addEventListener('change', () => this.setProject(e.project.value || undefined));
    e.forgetProject = h(
      'button',
      { type: 'button', class: 'icon-button forget-project', 'aria-label': l10n.t('Forget this project'), title: l10n.t('Forget this project…'), disabled: true, onclick: () => void this.forgetProject() },
      icon('trash'),
    );

    e.query = h('vscode-textfield', { class: 'grow search-field', type: 'search', placeholder: l10n.t('Search memory'), label: l10n.t('Search memory') }) as Field;
    e.query.addEventListener('input', () => this.debounce('query', 300, () => this.setQuery(e.query.value)));
    e.query.addEventListener('keydown', (ev) => {
      if ((ev as KeyboardEvent).key === 'Enter') this.setQuery(e.query.value, true);
    });
    e.filters = h('div', { class: 'filters', id: 'filters', hidden: true, role: 'group', 'aria-label': l10n.t('Filters') });
    e.filterToggle = h(
      'button',
      { type: 'button', class: 'icon-button filter-toggle', 'aria-label': l10n.t('Filters'), 'aria-expanded': 'false', 'aria-controls': 'filters', title: l10n.t('Filters'), onclick: () => this.toggleFilters() },
      icon('filter'),
      h('span', { class: 'count' }),
    );
    e.type = h(
      'vscode-single-select',
      { class: 'type-filter', label: l10n.t('Type'), 'aria-label': l10n.t('Type') },
      h('vscode-option', { value: '' }, l10n.t('All types')),
      OBSERVATION_TYPES.map((type) => h('vscode-option', { value: type }, typeLabel(type))),
    ) as Field;
    e.concept = h('vscode-textfield', { class: 'concept-filter', label: l10n.t('Concept'), placeholder: l10n.t('e.g. gotcha') }) as Field;
    e.platform = h(
      'vscode-single-select',
      { class: 'platform-filter', label: l10n.t('Platform'), 'aria-label': l10n.t('Platform') },
      h('vscode-option', { value: '' }, l10n.t('All platforms')),
      Object.entries(PLATFORM_LABELS).map(([v, label]) => h('vscode-option', { value: v }, label)),
    ) as Field;
    e.author = h('vscode-textfield', { class: 'author-filter', label: l10n.t('Author'), placeholder: l10n.t('me, or a teammate') }) as Field;
    e.dateStart = h('vscode-textfield', { class: 'date-start', type: 'date', label: l10n.t('From date') }) as Field;
    e.dateEnd = h('vscode-textfield', { class: 'date-end', type: 'date', label: l10n.t('To date') }) as Field;
    e.mode = h(
      'vscode-single-select',
      { class: 'mode-select', label: l10n.t('Search mode'), 'aria-label': l10n.t('Search mode') },
      SEARCH_MODES.map((m) => h('vscode-option', { value: m }, modeLabel(m))),
    ) as Field;
    e.type.addEventListener('change', () => this.setFilters({ type: e.type.value || undefined }));
    e.platform.addEventListener('change', () => this.setFilters({ platform: e.platform.value || undefined }));
    e.concept.addEventListener('input', () => this.debounce('concept', 300, () => this.setFilters({ concept: e.concept.value.trim() || undefined })));
    e.author.addEventListener('input', () => this.debounce('author', 300, () => this.setFilters({ author: e.author.value.trim() || undefined })));
    e.dateStart.addEventListener('change', () => this.setFilters({ dateStart: e.dateStart.value || undefined }));
    e.dateEnd.addEventListener('change', () => this.setFilters({ dateEnd: e.dateEnd.value || undefined }));
    e.mode.addEventListener('change', () => {
      this.mode = (SEARCH_MODES as readonly string[]).includes(e.mode.value) ? (e.mode.value as SearchMode) : 'hybrid';
      if (this.searching()) void this.runSearch();
    });
    const field = (label: string, control: HTMLElement) => h('div', { class: 'field' }, h('span', { class: 'label', 'aria-hidden': 'true' }, label), control);
    e.filters.append(
      field(l10n.t('Type'), e.type),
      field(l10n.t('Platform'), e.platform),
      field(l10n.t('Concept'), e.concept),
      field(l10n.t('Author'), e.author),
      field(l10n.t('From'), e.dateStart),
      field(l10n.t('To'), e.dateEnd),
      field(l10n.t('Search mode'), e.mode),
      h('div', { class: 'field' }, h('vscode-button', { secondary: true, class: 'clear-filters', onclick: () => this.clearFilters() }, icon('clear-all'), ` ${l10n.t('Clear')}`)),
    );

    e.notice = h('div', { class: 'list-notice' });
    e.listHead = h('div', { class: 'list-head', 'aria-live': 'polite' });
    e.list = h('div', { class: 'list', role: 'region', 'aria-label': l10n.t('Memory') });
    attachRovingNav(e.list, { remove: (id) => void this.remove(id) });
    // A highlight plays once: a panel shown again (tabs) would replay it.
    for (const end of ['animationend', 'animationcancel']) e.list.addEventListener(end, (ev) => (ev.target as HTMLElement).classList.remove('fresh'));
    e.more = h('div', { class: 'more' });
    e.detail = h('div', { class: 'detail-host' });
    e.memory = h(
      'div',
      { class: 'memory', 'data-view': 'list' },
      h(
        'div',
        { class: 'list-pane' },
        h('div', { class: 'controls', role: 'search' }, h('div', { class: 'control-row' }, e.query, e.filterToggle), e.filters),
        e.notice,
        e.listHead,
        e.list,
        e.more,
      ),
      h('div', { class: 'detail-pane' }, e.detail),
    );
    e.status = h('div', { class: 'status-host' });
    this.save = saveForm((v) => this.saveMemory(v));

    e.tabs = h(
      'vscode-tabs',
      { class: 'tabs', 'selected-index': 0 },
      h('vscode-tab-header', { slot: 'header', class: 'tab-memory' }, l10n.t('Memory')),
      h('vscode-tab-panel', null, h('div', { class: 'tab-body' }, e.memory)),
      h('vscode-tab-header', { slot: 'header', class: 'tab-status' }, l10n.t('Status')),
      h('vscode-tab-panel', null, h('div', { class: 'tab-body' }, e.status)),
      h('vscode-tab-header', { slot: 'header', class: 'tab-save' }, l10n.t('Save')),
      h('vscode-tab-panel', null, h('div', { class: 'tab-body' }, this.save.element)),
    ) as HTMLElement & { selectedIndex: number };
    e.tabs.addEventListener('vsc-tabs-select', (ev) => {
      this.statusVisible = (ev as CustomEvent<{ selectedIndex: number }>).detail.selectedIndex === 1;
      if (this.statusVisible) void this.refreshStatus();
    });

    this.root.replaceChildren(
      h(
        'div',
        { class: 'app' },
        h(
          'header',
          { class: 'bar' },
          h('h1', { class: browser ? '' : 'sr-only' }, l10n.t('Memory')),
          e.conn,
          h('span', { class: 'spacer' }),
          e.pause,
        ),
        h('div', { class: 'controls' }, h('div', { class: 'control-row' }, h('span', { class: 'label muted', 'aria-hidden': 'true' }, l10n.t('Project')), e.project, e.forgetProject)),
        e.alert,
        e.tabs,
        e.announce,
      ),
    );
    this.renderProjects();
    this.renderDetail();
    this.renderStatus();

    document.addEventListener('keydown', (ev) => {
      if (document.querySelector('dialog[open]')) return;
      const inField = (ev.target as HTMLElement).closest?.('vscode-textfield, vscode-textarea, vscode-single-select, input, textarea');
      if (ev.key === 'Escape' && this.view === 'detail' && !inField) {
        ev.preventDefault();
        this.back();
      } else if (ev.key === '/' && !inField && !ev.ctrlKey && !ev.metaKey) {
        ev.preventDefault();
        this.el.tabs.selectedIndex = 0;
        this.el.query.focus();
      }
    });
  }

  // ---- header and projects --------------------------------------------------------------

  private renderHeader(): void {
    const { conn, pause } = this.el;
    conn.dataset.state = this.connection;
    conn.replaceChildren(h('span', { class: 'dot', 'aria-hidden': 'true' }), CONNECTION_LABEL[this.connection]);
    conn.title = this.connectionDetail ?? CONNECTION_LABEL[this.connection];
    if (this.info.capabilities.pauseCapture) {
      pause.hidden = false;
      const paused = this.capturePaused;
      pause.replaceChildren(icon(paused ? 'play' : 'debug-pause'), ` ${paused === undefined ? l10n.t('Pause / resume capture') : paused ? l10n.t('Resume capture') : l10n.t('Pause capture')}`);
      if (paused !== undefined) pause.setAttribute('aria-pressed', String(paused));
      pause.title = paused ? l10n.t('Capture is paused: nothing new is recorded from this window') : l10n.t('Stop recording what happens in this window');
    }
  }

  private renderProjects(): void {
    const names = this.projects.map((p) => p.name);
    const options = [h('vscode-option', { value: '' }, l10n.t('All projects'))];
    for (const p of this.projects) options.push(h('vscode-option', { value: p.name, description: l10n.t('{0} observations', p.observations) }, `${p.name} (${formatCount(p.observations)})`));
    if (this.project && !names.includes(this.project)) options.push(h('vscode-option', { value: this.project }, l10n.t('{0} (no memory yet)', this.project)));
    this.el.project.replaceChildren(...options);
    this.el.project.value = this.project ?? '';
    this.el.forgetProject.disabled = !this.project || !names.includes(this.project);
    this.el.forgetProject.setAttribute('aria-label', this.project ? l10n.t('Forget project {0}', this.project) : l10n.t('Forget this project (choose a project first)'));
  }

  private async loadProjects(): Promise<void> {
    try {
      const r = await this.t.request('projects', {});
      this.projects = Array.isArray(r.projects) ? r.projects.filter((p) => p && typeof p.name === 'string') : [];
      this.renderProjects();
    } catch {
      /* the list load reports errors */
    }
  }

  private setProject(project: string | undefined): void {
    if (project === this.project) return;
    this.project = project;
    this.save.setDefaultProject(project);
    this.renderProjects();
    this.closeDetail();
    void this.reload();
    if (this.searching()) void this.runSearch();
    if (this.statusVisible) void this.refreshStatus();
  }

  // ---- loading --------------------------------------------------------------------------

  async reload(): Promise<void> {
    const seq = ++this.loadSeq;
    if (this.load.state !== 'ready') this.load = { state: 'loading' };
    this.renderList();
    try {
      const [obs, sessions, history] = await Promise.all([
        this.t.request('observations', { project: this.project, limit: PAGE }),
        this.t.request('sessions', { project: this.project, limit: SESSIONS }),
        // Stored prompts and summaries for the feed; only the search module lists them.
        this.t.request('search', { query: '', kind: 'summary,prompt', project: this.project, limit: PAGE }).catch(() => undefined),
      ]);
      if (seq !== this.loadSeq) return;
      const list = parseObservationList(obs).items;
      this.serverCount = list.length;
      this.hasMore = list.length >= PAGE;
      this.feed.reset(this.project, list, parseSessionList(sessions).items.map(sessionLite));
      // With older observations not loaded yet, older history would sit in the wrong place.
      if (history !== undefined) this.feed.addHistory(searchRows(parseSearchResponse(history)).rows, this.hasMore ? Math.min(...list.map((o) => o.createdAtEpoch)) : 0);
      this.load = { state: 'ready' };
    } catch (e) {
      if (seq !== this.loadSeq) return;
      this.load = { state: 'error', message: messageOf(e) };
    }
    this.renderList();
    if (this.detail && !this.feed.observations.has(this.detail.id) && this.load.state === 'ready') void this.open(this.detail.id, false);
  }

  private async loadMore(): Promise<void> {
    try {
      const r = await this.t.request('observations', { project: this.project, limit: PAGE, offset: this.serverCount });
      const list = parseObservationList(r).items;
      this.serverCount += list.length;
      this.hasMore = list.length >= PAGE;
      for (const o of list) this.feed.addObservation(o);
      this.renderList();
      this.announce(l10n.t('{0} more observations loaded', list.length));
    } catch (e) {
      this.showError(l10n.t('Could not load more: {0}', messageOf(e)));
    }
  }

  // ---- search and filters ---------------------------------------------------------------

  /** Words or filters go to the worker's search route (over all memory, not only what is loaded). */
  private searching(): boolean {
    return (this.query.trim() !== '' || filtersActive(this.filters)) && !this.searchUnavailable;
  }

  /** Without the search route, words and filters narrow the loaded feed instead. */
  private localFilters(): Filters {
    if (!this.searchUnavailable) return {};
    return { ...this.filters, ...(this.query.trim() ? { text: this.query } : {}) };
  }

  private setQuery(q: string, now = false): void {
    this.clearTimer('query');
    if (q === this.query && !now) return;
    this.query = q;
    if (this.searching()) void this.runSearch();
    else {
      this.searchSeq++;
      this.search = undefined;
      this.renderList();
    }
  }

  private setFilters(patch: Partial<Filters>): void {
    this.filters = { ...this.filters, ...patch };
    for (const k of Object.keys(this.filters) as (keyof Filters)[]) if (!this.filters[k]) delete this.filters[k];
    const n = Object.keys(this.filters).length;
    this.el.filterToggle.querySelector('.count')!.textContent = n ? String(n) : '';
    this.el.filterToggle.setAttribute('aria-label', n ? l10n.t('Filters ({0} active)', n) : l10n.t('Filters'));
    if (this.searching()) void this.runSearch();
    else {
      this.searchSeq++;
      this.search = undefined;
      this.renderList();
    }
  }

  private clearFilters(): void {
    const e = this.el;
    e.type.value = '';
    e.platform.value = '';
    e.concept.value = '';
    e.author.value = '';
    e.dateStart.value = '';
    e.dateEnd.value = '';
    e.query.value = '';
    this.query = '';
    this.search = undefined;
    this.setFilters({ type: undefined, platform: undefined, concept: undefined, author: undefined, dateStart: undefined, dateEnd: undefined });
    this.announce(l10n.t('Filters cleared'));
  }

  private toggleFilters(force?: boolean): void {
    const open = force ?? this.el.filters.hidden;
    this.el.filters.hidden = !open;
    this.el.filterToggle.setAttribute('aria-expanded', String(open));
    this.el.filterToggle.setAttribute('aria-pressed', String(open));
  }

  private async runSearch(more = false): Promise<void> {
    const seq = ++this.searchSeq;
    const previous = this.search?.state === 'ready' ? this.search.list : undefined;
    if (!previous) this.search = { state: 'loading' };
    this.renderList();
    try {
      const r = await this.t.request('search', {
        query: this.query.trim(),
        project: this.project,
        platform: this.filters.platform,
        type: this.filters.type,
        concepts: this.filters.concept,
        dateStart: this.filters.dateStart,
        dateEnd: this.filters.dateEnd,
        mode: this.mode,
        limit: SEARCH_PAGE,
        offset: more && previous ? previous.rows.length : 0,
      });
      if (seq !== this.searchSeq) return;
      const list = searchRows(parseSearchResponse(r));
      // The worker does not filter by author: rows are kept or dropped here (team memory).
      list.rows = list.rows.filter((x) => matchesAuthor(x.team, this.filters));
      if (more && previous) {
        const seen = new Set(previous.rows.map((x) => x.key));
        list.rows = [...previous.rows, ...list.rows.filter((x) => !seen.has(x.key))];
      }
      this.search = { state: 'ready', list };
      this.announce(list.rows.length === 1 ? l10n.t('{0} result', list.rows.length) : l10n.t('{0} results', list.rows.length));
    } catch (e) {
      if (seq !== this.searchSeq) return;
      if (e instanceof ApiError && e.routeMissing) {
        // An older worker, or the search module not there yet: filter what is loaded instead.
        this.searchUnavailable = true;
        this.search = undefined;
      } else {
        this.search = { state: 'error', message: messageOf(e) };
      }
    }
    this.renderList();
  }

  // ---- rendering the list ---------------------------------------------------------------

  private listCallbacks(): ListCallbacks {
    return {
      open: (id) => void this.open(id),
      remove: (id) => void this.remove(id),
      forgetSession: (g) => void this.forgetSession(g),
    };
  }

  private scheduleRender(): void {
    this.debounce('render', 30, () => this.renderList());
  }

  private renderList(): void {
    const { list, listHead, notice, more } = this.el;
    const focused = document.activeElement instanceof HTMLElement && list.contains(document.activeElement) ? document.activeElement.dataset.key : undefined;
    const opts = { fresh: this.fresh, selectedId: this.selectedId, showProject: this.project === undefined };
    const cb = this.listCallbacks();
    notice.replaceChildren();
    more.replaceChildren();
    if (this.searchUnavailable && (this.query.trim() || filtersActive(this.filters))) {
      notice.append(
        h(
          'div',
          { class: 'notice warning search-unavailable', role: 'status' },
          icon('info'),
          h('span', { class: 'grow' }, l10n.t('Search is not available from this worker yet (it has no /api/search route), so your words and filters narrow the loaded feed instead. Update the worker for ranked search over all memory.')),
        ),
      );
    }
    if (this.connection === 'no-worker' && this.connectionDetail) {
      notice.append(h('div', { class: 'notice error', role: 'status' }, icon('debug-disconnect'), h('span', { class: 'grow' }, this.connectionDetail)));
    }
    if (this.load.state === 'loading') {
      listHead.textContent = l10n.t('Loading memory…');
      list.replaceChildren(h('div', { class: 'empty' }, h('vscode-progress-ring', { 'aria-label': l10n.t('Loading memory') })));
      return;
    }
    if (this.load.state === 'error') {
      listHead.textContent = '';
      list.replaceChildren(
        h(
          'div',
          { class: 'empty error-state', role: 'alert' },
          icon('error'),
          h('p', null, h('strong', null, l10n.t('Memory could not be loaded.'))),
          h('p', null, this.load.message),
          h(
            'p',
            { class: 'muted' },
            this.t.host === 'webview'
              ? l10n.t('Check that the worker runs: "Claude Mem: Restart Worker" in the Command Palette, and the "Claude Mem" output for errors.')
              : l10n.t('Check that the worker runs (node dist/cli.js status); if it was restarted, open the viewer again with node dist/cli.js viewer.'),
          ),
          h('vscode-button', { class: 'retry-load', onclick: () => void this.reload() }, icon('refresh'), ` ${l10n.t('Try again')}`),
        ),
      );
      return;
    }
    if (this.searching() && this.search) {
      const s = this.search;
      if (s.state === 'loading') {
        listHead.textContent = l10n.t('Searching for “{0}”…', this.query.trim());
        list.replaceChildren(h('div', { class: 'empty' }, h('vscode-progress-ring', { 'aria-label': l10n.t('Searching') })));
      } else if (s.state === 'error') {
        listHead.textContent = '';
        list.replaceChildren(h('div', { class: 'empty error-state', role: 'alert' }, icon('error'), h('p', null, l10n.t('Search failed: {0}', s.message)), h('p', { class: 'muted' }, l10n.t('Change the words or filters and try again.'))));
      } else {
        const rows = s.list.rows;
        const words = this.query.trim();
        const mode = s.list.modeUsed && s.list.modeUsed !== 'browse' ? s.list.modeUsed : this.mode;
        const count = `${rows.length}${s.list.hasMore ? '+' : ''}`;
        const one = rows.length === 1;
        listHead.textContent = words
          ? one
            ? l10n.t('{0} result for “{1}” ({2})', count, words, mode)
            : l10n.t('{0} results for “{1}” ({2})', count, words, mode)
          : one
            ? l10n.t('{0} result matching the filters, newest first', count)
            : l10n.t('{0} results matching the filters, newest first', count);
        if (s.list.hasMore) more.append(h('vscode-button', { secondary: true, class: 'more-results', onclick: () => void this.runSearch(true) }, l10n.t('More results')));
        if (s.list.notice) notice.append(h('div', { class: 'notice', role: 'status' }, icon('info'), h('span', { class: 'grow' }, s.list.notice)));
        list.replaceChildren(
          rows.length
            ? renderRows(rows, opts, cb, l10n.t('Search results'))
            : this.empty(
                'search',
                l10n.t('Nothing matches.'),
                words
                  ? filtersActive(this.filters)
                    ? l10n.t('No memory matches “{0}” with these filters. Try other words, another search mode, or clear the filters.', words)
                    : l10n.t('No memory matches “{0}”. Try other words, another search mode, or clear the filters.', words)
                  : l10n.t('No memory matches these filters. Loosen or clear them to see more.'),
                filtersActive(this.filters),
              ),
        );
      }
      settleTabStop(list, focused, this.selectedId);
      return;
    }
    const filters = this.localFilters();
    const groups = this.feed.groups(filters);
    const count = groups.reduce((n, g) => n + g.entries.filter((x) => x.kind === 'observation').length, 0);
    listHead.textContent = groups.length ? feedHead(count, groups.length, filtersActive(filters)) : '';
    if (groups.length) {
      list.replaceChildren(renderFeed(groups, opts, cb));
      if (this.hasMore && !filtersActive(filters)) more.append(h('vscode-button', { secondary: true, class: 'load-more', onclick: () => void this.loadMore() }, l10n.t('Load older observations')));
    } else if (filtersActive(filters)) {
      list.replaceChildren(this.empty('filter', l10n.t('Nothing matches these filters.'), l10n.t('Loosen or clear the filters to see more.'), true));
    } else if (this.project) {
      list.replaceChildren(
        this.empty(
          'inbox',
          l10n.t('No memory for {0} yet.', this.project),
          l10n.t('Work in this project (Claude Code or VS Code) and observations appear here as they are made; or save one by hand in the Save tab.'),
          false,
          h('vscode-button', { secondary: true, class: 'show-all', onclick: () => this.setProject(undefined) }, l10n.t('Show all projects')),
        ),
      );
    } else {
      list.replaceChildren(
        this.empty(
          'inbox',
          l10n.t('No memory yet.'),
          l10n.t('Work in a session (Claude Code, or VS Code with capture on) and observations appear here as they are made. You can also save one by hand in the Save tab.'),
          false,
        ),
      );
    }
    settleTabStop(list, focused, this.selectedId);
  }

  private empty(iconName: string, title: string, text: string, clear: boolean, extra?: HTMLElement): HTMLElement {
    return h(
      'div',
      { class: 'empty', role: 'status' },
      icon(iconName),
      h('p', null, h('strong', null, title)),
      h('p', null, text),
      clear ? h('vscode-button', { secondary: true, class: 'clear-filters-empty', onclick: () => this.clearFilters() }, l10n.t('Clear filters')) : null,
      extra ?? null,
    );
  }

  // ---- detail ---------------------------------------------------------------------------

  async open(id: number, focus = true): Promise<void> {
    const same = this.selectedId === id;
    this.selectedId = id;
    this.view = 'detail';
    this.detailNote = undefined;
    if (!same) this.timeline = { state: 'idle' };
    this.detail = this.feed.observations.get(id) ?? (this.detail?.id === id ? this.detail : undefined);
    this.renderDetail(focus);
    this.renderList();
    try {
      const o = parseObservation(await this.t.request('observation', { id }));
      if (this.selectedId !== id) return;
      this.detail = o;
    } catch (e) {
      if (this.selectedId !== id) return;
      this.detail = undefined;
      this.detailNote = e instanceof ApiError && e.status === 404 ? l10n.t('This observation no longer exists (it was deleted).') : l10n.t('Could not load observation #{0}: {1}', id, messageOf(e));
    }
    this.renderDetail(focus && !same);
  }

  private renderDetail(focus = false): void {
    const { detail: host, memory } = this.el;
    memory.dataset.view = this.view;
    if (!this.detail) {
      host.replaceChildren(
        h(
          'div',
          { class: 'detail-placeholder', role: 'status' },
          this.detailNote
            ? [h('p', null, this.detailNote), h('vscode-button', { secondary: true, class: 'back-button', onclick: () => this.back() }, icon('arrow-left'), ` ${l10n.t('Back')}`)]
            : this.selectedId !== undefined
              ? h('vscode-progress-ring', { 'aria-label': l10n.t('Loading the observation') })
              : h('p', null, l10n.t('Select an observation to see its facts, narrative, files and timeline.')),
        ),
      );
      return;
    }
    host.replaceChildren(
      renderDetail(
        this.detail,
        { canOpenFiles: this.info.capabilities.openFiles, timeline: this.timeline },
        {
          back: () => this.back(),
          remove: (id) => void this.remove(id),
          timeline: (id) => void this.loadTimeline(id),
          openFile: (path, project) => this.t.openFile(path, project),
          filterConcept: (c) => {
            this.el.concept.value = c;
            this.toggleFilters(true);
            this.setFilters({ concept: c });
            this.back();
          },
          open: (id) => void this.open(id),
        },
      ),
    );
    if (focus) host.querySelector<HTMLElement>('h2')?.focus();
  }

  private back(): void {
    const id = this.selectedId;
    this.view = 'list';
    this.renderDetail();
    this.renderList();
    const row = id === undefined ? undefined : this.el.list.querySelector<HTMLElement>(`button.item[data-id="${id}"]`);
    (row ?? this.el.query).focus();
  }

  private closeDetail(): void {
    this.selectedId = undefined;
    this.detail = undefined;
    this.detailNote = undefined;
    this.view = 'list';
    this.timeline = { state: 'idle' };
    this.renderDetail();
  }

  private async loadTimeline(id: number): Promise<void> {
    this.timeline = { state: 'loading' };
    this.renderDetail();
    try {
      const r = await this.t.request('timeline', { anchor: String(id), depthBefore: 6, depthAfter: 6, project: this.detail?.project });
      if (this.selectedId !== id) return;
      this.timeline = { state: 'ready', list: timelineRows(parseTimelineResponse(r)) };
    } catch (e) {
      if (this.selectedId !== id) return;
      this.timeline = {
        state: 'error',
        message:
          e instanceof ApiError && e.routeMissing
            ? l10n.t('The timeline is not available from this worker yet (it has no /api/timeline route). Update the worker; meanwhile the feed shows this observation in its session.')
            : l10n.t('Could not load the timeline: {0}', messageOf(e)),
      };
    }
    this.renderDetail();
    this.announce(this.timeline.state === 'ready' ? l10n.t('Timeline: {0} entries', this.timeline.list.rows.length) : l10n.t('Timeline unavailable'));
  }

  // ---- curating -------------------------------------------------------------------------

  private async remove(id: number): Promise<void> {
    const o = this.feed.observations.get(id) ?? (this.detail?.id === id ? this.detail : undefined);
    const ok = await confirmDialog({
      title: l10n.t('Delete this observation?'),
      message: l10n.t('“{0}” will be removed from memory for good, in every window.', o?.title ?? `#${id}`),
      confirmLabel: l10n.t('Delete'),
    });
    if (!ok) return;
    const rows = () => Array.from(this.el.list.querySelectorAll<HTMLElement>('button.item'));
    const index = rows().findIndex((r) => Number(r.dataset.id) === id);
    try {
      await this.t.request('deleteObservation', { id });
      this.removedObservation(id);
      this.renderList();
      // Keep the keyboard where it was: on the row that took the deleted one's place.
      const active = document.activeElement;
      if (index >= 0 && (!active || active === document.body || !active.isConnected)) {
        const list = rows();
        list[Math.min(index, list.length - 1)]?.focus();
      }
      this.announce(l10n.t('Observation #{0} deleted', id));
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) this.removedObservation(id);
      else this.showError(l10n.t('Could not delete observation #{0}: {1}', id, messageOf(e)));
    }
  }

  private removedObservation(id: number): void {
    this.feed.removeObservation(id);
    if (this.search?.state === 'ready') this.search.list.rows = this.search.list.rows.filter((r) => !(r.kind === 'observation' && r.id === id));
    if (this.timeline.state === 'ready') this.timeline.list.rows = this.timeline.list.rows.filter((r) => !(r.kind === 'observation' && r.id === id));
    if (this.selectedId === id) {
      const wasFocusedInDetail = this.el.detail.contains(document.activeElement);
      this.closeDetail();
      if (wasFocusedInDetail) this.el.query.focus();
    } else this.renderDetail();
    this.scheduleRender();
    this.scheduleStatus();
  }

  private async forgetSession(g: SessionGroup): Promise<void> {
    const n = g.entries.filter((x) => x.kind === 'observation').length;
    const ok = await confirmDialog({
      title: l10n.t('Forget this session?'),
      message:
        n === 1
          ? l10n.t('Session #{0} of {1}, with its prompts, {2} observation and summaries, will be removed from memory for good.', g.sessionId, g.project, n)
          : l10n.t('Session #{0} of {1}, with its prompts, {2} observations and summaries, will be removed from memory for good.', g.sessionId, g.project, n),
      confirmLabel: l10n.t('Forget session'),
    });
    if (!ok) return;
    try {
      await this.t.request('forgetSession', { id: g.sessionId });
      this.feed.removeSession(g.sessionId);
      if (this.detail?.sessionId === g.sessionId) this.closeDetail();
      this.renderList();
      this.announce(l10n.t('Session #{0} forgotten', g.sessionId));
      void this.loadProjects();
    } catch (e) {
      this.showError(l10n.t('Could not forget session #{0}: {1}', g.sessionId, messageOf(e)));
    }
  }

  private async forgetProject(): Promise<void> {
    const name = this.project;
    if (!name) return;
    const info = this.projects.find((p) => p.name === name);
    const ok = await confirmDialog({
      title: l10n.t('Forget project {0}?', name),
      message: info
        ? l10n.t('Everything remembered about {0} ({1} observations in {2} sessions) will be removed for good, in every window. This cannot be undone.', name, info.observations, info.sessions)
        : l10n.t('Everything remembered about {0} will be removed for good, in every window. This cannot be undone.', name),
      confirmLabel: l10n.t('Forget project'),
    });
    if (!ok) return;
    try {
      await this.t.request('forgetProject', { name });
      this.feed.removeProject(name);
      this.announce(l10n.t('Project {0} forgotten', name));
      this.projects = this.projects.filter((p) => p.name !== name);
      this.setProject(undefined);
      void this.loadProjects();
    } catch (e) {
      this.showError(l10n.t('Could not forget project {0}: {1}', name, messageOf(e)));
    }
  }

  private async saveMemory(v: { text: string; title?: string; project?: string }): Promise<string> {
    const r = await this.t.request('saveMemory', v);
    if (!r.duplicate) this.queueHydrate(r.id);
    void this.loadProjects();
    const msg = r.duplicate ? l10n.t('Already remembered as #{0} in {1}.', r.id, r.project) : l10n.t('Saved as #{0} in {1}.', r.id, r.project);
    this.announce(msg);
    return msg;
  }

  // ---- live events ----------------------------------------------------------------------

  private onEvent(e: StreamEvent): void {
    const eff = this.feed.apply(e);
    const d = e.data;
    if (e.event === 'observation_deleted' && typeof d.id === 'number') this.removedObservation(d.id);
    if (e.event === 'project_deleted') this.projectDeleted(typeof d.project === 'string' ? d.project : '', typeof d.sessionDbId === 'number' ? d.sessionDbId : undefined);
    if ((e.event === 'new_prompt' || e.event === 'new_summary') && eff.changed && typeof d.id === 'number') this.markFresh(`${e.event === 'new_prompt' ? 'prompt' : 'summary'}:${d.id}`);
    if (eff.fetch) for (const id of eff.fetch) this.queueHydrate(id);
    if (eff.reload) void this.reload();
    if (eff.status) this.scheduleStatus();
    if (eff.projects) this.debounce('projects', 500, () => void this.loadProjects());
    else if (e.event === 'new_observation' || e.event === 'observation_deleted') this.debounce('projects', 2000, () => void this.loadProjects()); // counts
    if (eff.changed) this.scheduleRender();
    if (e.event === 'new_observation' && this.searching()) this.debounce('research', 1000, () => void this.runSearch());
    // A memory went stale, was confirmed or retired: the marks shown are out of date.
    if (e.event === 'memory_freshness') this.debounce('freshness', 500, () => void this.refreshMarks());
  }

  private async refreshMarks(): Promise<void> {
    await this.reload();
    if (this.searching()) void this.runSearch();
    if (this.view === 'detail' && this.selectedId !== undefined) void this.open(this.selectedId, false);
  }

  private projectDeleted(project: string, sessionId: number | undefined): void {
    const gone = (o: Observation | undefined) => o !== undefined && (sessionId !== undefined ? o.sessionId === sessionId : o.project === project);
    if (sessionId === undefined && this.search?.state === 'ready') this.search.list.rows = this.search.list.rows.filter((r) => r.project !== project);
    if (gone(this.detail)) {
      this.closeDetail();
      this.scheduleRender();
    }
    if (sessionId === undefined && this.project === project) this.announce(l10n.t('Project {0} was forgotten', project));
    this.scheduleRender();
  }

  private queueHydrate(id: number): void {
    this.hydrate.add(id);
    this.debounce('hydrate', 100, () => void this.flushHydrate());
  }

  private async flushHydrate(): Promise<void> {
    const ids = [...this.hydrate];
    this.hydrate.clear();
    if (ids.length === 0) return;
    let list: Observation[] = [];
    try {
      if (ids.length === 1) {
        list = [parseObservation(await this.t.request('observation', { id: ids[0] }))];
      } else {
        list = parseObservationsBatch(await this.t.request('observationsBatch', { ids })).items;
      }
    } catch {
      return; // deleted in the meantime, or the worker went away: the next reload catches up
    }
    let added = 0;
    for (const o of list) {
      if (this.feed.addObservation(o)) {
        added++;
        this.markFresh(`observation:${o.id}`);
      }
    }
    if (added) {
      this.renderList();
      this.announce(added === 1 ? l10n.t('New observation: {0}', list[0].title) : l10n.t('{0} new observations', added));
    }
  }

  private markFresh(key: string): void {
    this.fresh.add(key);
    setTimeout(() => this.fresh.delete(key), 1500);
  }

  private onConnection(state: ConnectionState, detail?: string): void {
    const prev = this.connection;
    this.connection = state;
    this.connectionDetail = detail;
    this.statusData.connection = state;
    this.renderHeader();
    // Events may have been missed while disconnected: catch up.
    if (state === 'connected' && (prev === 'disconnected' || prev === 'no-worker')) {
      void this.reload();
      void this.loadProjects();
    }
    if (state === 'no-worker' || prev === 'no-worker') this.renderList();
    if (this.statusVisible) this.renderStatus();
  }

  // ---- status ---------------------------------------------------------------------------

  private scheduleStatus(): void {
    if (this.statusVisible) this.debounce('status', 800, () => void this.refreshStatus());
  }

  private async refreshStatus(): Promise<void> {
    this.statusData = { ...this.statusData, loading: true, project: this.project };
    this.renderStatus();
    const [health, stats, queue, obs, agent, search] = await Promise.allSettled([
      this.t.request('health', {}),
      this.t.request('stats', {}),
      this.t.request('queue', {}),
      this.t.request('observations', { project: this.project, limit: ECONOMICS_LIMIT }),
      // Modules a worker may not have: their absence is not an error.
      this.t.request('agentStatus', {}),
      this.t.request('searchStatus', {}),
    ]);
    const errors = [health, stats, queue, obs].filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => messageOf(r.reason));
    const optional = <T>(r: PromiseSettledResult<T>): T | undefined => (r.status === 'fulfilled' && r.value && typeof r.value === 'object' ? r.value : undefined);
    const list = obs.status === 'fulfilled' ? parseObservationList(obs.value).items : undefined;
    this.statusData = {
      connection: this.connection,
      project: this.project,
      loading: false,
      health: health.status === 'fulfilled' ? health.value : this.statusData.health,
      stats: stats.status === 'fulfilled' ? stats.value : this.statusData.stats,
      queue: queue.status === 'fulfilled' ? { ...queue.value, dead: Array.isArray(queue.value.dead) ? queue.value.dead : [] } : this.statusData.queue,
      agent: optional(agent),
      search: optional(search),
      economics: list ? economics(list) : this.statusData.economics,
      economicsPartial: list ? list.length >= ECONOMICS_LIMIT : this.statusData.economicsPartial,
      error: errors.length ? l10n.t('Some figures could not be loaded: {0}', [...new Set(errors)].join('; ')) : undefined,
    };
    this.renderStatus();
  }

  private renderStatus(): void {
    this.el.status.replaceChildren(
      renderStatus(this.statusData, {
        refresh: () => void this.refreshStatus(),
        retryDead: () => void this.retryDead(),
        resumeProvider: () => void this.resumeProvider(),
      }),
    );
  }

  private async retryDead(): Promise<void> {
    try {
      const r = await this.t.request('retryQueue', {});
      this.announce(r.retried === 1 ? l10n.t('{0} failed job queued again', r.retried) : l10n.t('{0} failed jobs queued again', r.retried));
      void this.refreshStatus();
    } catch (e) {
      this.showError(l10n.t('Could not retry the failed jobs: {0}', messageOf(e)));
    }
  }

  private async resumeProvider(): Promise<void> {
    try {
      await this.t.request('resumeProvider', {});
      this.announce(l10n.t('Compression provider resumed'));
      void this.refreshStatus();
    } catch (e) {
      this.showError(l10n.t('Could not resume the provider: {0}', messageOf(e)));
    }
  }

  // ---- small things ---------------------------------------------------------------------

  private announce(msg: string): void {
    this.el.announce.textContent = '';
    setTimeout(() => (this.el.announce.textContent = msg), 30);
  }

  private showError(msg: string): void {
    const note = h(
      'div',
      { class: 'notice error' },
      icon('error'),
      h('span', { class: 'grow' }, msg),
      h('button', { type: 'button', class: 'icon-button', 'aria-label': l10n.t('Dismiss'), onclick: () => note.remove() }, icon('close')),
    );
    this.el.alert.append(note);
  }

  private debounce(key: string, ms: number, fn: () => void): void {
    this.clearTimer(key);
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        fn();
      }, ms),
    );
  }

  private clearTimer(key: string): void {
    const t = this.timers.get(key);
    if (t !== undefined) clearTimeout(t);
    this.timers.delete(key);
  }
}
