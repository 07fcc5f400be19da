// What the extension-host side writes to $CLAUDE_MEM_E2E_RESULTS for the Node side to read.
export interface HostTestResult {
  name: string;
  ok: boolean;
  ms: number;
  error?: string;
}

export interface HostReport {
  tests: HostTestResult[];
  /** Measurements the tests recorded (epoch ms timestamps, counts...). */
  data: Record<string, unknown>;
  /** The case under way when the file was written: names the one that hung. */
  running?: string;
}

export const RESULTS_ENV = 'CLAUDE_MEM_E2E_RESULTS';
