// The Memory panel's views: the page (header, project picker, tabs, search and filter controls)
// built once, then the parts re-rendered from the state (header, projects, list, detail, status)
// when it says they changed (it subscribes to PanelState). What the user does goes to the actions;
// nothing here talks to the host.
import { OBSERVATION_TYPES, SEARCH_MODES, type ConnectionState } from '../../../common/contract';
import type { PanelActions } from '../actions';
import { formatCount, h, icon, modeLabel, typeLabel } from '../dom';
import { l10n } from '../l10n';
import { PLATFORM_LABELS } from '../model';
import type { PanelState, StateChange } from '../state';
import type { Timers } from '../timers';
import { renderDetail } from './detail';
import { renderList } from './feed';
import { attachRovingNav } from './list';
import { saveForm, type SaveForm } from './save';
import { renderStatus } from './status';

type Field = HTMLElement & { value: string };

const CONNECTION_LABEL: Record<ConnectionState, string> = {
  connecting: l10n.t('Connecting'),
  connected: l10n.t('Live'),
  disconnected: l10n.t('Reconnecting'),
  'no-worker': l10n.t('No worker'),
};


export class PanelView {
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
  /** What the project picker's options were last built from (see renderProjects). */
  private projectOptions = '';

  constructor(
    private readonly s: PanelState,
    private readonly a: PanelActions,
    private readonly timers: Timers,
    private readonly host: 'webview' | 'browser',
    private readonly root: HTMLElement,
  ) {
    s.subscribe((c) => this.apply(c));
  }

  /** Draws what the state says changed. */
  private apply(c: StateChange): void {
    switch (c.part) {
      case 'header':
        return this.renderHeader();
      case 'projects':
        return this.renderProjects();
      case 'listSoon':
        return this.scheduleRender();
      case 'status':
        return this.renderStatus();
      case 'fieldsCleared':
        return this.clearFields();
      case 'list': {
        const index = c.refocusFor === undefined ? -1 : this.rowIndex(c.refocusFor);
        this.renderList();
        if (c.refocusFor !== undefined) this.refocusRow(index);
        return;
      }
      case 'detail': {
        const held = c.queryIfFocused === true && this.detailHasFocus();
        this.renderDetail(c.focus);
        if (held) this.focusQuery();
        return;
      }
      case 'defaultProject':
        return this.setDefaultProject(c.project);
      case 'filterCount':
        return this.renderFilterCount(c.count);
      case 'rowFocus':
        return this.focusRow(c.id);
      case 'say':
        return c.error ? this.showError(c.text) : this.announce(c.text);
    }
  }

  build(): void {
    const e = this.el;
    const browser = this.host === 'browser';
    e.conn = h('span', { class: 'conn', role: 'status', 'aria-live': 'polite' });
    e.pause = h('vscode-button', { secondary: true, class: 'pause-capture', hidden: true, onclick: () => this.a.toggleCapture() });
    e.alert = h('div', { class: 'alerts', role: 'alert' });
    e.announce = h('div', { class: 'sr-only', 'aria-live': 'polite', 'aria-atomic': 'true' });

    e.project = h('vscode-single-select', { class: 'project-select', label: l10n.t('Project'), 'aria-label': l10n.t('Project') }) as Field;
    e.project.addEventListener('change', () => this.a.setProject(e.project.value || undefined));
    e.forgetProject = h(
      'button',
      { type: 'button', class: 'icon-button forget-project', 'aria-label': l10n.t('Forget this project'), title: l10n.t('Forget this project…'), disabled: true, onclick: () => void this.a.forgetProject() },
      icon('trash'),
    );

    e.query = h('vscode-textfield', { class: 'grow search-field', type: 'search', placeholder: l10n.t('Search memory'), label: l10n.t('Search memory') }) as Field;
    e.query.addEventListener('input', () => this.timers.debounce('query', 300, () => this.a.setQuery(e.query.value)));
    e.query.addEventListener('keydown', (ev) => {
      if ((ev as KeyboardEvent).key === 'Enter') this.a.setQuery(e.query.value, true);
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
    e.type.addEventListener('change', () => this.a.setFilters({ type: e.type.value || undefined }));
    e.platform.addEventListener('change', () => this.a.setFilters({ platform: e.platform.value || undefined }));
    e.concept.addEventListener('input', () => this.timers.debounce('concept', 300, () => this.a.setFilters({ concept: e.concept.value.trim() || undefined })));
    e.author.addEventListener('input', () => this.timers.debounce('author', 300, () => this.a.setFilters({ author: e.author.value.trim() || undefined })));
    e.dateStart.addEventListener('change', () => this.a.setFilters({ dateStart: e.dateStart.value || undefined }));
    e.dateEnd.addEventListener('change', () => this.a.setFilters({ dateEnd: e.dateEnd.value || undefined }));
    e.mode.addEventListener('change', () => this.a.setMode(e.mode.value));
    const field = (label: string, control: HTMLElement) => h('div', { class: 'field' }, h('span', { class: 'label', 'aria-hidden': 'true' }, label), control);
    e.filters.append(
      field(l10n.t('Type'), e.type),
      field(l10n.t('Platform'), e.platform),
      field(l10n.t('Concept'), e.concept),
      field(l10n.t('Author'), e.author),
      field(l10n.t('From'), e.dateStart),
      field(l10n.t('To'), e.dateEnd),
      field(l10n.t('Search mode'), e.mode),
      h('div', { class: 'field' }, h('vscode-button', { secondary: true, class: 'clear-filters', onclick: () => this.a.clearFilters() }, icon('clear-all'), ` ${l10n.t('Clear')}`)),
    );

    e.notice = h('div', { class: 'list-notice' });
    e.listHead = h('div', { class: 'list-head', 'aria-live': 'polite' });
    e.list = h('div', { class: 'list', role: 'region', 'aria-label': l10n.t('Memory') });
    attachRovingNav(e.list, { remove: (id) => void this.a.remove(id) });
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
    this.save = saveForm((v) => this.a.saveMemory(v));

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
      this.a.statusShown((ev as CustomEvent<{ selectedIndex: number }>).detail.selectedIndex === 1);
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
      if (ev.key === 'Escape' && this.s.view === 'detail' && !inField) {
        ev.preventDefault();
        this.a.back();
      } else if (ev.key === '/' && !inField && !ev.ctrlKey && !ev.metaKey) {
        ev.preventDefault();
        this.el.tabs.selectedIndex = 0;
        this.el.query.focus();
      }
    });
  }

  renderHeader(): void {
    const { conn, pause } = this.el;
    conn.dataset.state = this.s.connection;
    conn.replaceChildren(h('span', { class: 'dot', 'aria-hidden': 'true' }), CONNECTION_LABEL[this.s.connection]);
    conn.title = this.s.connectionDetail ?? CONNECTION_LABEL[this.s.connection];
    if (this.s.info.capabilities.pauseCapture) {
      pause.hidden = false;
      const paused = this.s.capturePaused;
      pause.replaceChildren(icon(paused ? 'play' : 'debug-pause'), ` ${paused === undefined ? l10n.t('Pause / resume capture') : paused ? l10n.t('Resume capture') : l10n.t('Pause capture')}`);
      if (paused !== undefined) pause.setAttribute('aria-pressed', String(paused));
      pause.title = paused ? l10n.t('Capture is paused: nothing new is recorded from this window') : l10n.t('Stop recording what happens in this window');
    }
  }

  renderProjects(): void {
    const names = this.s.projects.map((p) => p.name);
    const options = [h('vscode-option', { value: '' }, l10n.t('All projects'))];
    for (const p of this.s.projects) options.push(h('vscode-option', { value: p.name, description: l10n.t('{0} observations', p.observations) }, `${p.name} (${formatCount(p.observations)})`));
    if (this.s.project && !names.includes(this.s.project)) options.push(h('vscode-option', { value: this.s.project }, l10n.t('{0} (no memory yet)', this.s.project)));
    // Rebuilding the options closes a dropdown the user has open: only when they changed (a new
    // observation reloads the list for its counts, usually to the same thing).
    const signature = options.map((o) => `${o.getAttribute('value')}\u0000${o.textContent}\u0000${o.getAttribute('description') ?? ''}`).join('\u0001');
    if (signature !== this.projectOptions) {
      this.projectOptions = signature;
      this.el.project.replaceChildren(...options);
    }
    if (this.el.project.value !== (this.s.project ?? '')) this.el.project.value = this.s.project ?? '';
    this.el.forgetProject.disabled = !this.s.project || !names.includes(this.s.project);
    this.el.forgetProject.setAttribute('aria-label', this.s.project ? l10n.t('Forget project {0}', this.s.project) : l10n.t('Forget this project (choose a project first)'));
  }

  toggleFilters(force?: boolean): void {
    const open = force ?? this.el.filters.hidden;
    this.el.filters.hidden = !open;
    this.el.filterToggle.setAttribute('aria-expanded', String(open));
    this.el.filterToggle.setAttribute('aria-pressed', String(open));
  }

  scheduleRender(): void {
    this.timers.debounce('render', 30, () => this.renderList());
  }

  renderList(): void {
    const { list, listHead, notice, more } = this.el;
    renderList({ list, listHead, notice, more }, this.s, this.host, {
      open: (id) => void this.a.open(id),
      remove: (id) => void this.a.remove(id),
      forgetSession: (g) => void this.a.forgetSession(g),
      reload: () => void this.a.reload(),
      moreResults: () => void this.a.runSearch(true),
      loadMore: () => void this.a.loadMore(),
      clearFilters: () => this.a.clearFilters(),
      showAll: () => this.a.setProject(undefined),
    });
  }

  renderDetail(focus = false): void {
    const { detail: host, memory } = this.el;
    memory.dataset.view = this.s.view;
    if (!this.s.detail) {
      host.replaceChildren(
        h(
          'div',
          { class: 'detail-placeholder', role: 'status' },
          this.s.detailNote
            ? [h('p', null, this.s.detailNote), h('vscode-button', { secondary: true, class: 'back-button', onclick: () => this.a.back() }, icon('arrow-left'), ` ${l10n.t('Back')}`)]
            : this.s.selectedId !== undefined
              ? h('vscode-progress-ring', { 'aria-label': l10n.t('Loading the observation') })
              : h('p', null, l10n.t('Select an observation to see its facts, narrative, files and timeline.')),
        ),
      );
      return;
    }
    host.replaceChildren(
      renderDetail(
        this.s.detail,
        { canOpenFiles: this.s.info.capabilities.openFiles, timeline: this.s.timeline },
        {
          back: () => this.a.back(),
          remove: (id) => void this.a.remove(id),
          timeline: (id) => void this.a.loadTimeline(id),
          openFile: (path, project) => this.a.openFile(path, project),
          filterConcept: (c) => {
            this.el.concept.value = c;
            this.toggleFilters(true);
            this.a.setFilters({ concept: c });
            this.a.back();
          },
          open: (id) => void this.a.open(id),
        },
      ),
    );
    if (focus) host.querySelector<HTMLElement>('h2')?.focus();
  }

  /** Back in the list: the keyboard goes to the row of the observation that was open, else to the search field. */
  focusRow(id: number | undefined): void {
    const row = id === undefined ? undefined : this.el.list.querySelector<HTMLElement>(`button.item[data-id="${id}"]`);
    (row ?? this.el.query).focus();
  }

  focusQuery(): void {
    this.el.query.focus();
  }

  detailHasFocus(): boolean {
    return this.el.detail.contains(document.activeElement);
  }

  private rows(): HTMLElement[] {
    return Array.from(this.el.list.querySelectorAll<HTMLElement>('button.item'));
  }

  /** Where an observation's row is in the list (-1: not shown). */
  rowIndex(id: number): number {
    return this.rows().findIndex((r) => Number(r.dataset.id) === id);
  }

  /** After a row went away: the keyboard stays where it was, on the row that took the deleted one's place. */
  refocusRow(index: number): void {
    const active = document.activeElement;
    if (index >= 0 && (!active || active === document.body || !active.isConnected)) {
      const list = this.rows();
      list[Math.min(index, list.length - 1)]?.focus();
    }
  }

  setDefaultProject(project: string | undefined): void {
    this.save.setDefaultProject(project);
  }

  renderFilterCount(n: number): void {
    this.el.filterToggle.querySelector('.count')!.textContent = n ? String(n) : '';
    this.el.filterToggle.setAttribute('aria-label', n ? l10n.t('Filters ({0} active)', n) : l10n.t('Filters'));
  }

  /** Empties the search field and every filter control. */
  clearFields(): void {
    const e = this.el;
    e.type.value = '';
    e.platform.value = '';
    e.concept.value = '';
    e.author.value = '';
    e.dateStart.value = '';
    e.dateEnd.value = '';
    e.query.value = '';
  }

  renderStatus(): void {
    this.el.status.replaceChildren(
      renderStatus(this.s.statusData, {
        refresh: () => void this.a.refreshStatus(),
        retryDead: () => void this.a.retryDead(),
        resumeProvider: () => void this.a.resumeProvider(),
      }),
    );
  }

  announce(msg: string): void {
    this.el.announce.textContent = '';
    setTimeout(() => (this.el.announce.textContent = msg), 30);
  }

  showError(msg: string): void {
    const note = h(
      'div',
      { class: 'notice error' },
      icon('error'),
      h('span', { class: 'grow' }, msg),
      h('button', { type: 'button', class: 'icon-button', 'aria-label': l10n.t('Dismiss'), onclick: () => note.remove() }, icon('close')),
    );
    this.el.alert.append(note);
  }
}
