// The provider's health as the queue sees it: ready, cooling down after transient errors (so one
// 429 holds back every batch, not just the one that got it), or paused until a person acts.
import type { PauseReason } from './model';

export interface GateOptions {
  /** How long a quota pause lasts before one probe call is allowed. */
  quotaPauseMs: number;
  now?: () => number;
}

export class ProviderGate {
  private pause: { reason: PauseReason; message: string; until?: number } | undefined;
  private cooldownUntil = 0;
  lastError: string | undefined;
  lastErrorAt: number | undefined;

  constructor(private readonly opts: GateOptions) {}

  private now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  /** The pause in force, if any (a quota pause lapses into one probe). */
  paused(): { reason: PauseReason; message: string; until?: number } | undefined {
    if (this.pause?.until !== undefined && this.pause.until <= this.now()) this.pause = undefined;
    return this.pause;
  }

  /** Epoch ms before which no call should be made (0 when none). */
  coolingUntil(): number {
    return this.cooldownUntil > this.now() ? this.cooldownUntil : 0;
  }

  note(message: string): void {
    this.lastError = message.slice(0, 500);
    this.lastErrorAt = this.now();
  }

  cooldown(message: string, ms: number): void {
    this.note(message);
    this.cooldownUntil = Math.max(this.cooldownUntil, this.now() + ms);
  }

  pauseFor(reason: PauseReason, message: string): void {
    this.note(message);
    this.pause = { reason, message, until: reason === 'quota' ? this.now() + this.opts.quotaPauseMs : undefined };
  }

  resume(): boolean {
    const was = this.pause !== undefined || this.cooldownUntil > 0;
    this.pause = undefined;
    this.cooldownUntil = 0;
    return was;
  }
}
