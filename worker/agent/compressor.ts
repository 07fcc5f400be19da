// What the queue needs from a compression provider. The local heuristic implements it here;
// model-backed providers (Anthropic, VS Code LM) implement the same shape.
import type { ObservationJob } from '../lifecycle';
import type { ObservationDraft } from '../store/repos/observations';
import type { SummaryDraft } from '../store/repos/summaries';
import { observeToolUse, summarizeLocally } from './local';

export interface ObserveResult {
  drafts: ObservationDraft[];
  source: string;
  inputTokens: number;
  outputTokens: number;
}

export interface SummaryInput {
  request: string | undefined;
  lastAssistantMessage: string | undefined;
  observations: { type: string; title: string; files_read: string; files_modified: string }[];
  project: string;
}

export interface SummaryResult {
  /** null: nothing worth summarising (a valid empty summary). */
  summary: SummaryDraft | null;
  inputTokens: number;
  outputTokens: number;
}

export interface Compressor {
  readonly name: string;
  state(): { name: string; state: string; lastError?: string };
  observe(job: ObservationJob): Promise<ObserveResult>;
  summarize(input: SummaryInput): Promise<SummaryResult>;
}

export class LocalCompressor implements Compressor {
  readonly name = 'local';

  state() {
    return { name: this.name, state: 'ready' };
  }

  async observe(job: ObservationJob): Promise<ObserveResult> {
    const draft = observeToolUse({ toolName: job.toolName, toolInput: job.toolInput, toolResponse: job.toolResponse, cwd: job.cwd });
    return { drafts: [draft], source: 'local', inputTokens: 0, outputTokens: 0 };
  }

  async summarize(input: SummaryInput): Promise<SummaryResult> {
    return { summary: summarizeLocally(input), inputTokens: 0, outputTokens: 0 };
  }
}
