// The daily token budget: model calls stop (work falls back to `local`) once the day's input and
// output tokens reach it. Seeded at start from the tokens stored today, so a restart keeps count.

export interface BudgetOptions {
  /** Tokens per local calendar day; 0 means no limit. */
  dailyTokens: number;
  /** Tokens already spent since the given epoch ms (from the store). */
  spentSince: (since: number) => number;
  now?: () => number;
}

function dayOf(t: number): { key: string; start: number } {
  const d = new Date(t);
  const start = new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  const key = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
  return { key, start };
}

export class TokenBudget {
  private day = '';
  private used = 0;

  constructor(private readonly opts: BudgetOptions) {}

  private roll(): void {
    const { key, start } = dayOf(this.opts.now?.() ?? Date.now());
    if (key === this.day) return;
    this.day = key;
    this.used = this.opts.spentSince(start);
  }

  get limit(): number {
    return Math.max(0, this.opts.dailyTokens);
  }

  usedToday(): { day: string; used: number } {
    this.roll();
    return { day: this.day, used: this.used };
  }

  /** True when a call of about `estimate` input tokens must not be made today. */
  exhausted(estimate = 0): boolean {
    if (this.limit === 0) return false;
    this.roll();
    return this.used >= this.limit || this.used + estimate > this.limit;
  }

  add(tokens: number): void {
    this.roll();
    this.used += Math.max(0, tokens);
  }
}
