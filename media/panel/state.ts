// The Memory panel's state and its pure transitions: which project, words and filters, what the
// list and the detail show, the connection, the status figures. No DOM and no transport: actions.ts
// changes it after talking to the host and says what changed (`changed`); the views (ui/panel.ts)
// subscribe, read it and draw.
import type { ConnectionState, Observation, ProjectInfo, SearchMode } from '../../common/contract';
import { FeedState, filtersActive, type Filters, type RowList } from './model';
import type { HostInfo } from './transport';
import type { StatusData } from './ui/status';

/** Observations per feed page. */
export const PAGE = 100;
/** Sessions listed with the feed. */
export const SESSIONS = 200;
/** Observations the token economics covers at most. */
export const ECONOMICS_LIMIT = 1000;
/** Results per search page. */
export const SEARCH_PAGE = 50;

export type SearchState = { state: 'loading' } | { state: 'ready'; list: RowList } | { state: 'error'; message: string };
export type LoadState = { state: 'loading' } | { state: 'ready' } | { state: 'error'; message: string };
export type TimelineState = { state: 'idle' } | { state: 'loading' } | { state: 'error'; message: string } | { state: 'ready'; list: RowList };

/** What a view is told after the state changed: a part to draw again, or a message for the person. */
export type StateChange =
  | { part: 'header' | 'projects' | 'listSoon' | 'status' | 'fieldsCleared' }
  /** refocusFor: a row was removed; the keyboard stays where that row was. */
  | { part: 'list'; refocusFor?: number }
  /** queryIfFocused: the detail closed under the keyboard; it goes to the search field. */
  | { part: 'detail'; focus?: boolean; queryIfFocused?: boolean }
  | { part: 'defaultProject'; project: string | undefined }
  | { part: 'filterCount'; count: number }
  /** Back in the list: the keyboard goes to this observation's row. */
  | { part: 'rowFocus'; id: number | undefined }
  | { part: 'say'; text: string; error?: true };

export class PanelState {
  private readonly listeners: ((c: StateChange) => void)[] = [];
  readonly feed = new FeedState();
  info: HostInfo = { capabilities: { openFiles: false, pauseCapture: false } };
  project: string | undefined;
  projects: ProjectInfo[] = [];
  filters: Filters = {};
  query = '';
  mode: SearchMode = 'hybrid';
  search: SearchState | undefined;
  /** Bumped by each search (and by leaving search): a reply to an older one is dropped. */
  searchSeq = 0;
  /** The worker has no search route: words and filters narrow the loaded feed instead. */
  searchUnavailable = false;
  view: 'list' | 'detail' = 'list';
  selectedId: number | undefined;
  detail: Observation | undefined;
  /** Why the detail shows no observation (deleted, failed to load). */
  detailNote: string | undefined;
  timeline: TimelineState = { state: 'idle' };
  load: LoadState = { state: 'loading' };
  loadSeq = 0;
  hasMore = false;
  /** Observations loaded from the worker's pages (the next page's offset). */
  serverCount = 0;
  connection: ConnectionState = 'connecting';
  connectionDetail: string | undefined;
  capturePaused: boolean | undefined;
  /** Keys of rows that just arrived (highlighted once). */
  readonly fresh = new Set<string>();
  /** Observation ids announced by the stream, to fetch in one batch. */
  readonly hydrate = new Set<number>();
  statusData: StatusData = { connection: 'connecting', loading: false };
  statusVisible = false;

  /** Calls `fn` with every change from now on. */
  subscribe(fn: (c: StateChange) => void): void {
    this.listeners.push(fn);
  }

  /** Tells the subscribers what changed. */
  changed(c: StateChange): void {
    for (const fn of this.listeners) fn(c);
  }

  /** Words or filters go to the worker's search route (over all memory, not only what is loaded). */
  searching(): boolean {
    return (this.query.trim() !== '' || filtersActive(this.filters)) && !this.searchUnavailable;
  }

  /** Without the search route, words and filters narrow the loaded feed instead. */
  localFilters(): Filters {
    if (!this.searchUnavailable) return {};
    return { ...this.filters, ...(this.query.trim() ? { text: this.query } : {}) };
  }

  /** Applies a filter change (an empty value removes the filter); returns how many are active. */
  patchFilters(patch: Partial<Filters>): number {
    this.filters = { ...this.filters, ...patch };
    for (const k of Object.keys(this.filters) as (keyof Filters)[]) if (!this.filters[k]) delete this.filters[k];
    return Object.keys(this.filters).length;
  }

  /** Back to the feed: results of a search still on its way are dropped. */
  leaveSearch(): void {
    this.searchSeq++;
    this.search = undefined;
  }

  closeDetail(): void {
    this.selectedId = undefined;
    this.detail = undefined;
    this.detailNote = undefined;
    this.view = 'list';
    this.timeline = { state: 'idle' };
  }

  /** A deleted observation leaves the feed, the search results and the timeline. */
  dropObservation(id: number): void {
    this.feed.removeObservation(id);
    if (this.search?.state === 'ready') this.search.list.rows = this.search.list.rows.filter((r) => !(r.kind === 'observation' && r.id === id));
    if (this.timeline.state === 'ready') this.timeline.list.rows = this.timeline.list.rows.filter((r) => !(r.kind === 'observation' && r.id === id));
  }

  markFresh(key: string): void {
    this.fresh.add(key);
    setTimeout(() => this.fresh.delete(key), 1500);
  }
}
