// Stop = idle: after a quiet period with no captured activity the window asks for a session summary;
// an @memory chat turn that completes asks at once with its prompt and answer. New activity after a
// summary re-arms the timer (the session resumes). No vscode import; runs on any Timers.
import { realTimers, type Timers } from './timers';

export interface IdleSummary {
  /** The projects that saw activity since their last summary. */
  projects: string[];
  lastUserMessage?: string;
  lastAssistantMessage?: string;
  reason: 'idle' | 'chat-turn';
}

export class IdleTimer {
  private handle: unknown;
  private readonly dirty = new Set<string>();
  /** The last prompt seen since the last summary (sent with an idle summary, then forgotten). */
  private lastUser: string | undefined;
  private disposed = false;

  constructor(
    private readonly quietMs: () => number,
    private readonly onSummary: (s: IdleSummary) => void,
    private readonly timers: Timers = realTimers,
  ) {}

  /** Something was captured (or a prompt was made) in this project. */
  activity(project: string): void {
    if (this.disposed) return;
    this.dirty.add(project);
    this.arm();
  }

  /** A prompt was recorded (chat or command): remembered for the next idle summary. */
  prompt(project: string, text: string): void {
    this.lastUser = text;
    this.activity(project);
  }

  /** An @memory turn finished: summarize this project now with the turn's prompt and answer. */
  chatTurn(project: string, prompt: string, answer: string): void {
    if (this.disposed) return;
    this.lastUser = undefined;
    this.dirty.delete(project);
    this.onSummary({ projects: [project], lastUserMessage: prompt, lastAssistantMessage: answer, reason: 'chat-turn' });
    if (this.dirty.size === 0) this.disarm();
  }

  get pendingProjects(): string[] {
    return [...this.dirty];
  }

  get armed(): boolean {
    return this.handle !== undefined;
  }

  private arm(): void {
    this.disarm();
    const ms = this.quietMs();
    if (!(ms > 0)) return; // 0 turns idle summaries off
    this.handle = this.timers.setTimeout(() => this.fire(), ms);
  }

  private disarm(): void {
    if (this.handle !== undefined) this.timers.clearTimeout(this.handle);
    this.handle = undefined;
  }

  private fire(): void {
    this.handle = undefined;
    if (this.disposed || this.dirty.size === 0) return;
    const projects = [...this.dirty];
    this.dirty.clear();
    const lastUserMessage = this.lastUser;
    this.lastUser = undefined;
    this.onSummary({ projects, lastUserMessage, reason: 'idle' });
  }

  dispose(): void {
    this.disposed = true;
    this.disarm();
  }
}
