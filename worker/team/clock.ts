// The sync's clock. Tests move it forward (a day offline in a second) through
// CLAUDE_MEM_TEAM_CLOCK_OFFSET_MS or POST /api/team/test/clock (only with CLAUDE_MEM_TEST_HOOKS=1).
export class TeamClock {
  private offset: number;

  constructor(env: NodeJS.ProcessEnv = process.env) {
    this.offset = Number(env.CLAUDE_MEM_TEAM_CLOCK_OFFSET_MS ?? 0) || 0;
  }

  now(): number {
    return Date.now() + this.offset;
  }

  advance(ms: number): void {
    this.offset += ms;
  }
}
