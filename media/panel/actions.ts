// What the Memory panel does: it asks the host (the transport), updates the state and says what
// changed (PanelState.changed); the views subscribe to the state. Live events and connection
// changes arrive here too.
import {
  parseObservation,
  parseObservationList,
  parseObservationsBatch,
  parseSearchResponse,
  parseSessionList,
  parseTimelineResponse,
  recordRef,
  SEARCH_MODES,
  type ConnectionState,
  type Observation,
  type SearchMode,
  type StreamEvent,
} from '../../common/contract';
import { l10n } from './l10n';
import { economics, matchesAuthor, searchRows, sessionLite, timelineRows, type Filters, type SessionGroup } from './model';
import { ECONOMICS_LIMIT, PAGE, SEARCH_PAGE, SESSIONS, type PanelState } from './state';
import type { Timers } from './timers';
import { ApiError, type Transport } from './transport';
import { confirmDialog } from './ui/confirm';

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export class PanelActions {
  constructor(
    private readonly s: PanelState,
    private readonly t: Transport,
    private readonly timers: Timers,
  ) {}

  async loadProjects(): Promise<void> {
    try {
      const r = await this.t.request('projects', {});
      this.s.projects = Array.isArray(r.projects) ? r.projects.filter((p) => p && typeof p.name === 'string') : [];
      this.s.changed({ part: 'projects' });
    } catch {
      /* the list load reports errors */
    }
  }

  setProject(project: string | undefined): void {
    if (project === this.s.project) return;
    this.s.project = project;
    this.s.changed({ part: 'defaultProject', project });
    this.s.changed({ part: 'projects' });
    this.closeDetail();
    void this.reload();
    if (this.s.searching()) void this.runSearch();
    if (this.s.statusVisible) void this.refreshStatus();
  }

  async reload(): Promise<void> {
    const seq = ++this.s.loadSeq;
    if (this.s.load.state !== 'ready') this.s.load = { state: 'loading' };
    this.s.changed({ part: 'list' });
    try {
      const [obs, sessions, history] = await Promise.all([
        this.t.request('observations', { project: this.s.project, limit: PAGE }),
        this.t.request('sessions', { project: this.s.project, limit: SESSIONS }),
        // Stored prompts and summaries for the feed; only the search module lists them.
        this.t.request('search', { query: '', kind: 'summary,prompt', project: this.s.project, limit: PAGE }).catch(() => undefined),
      ]);
      if (seq !== this.s.loadSeq) return;
      const list = parseObservationList(obs).items;
      this.s.serverCount = list.length;
      this.s.hasMore = list.length >= PAGE;
      this.s.feed.reset(this.s.project, list, parseSessionList(sessions).items.map(sessionLite));
      // With older observations not loaded yet, older history would sit in the wrong place.
      if (history !== undefined) this.s.feed.addHistory(searchRows(parseSearchResponse(history)).rows, this.s.hasMore ? Math.min(...list.map((o) => o.createdAtEpoch)) : 0);
      this.s.load = { state: 'ready' };
    } catch (e) {
      if (seq !== this.s.loadSeq) return;
      this.s.load = { state: 'error', message: messageOf(e) };
    }
    this.s.changed({ part: 'list' });
    if (this.s.detail && !this.s.feed.observations.has(this.s.detail.id) && this.s.load.state === 'ready') void this.open(this.s.detail.id, false);
  }

  async loadMore(): Promise<void> {
    try {
      const r = await this.t.request('observations', { project: this.s.project, limit: PAGE, offset: this.s.serverCount });
      const list = parseObservationList(r).items;
      this.s.serverCount += list.length;
      this.s.hasMore = list.length >= PAGE;
      for (const o of list) this.s.feed.addObservation(o);
      this.s.changed({ part: 'list' });
      this.say(l10n.t('{0} more observations loaded', list.length));
    } catch (e) {
      this.sayError(l10n.t('Could not load more: {0}', messageOf(e)));
    }
  }

  setQuery(q: string, now = false): void {
    this.timers.clear('query');
    if (q === this.s.query && !now) return;
    this.s.query = q;
    if (this.s.searching()) void this.runSearch();
    else {
      this.s.leaveSearch();
      this.s.changed({ part: 'list' });
    }
  }

  setFilters(patch: Partial<Filters>): void {
    this.s.changed({ part: 'filterCount', count: this.s.patchFilters(patch) });
    if (this.s.searching()) void this.runSearch();
    else {
      this.s.leaveSearch();
      this.s.changed({ part: 'list' });
    }
  }

  setMode(value: string): void {
    this.s.mode = (SEARCH_MODES as readonly string[]).includes(value) ? (value as SearchMode) : 'hybrid';
    if (this.s.searching()) void this.runSearch();
  }

  clearFilters(): void {
    this.s.changed({ part: 'fieldsCleared' });
    this.s.query = '';
    this.s.search = undefined;
    this.setFilters({ type: undefined, platform: undefined, concept: undefined, author: undefined, dateStart: undefined, dateEnd: undefined });
    this.say(l10n.t('Filters cleared'));
  }

  async runSearch(more = false): Promise<void> {
    const seq = ++this.s.searchSeq;
    const previous = this.s.search?.state === 'ready' ? this.s.search.list : undefined;
    if (!previous) this.s.search = { state: 'loading' };
    this.s.changed({ part: 'list' });
    try {
      const r = await this.t.request('search', {
        query: this.s.query.trim(),
        project: this.s.project,
        platform: this.s.filters.platform,
        type: this.s.filters.type,
        concepts: this.s.filters.concept,
        dateStart: this.s.filters.dateStart,
        dateEnd: this.s.filters.dateEnd,
        mode: this.s.mode,
        limit: SEARCH_PAGE,
        offset: more && previous ? previous.rows.length : 0,
      });
      if (seq !== this.s.searchSeq) return;
      const list = searchRows(parseSearchResponse(r));
      // The worker does not filter by author: rows are kept or dropped here (team memory).
      list.rows = list.rows.filter((x) => matchesAuthor(x.team, this.s.filters));
      if (more && previous) {
        const seen = new Set(previous.rows.map((x) => x.key));
        list.rows = [...previous.rows, ...list.rows.filter((x) => !seen.has(x.key))];
      }
      this.s.search = { state: 'ready', list };
      this.say(list.rows.length === 1 ? l10n.t('{0} result', list.rows.length) : l10n.t('{0} results', list.rows.length));
    } catch (e) {
      if (seq !== this.s.searchSeq) return;
      if (e instanceof ApiError && e.routeMissing) {
        // An older worker, or the search module not there yet: filter what is loaded instead.
        this.s.searchUnavailable = true;
        this.s.search = undefined;
      } else {
        this.s.search = { state: 'error', message: messageOf(e) };
      }
    }
    this.s.changed({ part: 'list' });
  }

  async open(id: number, focus = true): Promise<void> {
    const same = this.s.selectedId === id;
    this.s.selectedId = id;
    this.s.view = 'detail';
    this.s.detailNote = undefined;
    if (!same) this.s.timeline = { state: 'idle' };
    this.s.detail = this.s.feed.observations.get(id) ?? (this.s.detail?.id === id ? this.s.detail : undefined);
    this.s.changed({ part: 'detail', focus });
    this.s.changed({ part: 'list' });
    try {
      const o = parseObservation(await this.t.request('observation', { id }));
      if (this.s.selectedId !== id) return;
      this.s.detail = o;
    } catch (e) {
      if (this.s.selectedId !== id) return;
      this.s.detail = undefined;
      this.s.detailNote = e instanceof ApiError && e.status === 404 ? l10n.t('This observation no longer exists (it was deleted).') : l10n.t('Could not load observation #{0}: {1}', id, messageOf(e));
    }
    this.s.changed({ part: 'detail', focus: focus && !same });
  }

  back(): void {
    const id = this.s.selectedId;
    this.s.view = 'list';
    this.s.changed({ part: 'detail' });
    this.s.changed({ part: 'list' });
    this.s.changed({ part: 'rowFocus', id });
  }

  closeDetail(): void {
    this.s.closeDetail();
    this.s.changed({ part: 'detail' });
  }

  async loadTimeline(id: number): Promise<void> {
    this.s.timeline = { state: 'loading' };
    this.s.changed({ part: 'detail' });
    try {
      const r = await this.t.request('timeline', { anchor: String(id), depthBefore: 6, depthAfter: 6, project: this.s.detail?.project });
      if (this.s.selectedId !== id) return;
      this.s.timeline = { state: 'ready', list: timelineRows(parseTimelineResponse(r)) };
    } catch (e) {
      if (this.s.selectedId !== id) return;
      this.s.timeline = {
        state: 'error',
        message:
          e instanceof ApiError && e.routeMissing
            ? l10n.t('The timeline is not available from this worker yet (it has no /api/timeline route). Update the worker; meanwhile the feed shows this observation in its session.')
            : l10n.t('Could not load the timeline: {0}', messageOf(e)),
      };
    }
    this.s.changed({ part: 'detail' });
    this.say(this.s.timeline.state === 'ready' ? l10n.t('Timeline: {0} entries', this.s.timeline.list.rows.length) : l10n.t('Timeline unavailable'));
  }

  async remove(id: number): Promise<void> {
    const o = this.s.feed.observations.get(id) ?? (this.s.detail?.id === id ? this.s.detail : undefined);
    const ok = await confirmDialog({
      title: l10n.t('Delete this observation?'),
      message: l10n.t('“{0}” will be removed from memory for good, in every window.', o?.title ?? recordRef('observation', id)),
      confirmLabel: l10n.t('Delete'),
    });
    if (!ok) return;
    try {
      await this.t.request('deleteObservation', { id });
      this.removedObservation(id);
      this.s.changed({ part: 'list', refocusFor: id });
      this.say(l10n.t('Observation #{0} deleted', id));
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) this.removedObservation(id);
      else this.sayError(l10n.t('Could not delete observation #{0}: {1}', id, messageOf(e)));
    }
  }

  removedObservation(id: number): void {
    this.s.dropObservation(id);
    if (this.s.selectedId === id) {
      this.s.closeDetail();
      this.s.changed({ part: 'detail', queryIfFocused: true });
    } else this.s.changed({ part: 'detail' });
    this.s.changed({ part: 'listSoon' });
    this.scheduleStatus();
  }

  async forgetSession(g: SessionGroup): Promise<void> {
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
      this.s.feed.removeSession(g.sessionId);
      if (this.s.detail?.sessionId === g.sessionId) this.closeDetail();
      this.s.changed({ part: 'list' });
      this.say(l10n.t('Session #{0} forgotten', g.sessionId));
      void this.loadProjects();
    } catch (e) {
      this.sayError(l10n.t('Could not forget session #{0}: {1}', g.sessionId, messageOf(e)));
    }
  }

  async forgetProject(): Promise<void> {
    const name = this.s.project;
    if (!name) return;
    const info = this.s.projects.find((p) => p.name === name);
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
      this.s.feed.removeProject(name);
      this.say(l10n.t('Project {0} forgotten', name));
      this.s.projects = this.s.projects.filter((p) => p.name !== name);
      this.setProject(undefined);
      void this.loadProjects();
    } catch (e) {
      this.sayError(l10n.t('Could not forget project {0}: {1}', name, messageOf(e)));
    }
  }

  async saveMemory(v: { text: string; title?: string; project?: string }): Promise<string> {
    const r = await this.t.request('saveMemory', v);
    if (!r.duplicate) this.queueHydrate(r.id);
    void this.loadProjects();
    const msg = r.duplicate ? l10n.t('Already remembered as #{0} in {1}.', r.id, r.project) : l10n.t('Saved as #{0} in {1}.', r.id, r.project);
    this.say(msg);
    return msg;
  }

  onEvent(e: StreamEvent): void {
    const eff = this.s.feed.apply(e);
    const d = e.data;
    if (e.event === 'observation_deleted' && typeof d.id === 'number') this.removedObservation(d.id);
    if (e.event === 'project_deleted' || e.event === 'session_forgotten') this.projectDeleted(typeof d.project === 'string' ? d.project : '', typeof d.sessionDbId === 'number' ? d.sessionDbId : undefined);
    if ((e.event === 'new_prompt' || e.event === 'new_summary') && eff.changed && typeof d.id === 'number') this.s.markFresh(`${e.event === 'new_prompt' ? 'prompt' : 'summary'}:${d.id}`);
    if (eff.fetch) for (const id of eff.fetch) this.queueHydrate(id);
    if (eff.reload) void this.reload();
    if (eff.status) this.scheduleStatus();
    if (eff.projects) this.timers.debounce('projects', 500, () => void this.loadProjects());
    else if (e.event === 'new_observation' || e.event === 'observation_deleted') this.timers.debounce('projects', 2000, () => void this.loadProjects()); // counts
    if (eff.changed) this.s.changed({ part: 'listSoon' });
    if (e.event === 'new_observation' && this.s.searching()) this.timers.debounce('research', 1000, () => void this.runSearch());
    // A memory went stale, was confirmed or retired: the marks shown are out of date.
    if (e.event === 'memory_freshness') this.timers.debounce('freshness', 500, () => void this.refreshMarks());
  }

  async refreshMarks(): Promise<void> {
    await this.reload();
    if (this.s.searching()) void this.runSearch();
    if (this.s.view === 'detail' && this.s.selectedId !== undefined) void this.open(this.s.selectedId, false);
  }

  projectDeleted(project: string, sessionId: number | undefined): void {
    const gone = (o: Observation | undefined) => o !== undefined && (sessionId !== undefined ? o.sessionId === sessionId : o.project === project);
    if (sessionId === undefined && this.s.search?.state === 'ready') this.s.search.list.rows = this.s.search.list.rows.filter((r) => r.project !== project);
    if (gone(this.s.detail)) {
      this.closeDetail();
      this.s.changed({ part: 'listSoon' });
    }
    if (sessionId === undefined && this.s.project === project) this.say(l10n.t('Project {0} was forgotten', project));
    this.s.changed({ part: 'listSoon' });
  }

  queueHydrate(id: number): void {
    this.s.hydrate.add(id);
    this.timers.debounce('hydrate', 100, () => void this.flushHydrate());
  }

  async flushHydrate(): Promise<void> {
    const ids = [...this.s.hydrate];
    this.s.hydrate.clear();
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
      if (this.s.feed.addObservation(o)) {
        added++;
        this.s.markFresh(`observation:${o.id}`);
      }
    }
    if (added) {
      this.s.changed({ part: 'list' });
      this.say(added === 1 ? l10n.t('New observation: {0}', list[0].title) : l10n.t('{0} new observations', added));
    }
  }

  onConnection(state: ConnectionState, detail?: string): void {
    const prev = this.s.connection;
    this.s.connection = state;
    this.s.connectionDetail = detail;
    this.s.statusData.connection = state;
    this.s.changed({ part: 'header' });
    // Events may have been missed while disconnected: catch up.
    if (state === 'connected' && (prev === 'disconnected' || prev === 'no-worker')) {
      void this.reload();
      void this.loadProjects();
    }
    if (state === 'no-worker' || prev === 'no-worker') this.s.changed({ part: 'list' });
    if (this.s.statusVisible) this.s.changed({ part: 'status' });
  }

  scheduleStatus(): void {
    if (this.s.statusVisible) this.timers.debounce('status', 800, () => void this.refreshStatus());
  }

  async refreshStatus(): Promise<void> {
    this.s.statusData = { ...this.s.statusData, loading: true, project: this.s.project };
    this.s.changed({ part: 'status' });
    const [health, stats, queue, obs, agent, search] = await Promise.allSettled([
      this.t.request('health', {}),
      this.t.request('stats', {}),
      this.t.request('queue', {}),
      this.t.request('observations', { project: this.s.project, limit: ECONOMICS_LIMIT }),
      // Modules a worker may not have: their absence is not an error.
      this.t.request('agentStatus', {}),
      this.t.request('searchStatus', {}),
    ]);
    const errors = [health, stats, queue, obs].filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => messageOf(r.reason));
    const optional = <T>(r: PromiseSettledResult<T>): T | undefined => (r.status === 'fulfilled' && r.value && typeof r.value === 'object' ? r.value : undefined);
    const list = obs.status === 'fulfilled' ? parseObservationList(obs.value).items : undefined;
    this.s.statusData = {
      connection: this.s.connection,
      project: this.s.project,
      loading: false,
      health: health.status === 'fulfilled' ? health.value : this.s.statusData.health,
      stats: stats.status === 'fulfilled' ? stats.value : this.s.statusData.stats,
      queue: queue.status === 'fulfilled' ? { ...queue.value, dead: Array.isArray(queue.value.dead) ? queue.value.dead : [] } : this.s.statusData.queue,
      agent: optional(agent),
      search: optional(search),
      economics: list ? economics(list) : this.s.statusData.economics,
      economicsPartial: list ? list.length >= ECONOMICS_LIMIT : this.s.statusData.economicsPartial,
      error: errors.length ? l10n.t('Some figures could not be loaded: {0}', [...new Set(errors)].join('; ')) : undefined,
    };
    this.s.changed({ part: 'status' });
  }

  async retryDead(): Promise<void> {
    try {
      const r = await this.t.request('retryQueue', {});
      this.say(r.retried === 1 ? l10n.t('{0} failed job queued again', r.retried) : l10n.t('{0} failed jobs queued again', r.retried));
      void this.refreshStatus();
    } catch (e) {
      this.sayError(l10n.t('Could not retry the failed jobs: {0}', messageOf(e)));
    }
  }

  async resumeProvider(): Promise<void> {
    try {
      await this.t.request('resumeProvider', {});
      this.say(l10n.t('Compression provider resumed'));
      void this.refreshStatus();
    } catch (e) {
      this.sayError(l10n.t('Could not resume the provider: {0}', messageOf(e)));
    }
  }

  private say(text: string): void {
    this.s.changed({ part: 'say', text });
  }

  private sayError(text: string): void {
    this.s.changed({ part: 'say', text, error: true });
  }

  toggleCapture(): void {
    this.t.toggleCapture();
  }

  openFile(path: string, project?: string): void {
    this.t.openFile(path, project);
  }

  /** The Status tab was shown or left: its figures are fetched while it shows. */
  statusShown(visible: boolean): void {
    this.s.statusVisible = visible;
    if (visible) void this.refreshStatus();
  }
}
