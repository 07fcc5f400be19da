// The shape of one language-model tool: its manifest (mirrored in package.json's
// contributes.languageModelTools; a unit test keeps them equal) and its vscode-free logic.
import { FieldChecks } from '../../common/contract';
import type { L10n } from '../core/l10n';
import type { MemoryApi, SearchHit } from '../core/memoryApi';

export interface ToolDeps {
  api: MemoryApi;
  /** The workspace's project (the git root name, as the worker derives it). */
  project(): string;
  /** The project's injected context, cached by the extension. */
  context(): Promise<string>;
  /** Reorders the best search hits with a chat model when one is available and allowed (chat/modelRerank.ts). */
  rerank?(query: string, hits: SearchHit[], signal?: { readonly isCancellationRequested: boolean }): Promise<SearchHit[]>;
}

export interface ToolManifest {
  name: string;
  displayName: string;
  toolReferenceName: string;
  /** Earlier `#` reference names that still resolve to this tool (VS Code maps them). */
  legacyToolReferenceFullNames?: string[];
  userDescription: string;
  modelDescription: string;
  canBeReferencedInPrompt: boolean;
  icon?: string;
  tags: string[];
  inputSchema: Record<string, unknown>;
}

export interface MemoryTool<I> {
  manifest: ToolManifest;
  /** Checks and normalises the model's input; throws an Error with a message the model can act on. */
  parse(input: unknown): I;
  /** Shown while the tool runs. */
  invocationMessage(input: I, l10n?: L10n): string;
  /** When set, the user confirms before the tool runs (tools that write). */
  confirmation?(input: I, l10n?: L10n): { title: string; message: string };
  run(input: I, deps: ToolDeps, signal?: { readonly isCancellationRequested: boolean }): Promise<string>;
}

export class ToolInputError extends Error {}

/**
 * The model's input: the shared field checks (common/contract/validate.ts), with "'query' must be
 * a string" as the sentence. Unlike the worker and the panel, which refuse a bad field, a tool
 * repairs what it can (a long string is cut, a number out of range is clamped, "5" is 5): the model
 * is not a client that can be fixed, and a refusal would cost it a turn.
 */
const fields = new FieldChecks({
  name: (key) => `'${key}'`,
  fail: (message) => {
    throw new ToolInputError(message);
  },
});

export function obj(input: unknown): Record<string, unknown> {
  return fields.object(input, 'input');
}

export function optStr(o: Record<string, unknown>, k: string, max = 2000): string | undefined {
  const v = o[k];
  if (v === undefined || v === null || v === '') return undefined;
  return fields.string(k, v).slice(0, max);
}

export function optInt(o: Record<string, unknown>, k: string, min: number, max: number): number | undefined {
  const v = o[k];
  if (v === undefined || v === null) return undefined;
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n)) fields.fail(k, 'must be an integer');
  return Math.min(max, Math.max(min, n as number));
}
