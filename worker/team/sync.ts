// Team sync for one worker: connects to the hub (reconnecting with backoff), pushes the outbox,
// pulls each shared project from its cursor (on NOTIFY while connected, and on a slow poll as a
// safety net), and reports a status. The local store stays the source of every answer: the hub
// being down only means the outbox waits. Hub work runs one operation at a time on one connection.
import { randomUUID } from 'node:crypto';
import type { EventBus } from '../events';
import type { Logger } from '../../common/node/log';
import { BadRequest } from '../../common/contract';
import type { Store } from '../store/store';
import { TeamClock } from './clock';
import { describeUrl, resolveUrl, scrub, URL_FILE, validUrl, type UrlSource } from '../../common/node/teamConnection';
import { Hub } from './hub';
import { HubSchemaError } from './hubSchema';
import {
  ackOutbox,
  addShare,
  applyChanges,
  buildPush,
  changesAnything,
  deferOutbox,
  getMeta,
  listShares,
  nextOutboxAttempt,
  outboxCount,
  outboxReady,
  queueCorrection,
  removeShare,
  setMeta,
  shareOf,
  type Applied,
} from './local';
import { readTeamSettings, type TeamSettings } from './settings';
import type { TeamState, TeamStatus } from './types';

export interface TeamDeps {
  store: Store;
  events: EventBus;
  log: Logger;
  dataDir: string;
  env?: NodeJS.ProcessEnv;
  /** Resolves in a gap between write requests (Processor.nextGap): a push's local reads and writes wait for it. */
  gap?: () => Promise<void>;
}

const PUSH_BATCH = 200;
/** A new record waits this long for others to push with it (a burst becomes one hub transaction)... */
const PUSH_COALESCE_MS = 20;
/** ...and longer while records keep coming (the last push carried several): fewer, bigger pushes during a burst. */
const PUSH_BURST_MS = 250;
const BURST_ROWS = 5;
/** Notifications this close together cause one pull. */
const PULL_COALESCE_MS = 10;
const PULL_BATCH = 500;
/** While connected, pull this often even without a NOTIFY (a notification lost to a reconnect). */
const POLL_MS = 30_000;
const RECONNECT_MIN_MS = 1000;
const RECONNECT_MAX_MS = 60_000;
/** A hub that refuses a batch (not a lost connection) is retried with this backoff, capped. */
const REFUSED_BASE_MS = 5000;
const REFUSED_MAX_MS = 3_600_000;
/** A refused login (wrong password, no such role) is retried this slowly, doubling, capped: managed servers lock accounts out. */
const AUTH_RETRY_MIN_MS = 300_000;
const AUTH_RETRY_MAX_MS = 3_600_000;
/** A push that waited too long for a lock a teammate's session holds is tried again this soon. */
const LOCK_RETRY_MS = 1000;

export class TeamSync {
  readonly clock: TeamClock;
  readonly settings: TeamSettings;
  private state: TeamState = 'off';
  private hub: Hub | undefined;
  private extensionUrl: string | undefined;
  private url: string | undefined;
  private source: UrlSource | null = null;
  private lastError: string | null = null;
  private lastPushAt: number | null = null;
  private lastPullAt: number | null = null;
  private reconnectDelay = RECONNECT_MIN_MS;
  private authDelay = AUTH_RETRY_MIN_MS;
  /** `team connect` wrote the file after VS Code handed over a string: the file wins (the last explicit action). */
  private fileFirst = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private pushTimer: NodeJS.Timeout | undefined;
  private connecting: Promise<void> | undefined;
  private serial: Promise<unknown> = Promise.resolve();
  private pushQueued = false;
  private lastPushRows = 0;
  private pullQueued = false;
  private pullTimer: NodeJS.Timeout | undefined;
  /** Cursors moved past changes that needed no write (own pushes); persisted with the next write. */
  private readonly cursors = new Map<string, number>();
  /** Observation ids whose teammate's correction is being announced (not queued back to the hub). */
  private readonly applying = new Set<number>();
  private stopped = false;
  private unsubscribe: (() => void) | undefined;
  private readonly env: NodeJS.ProcessEnv;
  /** Test hook: wait this long between the hub's commit and the local acknowledgement. */
  private readonly ackDelayMs: number;
  private readonly pushBatch: number;

  constructor(private readonly deps: TeamDeps) {
    this.env = deps.env ?? process.env;
    this.clock = new TeamClock(this.env);
    this.settings = readTeamSettings(deps.dataDir, this.env);
    this.ackDelayMs = Number(this.env.CLAUDE_MEM_TEAM_TEST_ACK_DELAY_MS ?? 0) || 0;
    this.pushBatch = Math.max(1, Number(this.env.CLAUDE_MEM_TEAM_PUSH_BATCH ?? PUSH_BATCH) || PUSH_BATCH);
  }

  start(): void {
    if (this.unsubscribe) return;
    this.stopped = false;
    // Anything that may have filled the outbox (the triggers do it in the record's own transaction).
    this.unsubscribe = this.deps.events.subscribe((e) => {
      // The user's confirm or retire of a shared memory travels (not a teammate's, applied by a pull).
      if (e.event === 'memory_freshness' && e.data.id !== undefined && (e.data.status === 'confirmed' || e.data.status === 'retired') && !this.applying.has(e.data.id)) {
        const id = e.data.id;
        void this.deps.store.write((tx) => queueCorrection(tx, id)).then((queued) => queued && this.schedulePush(PUSH_COALESCE_MS), (err: Error) => this.deps.log.warn('team: correction not queued', { id, error: err.message }));
        return;
      }
      if (e.event === 'new_observation' || e.event === 'observations_imported' || e.event === 'new_summary' || e.event === 'new_prompt' || e.event === 'observation_deleted' || e.event === 'project_deleted' || e.event === 'session_forgotten') this.schedulePush(this.lastPushRows >= BURST_ROWS ? PUSH_BURST_MS : PUSH_COALESCE_MS);
    });
    void this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.pushTimer);
    clearTimeout(this.pullTimer);
    clearInterval(this.pollTimer);
    const hub = this.hub;
    this.hub = undefined;
    await this.serial.catch(() => undefined);
    await hub?.close();
    await this.saveCursors().catch(() => undefined);
  }

  /** Writes the in-memory cursors (a lost one only means pulling some changes again, which is harmless). */
  private async saveCursors(): Promise<void> {
    const moved = [...this.cursors].filter(([p, c]) => (shareOf(this.deps.store, p)?.cursor ?? Infinity) < c);
    if (moved.length === 0 || this.deps.store.broken) return;
    await this.deps.store.write((tx) => {
      for (const [p, c] of moved) tx.run('UPDATE team_shares SET cursor = max(cursor, ?) WHERE project = ?', [c, p]);
    });
  }

  /** The connection string from VS Code's SecretStorage (memory only), or undefined to forget it. */
  async setExtensionUrl(url: string | undefined): Promise<void> {
    if (url !== undefined && !validUrl(url)) throw new BadRequest('the connection string must be a postgres:// or postgresql:// URL');
    this.extensionUrl = url;
    this.fileFirst = false;
    await this.reconnect();
  }

  /**
   * `team connect` wrote <dataDir>/team.url: the last explicit action wins over a string VS Code
   * handed over earlier and over CLAUDE_MEM_TEAM_URL (said in the log, and by `source` in the status).
   */
  async reloadConnection(): Promise<void> {
    const file = resolveUrl(this.deps.dataDir, undefined, {}).found;
    if (file) {
      if (this.extensionUrl || this.env.CLAUDE_MEM_TEAM_URL?.trim()) this.deps.log.info(`team: the connection string of ${URL_FILE} (written by team connect) now replaces the one ${this.extensionUrl ? 'VS Code handed over' : 'of CLAUDE_MEM_TEAM_URL'}: the last explicit action wins`);
      this.extensionUrl = undefined;
      this.fileFirst = true;
    }
    this.authDelay = AUTH_RETRY_MIN_MS;
    await this.reconnect();
  }

  /** Drops the connection and connects again (a new connection string, or "sync now" while offline). */
  async reconnect(): Promise<void> {
    clearTimeout(this.reconnectTimer);
    const hub = this.hub;
    this.hub = undefined;
    await hub?.close();
    this.reconnectDelay = RECONNECT_MIN_MS;
    await this.connect();
  }

  /** Pushes and pulls now; connects first when offline. Resolves when both are done. */
  async syncNow(): Promise<TeamStatus> {
    if (!this.hub?.alive) await this.reconnect();
    else {
      await this.exclusive(() => this.pushAll());
      await this.exclusive(() => this.pullAll());
    }
    return this.status();
  }

  status(): TeamStatus {
    const store = this.deps.store;
    const shares = listShares(store).map((s) => ({ ...s, waiting: outboxCount(store, s.project) }));
    return {
      state: this.state,
      source: this.source,
      hub: this.url ? describeUrl(this.url) : null,
      author: this.hub?.author || getMeta(store, 'author') || null,
      machine: this.settings.machine,
      machineId: getMeta(store, 'machine_id') ?? null,
      waiting: outboxCount(store),
      shares,
      lastError: this.lastError,
      lastPushAt: this.lastPushAt === null ? null : new Date(this.lastPushAt).toISOString(),
      lastPullAt: this.lastPullAt === null ? null : new Date(this.lastPullAt).toISOString(),
      injectTeammates: this.settings.injectTeammates,
    };
  }

  async share(project: string, team?: string, prompts = false): Promise<{ project: string; team: string; queued: number; prompts: boolean }> {
    const hub = this.hub;
    if (!hub?.alive) throw new BadRequest(`not connected to the team hub (${this.state}${this.lastError ? `: ${this.lastError}` : ''}); set up the connection first (docs/team.md)`, 409);
    const chosen = await this.exclusive(async () => {
      const teams = await hub.teams();
      if (team !== undefined && !teams.includes(team)) throw new BadRequest(`role "${hub.author}" is not a member of team "${team}" (its teams: ${teams.join(', ') || 'none'})`, 403);
      if (team === undefined && teams.length !== 1) {
        throw new BadRequest(teams.length === 0 ? `role "${hub.author}" is not a member of any team; a hub admin adds it (docs/team.md)` : `role "${hub.author}" is in several teams (${teams.join(', ')}); choose one with team`, teams.length === 0 ? 403 : 400);
      }
      const t = team ?? teams[0];
      await hub.shareProject(t, project);
      return t;
    });
    await this.ensureMachineId();
    this.cursors.delete(project); // a new share pulls from its own cursor (0 after an unshare)
    const queued = await this.deps.store.write((tx) => addShare(tx, project, chosen, this.clock.now(), prompts));
    this.deps.log.info('team: project shared', { project, team: chosen, queued, prompts });
    this.schedulePush(0);
    this.schedulePull();
    return { project, team: chosen, queued, prompts };
  }

  async unshare(project: string): Promise<{ project: string; unshared: boolean }> {
    const unshared = await this.deps.store.write((tx) => removeShare(tx, project));
    this.cursors.delete(project);
    if (unshared) this.deps.log.info('team: project no longer shared', { project });
    return { project, unshared };
  }

  /**
   * Forgets a shared project for the whole team: the hub tombstones every record of it, if this
   * login is a maintainer of the team (the hub checks), and every worker deletes its copy on its
   * next pull, this one now. A project that never held a record (a typo share) leaves the hub.
   */
  async forgetForTeam(project: string, team?: string): Promise<{ project: string; team: string; tombstoned: number }> {
    const hub = this.hub;
    if (!hub?.alive) throw new BadRequest(`not connected to the team hub (${this.state}${this.lastError ? `: ${this.lastError}` : ''})`, 409);
    const t = team ?? shareOf(this.deps.store, project)?.team;
    if (!t) throw new BadRequest(`project "${project}" is not shared from here; name its team with team`, 400);
    let tombstoned: number;
    try {
      tombstoned = await this.exclusive(() => hub.forgetProject(t, project));
    } catch (e) {
      const err = e as Error & { code?: string };
      if (err.code === '42501') throw new BadRequest(scrub(err.message, this.url), 403);
      if (err.code === 'P0002') throw new BadRequest(scrub(err.message, this.url), 404);
      throw e;
    }
    this.deps.log.info('team: project forgotten for the team', { project, team: t, tombstoned });
    await this.exclusive(() => this.pullAll());
    return { project, team: t, tombstoned };
  }

  isShared(project: string): boolean {
    return shareOf(this.deps.store, project) !== undefined;
  }

  // ---- connection ----

  private connect(): Promise<void> {
    this.connecting ??= this.doConnect().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async doConnect(): Promise<void> {
    if (this.stopped) return;
    clearTimeout(this.reconnectTimer);
    const r = resolveUrl(this.deps.dataDir, this.extensionUrl, this.fileFirst ? { ...this.env, CLAUDE_MEM_TEAM_URL: '' } : this.env);
    this.url = r.found?.url;
    this.source = r.found?.source ?? null;
    if (!r.found) {
      this.setState(r.problem ? 'error' : 'off', r.problem ?? null);
      return;
    }
    if (!validUrl(r.found.url)) {
      this.setState('error', `the ${r.found.source === 'env' ? 'CLAUDE_MEM_TEAM_URL' : r.found.source === 'file' ? 'team.url' : 'stored'} connection string is not a postgres:// URL`);
      return;
    }
    this.setState('connecting', this.lastError);
    let hub: Hub | undefined;
    try {
      hub = await Hub.connect({
        url: r.found.url,
        onNotify: () => this.schedulePull(),
        onLost: (e) => this.lost(hub, e),
      });
    } catch (e) {
      const message = scrub((e as Error).message, this.url);
      const code = (e as { code?: string }).code;
      if (e instanceof HubSchemaError) {
        this.setState('error', message);
        this.scheduleReconnect(RECONNECT_MAX_MS);
      } else if (code === '28P01' || code === '28000') {
        // Not "offline": retrying a refused password every few seconds locks accounts out on managed servers.
        const who = userOf(r.found.url);
        const minutes = Math.round(this.authDelay / 60_000);
        this.setState(
          'error',
          `the team hub refused the login${who ? ` of role "${who}"` : ''} (${code === '28P01' ? 'wrong password' : 'not allowed to connect'}): set the connection string again (claude-mem team connect, or Claude Mem: Share Project Memory); trying again in ${minutes} min`,
        );
        this.scheduleReconnect(this.authDelay);
        this.authDelay = Math.min(AUTH_RETRY_MAX_MS, this.authDelay * 2);
      } else {
        this.setState('offline', message);
        this.scheduleReconnect();
      }
      return;
    }
    if (this.stopped) {
      await hub.close();
      return;
    }
    this.hub = hub;
    this.reconnectDelay = RECONNECT_MIN_MS;
    this.authDelay = AUTH_RETRY_MIN_MS;
    this.setState('connected', null);
    await this.ensureMachineId();
    if (getMeta(this.deps.store, 'author') !== hub.author) await this.deps.store.write((tx) => setMeta(tx, 'author', hub.author));
    clearInterval(this.pollTimer);
    // The safety net: a pull, and a push of anything queued without an event (a session deleted, an import).
    this.pollTimer = setInterval(() => {
      this.schedulePull();
      this.schedulePush(0);
    }, POLL_MS);
    this.pollTimer.unref();
    await this.exclusive(() => this.pullAll());
    await this.exclusive(() => this.pushAll());
  }

  private lost(hub: Hub | undefined, e: Error): void {
    if (!hub || this.hub !== hub) return;
    this.hub = undefined;
    clearInterval(this.pollTimer);
    void hub.close();
    this.setState('offline', scrub(e.message, this.url));
    this.scheduleReconnect();
  }

  private scheduleReconnect(ms?: number): void {
    if (this.stopped) return;
    clearTimeout(this.reconnectTimer);
    const delay = ms ?? Math.round(this.reconnectDelay * (0.5 + Math.random() / 2));
    if (ms === undefined) this.reconnectDelay = Math.min(RECONNECT_MAX_MS, this.reconnectDelay * 2);
    this.reconnectTimer = setTimeout(() => void this.connect(), delay);
    this.reconnectTimer.unref();
  }

  private setState(state: TeamState, error: string | null): void {
    if (state !== this.state || error !== this.lastError) {
      const log = state === 'error' || state === 'offline' ? this.deps.log.warn.bind(this.deps.log) : this.deps.log.info.bind(this.deps.log);
      log(`team: ${state}${error ? `: ${error}` : ''}`);
    }
    this.state = state;
    this.lastError = error;
  }

  private async ensureMachineId(): Promise<void> {
    if (getMeta(this.deps.store, 'machine_id')) return;
    const id = randomUUID().replace(/-/g, '').slice(0, 16);
    await this.deps.store.write((tx) => {
      if (!getMeta(tx, 'machine_id')) setMeta(tx, 'machine_id', id);
    });
  }

  /** Hub operations run one at a time (one connection; a push is a transaction). */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.serial.then(fn, fn);
    this.serial = run.catch(() => undefined);
    return run;
  }

  // ---- push ----

  private schedulePush(delayMs: number): void {
    if (this.stopped || !this.hub?.alive) return;
    if (this.pushQueued && delayMs > 0) return;
    clearTimeout(this.pushTimer);
    this.pushQueued = true;
    this.pushTimer = setTimeout(() => {
      this.pushQueued = false;
      void this.exclusive(() => this.pushAll());
    }, delayMs);
    this.pushTimer.unref();
  }

  private async pushAll(): Promise<void> {
    const store = this.deps.store;
    let pushed = 0;
    for (;;) {
      const hub = this.hub;
      if (this.stopped || !hub?.alive || store.broken) return;
      await this.deps.gap?.();
      const rows = outboxReady(store, this.clock.now(), this.pushBatch);
      if (rows.length === 0) break;
      pushed += rows.length;
      const batch = buildPush(store, rows, this.settings.machine, this.clock.now());
      try {
        await hub.push(batch.records, batch.tombstones, batch.corrections);
      } catch (e) {
        const err = e as Error & { code?: string };
        if (isConnectionError(err)) {
          this.lost(hub, err);
          return;
        }
        if (err.code === '55P03' || err.code === '57014' || err.code === '40P01' || err.code === '40001') {
          // A lock held by another session (a teammate's open transaction): not a refusal; again soon.
          this.setState('connected', `push waited too long for a lock on the hub (${err.code}); trying again`);
          this.schedulePush(LOCK_RETRY_MS);
          break;
        }
        // The hub refused the batch (a permission, a constraint): back off these rows, keep them.
        const attempts = Math.max(...rows.map((r) => r.attempts)) + 1;
        const next = this.clock.now() + Math.min(REFUSED_MAX_MS, REFUSED_BASE_MS * 2 ** (attempts - 1));
        const message = scrub(err.message, this.url);
        this.setState('connected', `push refused: ${message}`);
        await store.write((tx) => deferOutbox(tx, batch.ids, next, message));
        break;
      }
      if (this.ackDelayMs > 0) await new Promise((r) => setTimeout(r, this.ackDelayMs));
      await this.deps.gap?.();
      await store.write((tx) => ackOutbox(tx, batch.ids));
      this.lastPushAt = this.clock.now();
    }
    this.lastPushRows = pushed;
    // Rows backing off wake the pusher when they are due.
    const due = nextOutboxAttempt(store);
    // (A push already queued runs sooner and sets this again.)
    if (due !== undefined && due > this.clock.now() && !this.pushQueued) {
      clearTimeout(this.pushTimer);
      this.pushTimer = setTimeout(() => void this.exclusive(() => this.pushAll()), Math.min(2 ** 31 - 1, due - this.clock.now()));
      this.pushTimer.unref();
    }
  }

  // ---- pull ----

  /** Coalesces notifications that come close together (a burst of pushes from several workers). */
  private schedulePull(): void {
    if (this.stopped || this.pullQueued) return;
    this.pullQueued = true;
    this.pullTimer = setTimeout(() => {
      void this.exclusive(async () => {
        this.pullQueued = false;
        await this.pullAll();
      });
    }, PULL_COALESCE_MS);
    this.pullTimer.unref();
  }

  private async pullAll(): Promise<void> {
    const store = this.deps.store;
    for (const share of listShares(store)) {
      let cursor = Math.max(share.cursor, this.cursors.get(share.project) ?? 0);
      for (;;) {
        const hub = this.hub;
        if (this.stopped || !hub?.alive || store.broken) return;
        let changes;
        try {
          changes = await hub.pull(share.team, share.project, cursor, PULL_BATCH, getMeta(store, 'machine_id') ?? '');
        } catch (e) {
          const err = e as Error & { code?: string };
          if (isConnectionError(err)) this.lost(hub, err);
          else this.setState('connected', `pull failed: ${scrub(err.message, this.url)}`);
          return;
        }
        if (changes.length === 0) break;
        const last = Math.max(cursor, ...changes.map((c) => Number(c.seq)));
        if (!changesAnything(store, changes)) {
          this.cursors.set(share.project, last);
          cursor = last;
          if (changes.length < PULL_BATCH) break;
          continue;
        }
        const out: Applied = { added: [], removed: [], refused: [], cut: 0 };
        const from = cursor;
        const now = this.clock.now();
        // The project may have been unshared while the pull was in flight.
        const applied = await store.write((tx) => {
          if (!shareOf(tx, share.project)) return false;
          applyChanges(tx, share.project, changes, out, from, now);
          return true;
        });
        if (!applied) break;
        for (const r of out.refused.slice(0, 20)) this.deps.log.warn('team: pulled record refused', { project: share.project, gid: r.gid.slice(0, 200), author: r.author, reason: r.reason });
        if (out.refused.length > 20) this.deps.log.warn('team: more pulled records refused', { project: share.project, count: out.refused.length - 20 });
        if (out.cut > 0) this.deps.log.info('team: pulled records cut to the caps', { project: share.project, count: out.cut });
        this.cursors.delete(share.project);
        this.emitApplied(share.project, out);
        cursor = last;
        if (changes.length < PULL_BATCH) break;
      }
    }
    this.lastPullAt = this.clock.now();
  }

  private emitApplied(project: string, out: Applied): void {
    for (const a of out.added) {
      if (a.kind === 'observation') this.deps.events.emit('new_observation', { id: a.id, project, type: a.type, title: a.title, source: 'team' });
      else if (a.kind === 'summary') this.deps.events.emit('new_summary', { id: a.id, project, source: 'team' });
    }
    for (const r of out.removed) if (r.kind === 'observation') this.deps.events.emit('observation_deleted', { id: r.id, project });
    for (const d of out.decided ?? []) {
      this.applying.add(d.id);
      try {
        this.deps.events.emit('memory_freshness', { project, id: d.id, status: d.status });
      } finally {
        this.applying.delete(d.id);
      }
    }
  }
}

function userOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).username);
  } catch {
    return '';
  }
}

/** Errors that mean the connection is gone (no SQLSTATE, or class 08 / 57P0x), not a refusal. */
function isConnectionError(e: Error & { code?: string }): boolean {
  const code = e.code;
  if (!code || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03';
}
