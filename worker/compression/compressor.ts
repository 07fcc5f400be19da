// What the queue needs from a compression provider. The local heuristic implements it here;
// model-backed providers (Anthropic, VS Code LM) implement the same shape in modelCompressor.ts.
import type { ObservationJob } from '../lifecycle';
import type { ProviderStatus } from '../../common/contract';
import type { ObservationDraft } from '../store/repos/observations';
import type { SummaryDraft } from '../store/repos/summaries';
import { observeToolUse, summarizeLocally } from './local';
import { noteOfDraft, triage, type TriageNote } from './triage';

/** Several tool uses of one session, compressed in one go. */
export interface ObserveBatch {
  project: string;
  /** The user's latest prompt in the session, for context. */
  request?: string;
  jobs: ObservationJob[];
  /** Epoch ms the oldest job was queued (how long the work has waited). */
  oldestCreatedAt: number;
  /** The session's notes stored before this batch, oldest first (what triage.ts compares with). */
  earlier?: TriageNote[];
}

export interface BatchObservation {
  draft: ObservationDraft;
  /** Index into batch.jobs of the tool use this observation is filed under (hash, tool name, time). */
  job: number;
  inputTokens: number;
  outputTokens: number;
  /** What wrote this one when it differs from the result's source (a local note in a model batch). */
  source?: string;
  /** Noise (triage.ts): stored and searchable, not listed or injected. */
  quiet?: boolean;
}

export interface ObserveResult {
  observations: BatchObservation[];
  /** 'local', 'anthropic' or 'vscode': what produced the observations. */
  source: string;
  inputTokens: number;
  outputTokens: number;
}

export interface SummaryInput {
  request: string | undefined;
  /** Every prompt of the session, oldest first (the local summary reads them all). */
  prompts?: string[];
  lastAssistantMessage: string | undefined;
  observations: { type: string; title: string; subtitle?: string | null; facts?: string | null; narrative?: string | null; files_read: string; files_modified: string; source?: string }[];
  project: string;
  /** Epoch ms the summary job was queued. */
  createdAt?: number;
}

export interface SummaryResult {
  /** null: nothing worth summarising (a valid empty summary). */
  summary: SummaryDraft | null;
  inputTokens: number;
  outputTokens: number;
}

/** How the queue should feed this provider. */
export interface QueuePolicy {
  /** Tool uses of one session per call. */
  batchMaxUses: number;
  /** A partial batch goes once its oldest tool use has waited this long. */
  batchMaxAgeMs: number;
  /** Batches in flight at once. */
  concurrency: number;
  /** A job failing this many times goes to the dead-letter state. */
  maxAttempts: number;
  retryBaseMs: number;
  retryMaxMs: number;
}

export interface Compressor {
  readonly name: string;
  state(): ProviderStatus;
  policy(): QueuePolicy;
  /** Throws NotNow to wait (uncounted), ProviderError or anything else to count a failure. */
  observe(batch: ObserveBatch): Promise<ObserveResult>;
  summarize(input: SummaryInput): Promise<SummaryResult>;
  /** A transient failure the queue backs off from: hold back every call for ms. */
  cooldown?(ms: number, message: string): void;
  /** Subscribe to "work that waited can go now" (a window connected, a pause was lifted). */
  onAvailable?(fn: () => void): void;
}

export const LOCAL_POLICY: QueuePolicy = { batchMaxUses: 25, batchMaxAgeMs: 0, concurrency: 4, maxAttempts: 5, retryBaseMs: 1000, retryMaxMs: 60_000 };

/** One local note per tool use, the noise among them marked quiet. */
export function observeLocally(batch: ObserveBatch): ObserveResult {
  return observeAndTriage(batch).result;
}

/** observeLocally, with the notes and the triage it judged them by (a model's scope reads both). */
export function observeAndTriage(batch: ObserveBatch): { result: ObserveResult; notes: TriageNote[]; worth: boolean[] } {
  const drafts = batch.jobs.map((job) => observeToolUse({ toolName: job.toolName, toolInput: job.toolInput, toolResponse: job.toolResponse, cwd: job.cwd }));
  const notes = drafts.map(noteOfDraft);
  const { quiet, worth } = triage(batch.earlier ?? [], notes);
  const observations = drafts.map((draft, i) => ({ draft, job: i, inputTokens: 0, outputTokens: 0, ...(quiet[i] ? { quiet: true } : {}) }));
  return { result: { observations, source: 'local', inputTokens: 0, outputTokens: 0 }, notes, worth };
}

export class LocalCompressor implements Compressor {
  readonly name = 'local';

  constructor(private readonly queuePolicy: QueuePolicy = LOCAL_POLICY) {}

  state(): ProviderStatus {
    return { name: 'local', state: 'ready' };
  }

  policy(): QueuePolicy {
    return this.queuePolicy;
  }

  async observe(batch: ObserveBatch): Promise<ObserveResult> {
    return observeLocally(batch);
  }

  async summarize(input: SummaryInput): Promise<SummaryResult> {
    return { summary: summarizeLocally(input), inputTokens: 0, outputTokens: 0 };
  }
}
