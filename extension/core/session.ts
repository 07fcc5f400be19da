// The window's session as the worker sees it: identity from the IDE (vscode.env.sessionId, platform
// 'vscode'), one worker session per project (a multi-root window may span several), prompts,
// idle summaries and completion. Posts are fire-and-forget. No vscode import.
import type { CompleteRequest, InitRequest, ObservationRequest, SummarizeRequest } from '../../common/contract';
import { IdleTimer, type IdleSummary } from './idle';
import { realTimers, type Timers } from './timers';

export const PLATFORM = 'vscode';

/** Placeholder values some hosts give instead of a real session id (code-server's remote host says "someValue.sessionId"). */
const PLACEHOLDER = /^(someValue\.sessionId|undefined|null|)$/;

/**
 * The window's session id: vscode.env.sessionId as the IDE gives it. Where the host gives only a
 * placeholder (every window would then share one session), one id per extension-host start is made
 * from the machine id, the process and the time, and `derived` says so.
 */
export function windowSessionId(raw: string | undefined, machineId: string | undefined, pid: number, now: number): { id: string; derived: boolean } {
  if (raw && !PLACEHOLDER.test(raw.trim())) return { id: raw, derived: false };
  const machine = machineId && !/^someValue/.test(machineId) ? machineId.slice(0, 12) : 'host';
  return { id: `vscode-${machine}-${pid}-${now.toString(36)}`, derived: true };
}

/** What the session needs from the worker connection. */
export interface Poster {
  fire(urlPath: string, body: unknown): void;
  request(method: string, urlPath: string, body?: unknown, timeoutMs?: number): Promise<unknown>;
}

export interface SessionOptions {
  /** vscode.env.sessionId. */
  sessionId: string;
  /** The project of the first workspace folder, which gets the bare session id. */
  primaryProject: () => string;
  /** Folder (cwd) of each project, when known. */
  cwdOf(project: string): string | undefined;
  poster: () => Poster | undefined;
  idleMs: () => number;
  /**
   * Whether capture may record anything now: the workspace is trusted, capture is enabled and not
   * paused. Checked on every prompt, observation, chat turn and summary (absent: always).
   */
  captureAllowed?: () => boolean;
  timers?: Timers;
  onSummary?: (s: IdleSummary) => void;
}

export class SessionTracker {
  readonly idle: IdleTimer;
  private readonly used = new Set<string>();
  private completed = false;

  constructor(private readonly o: SessionOptions) {
    this.idle = new IdleTimer(o.idleMs, (s) => this.summarize(s), o.timers ?? realTimers);
  }

  /** The worker's contentSessionId for a project: the bare window id for the primary project. */
  contentSessionId(project: string): string {
    return project === this.o.primaryProject() ? this.o.sessionId : `${this.o.sessionId}#${project}`;
  }

  private post(urlPath: string, body: unknown): void {
    this.o.poster()?.fire(urlPath, body);
  }

  private base(project: string): { contentSessionId: string; platform: string; project: string; cwd?: string } {
    this.used.add(project);
    this.completed = false;
    const cwd = this.o.cwdOf(project);
    return { contentSessionId: this.contentSessionId(project), platform: PLATFORM, project, ...(cwd ? { cwd } : {}) };
  }

  private allowed(): boolean {
    return this.o.captureAllowed ? this.o.captureAllowed() : true;
  }

  /** UserPromptSubmit: an @memory request or a palette command that asked something. Nothing while capture is off. */
  prompt(project: string, text: string): void {
    if (!this.allowed()) return;
    const body: InitRequest = { ...this.base(project), prompt: text };
    this.post('/api/sessions/init', body);
    this.idle.prompt(project, text);
  }

  /** PostToolUse: a captured editor event, already mapped. */
  observe(project: string, req: Omit<ObservationRequest, 'contentSessionId' | 'platform' | 'project'>): ObservationRequest | undefined {
    if (!this.allowed()) return undefined;
    const body: ObservationRequest = { ...req, ...this.base(project) };
    this.post('/api/sessions/observations', body);
    this.idle.activity(project);
    return body;
  }

  /** An @memory turn completed: summarize now. */
  chatTurn(project: string, prompt: string, answer: string): void {
    if (!this.allowed()) return;
    this.idle.chatTurn(project, prompt, answer);
  }

  private summarize(s: IdleSummary): void {
    // Capture went off since the activity: its summary is not asked for either.
    if (!this.allowed()) return;
    for (const project of s.projects) {
      const body: SummarizeRequest & { project: string } = {
        ...this.base(project),
        ...(s.lastUserMessage ? { last_user_message: s.lastUserMessage } : {}),
        ...(s.lastAssistantMessage ? { last_assistant_message: s.lastAssistantMessage } : {}),
      };
      this.post('/api/sessions/summarize', body);
    }
    this.o.onSummary?.(s);
  }

  /**
   * SessionEnd: mark every session this window used complete. Never throws and never waits longer
   * than the request timeout; deactivate may await it so the posts leave before the host exits.
   */
  complete(reason = 'window-closed', timeoutMs = 1500): Promise<void> {
    if (this.completed) return Promise.resolve();
    this.completed = true;
    this.idle.dispose();
    const poster = this.o.poster();
    if (!poster) return Promise.resolve();
    const sends = [...this.used].map((project) => {
      const body: CompleteRequest & { project: string } = { contentSessionId: this.contentSessionId(project), platform: PLATFORM, project, reason };
      return poster.request('POST', '/api/sessions/complete', body, timeoutMs).then(
        () => undefined,
        () => undefined,
      );
    });
    return Promise.all(sends).then(() => undefined);
  }

  get projectsUsed(): string[] {
    return [...this.used];
  }
}
