// Editor events to observation requests: one plain function per event kind, naming the tool_name
// and tool_input shapes the worker's local heuristic understands (worker/compression/local.ts).
// Private blocks are removed before anything is diffed or cut, so an excerpt can never hold half of
// one. No vscode import.
import type { ObservationRequest } from '../../common/contract';
import { cleanAndCut, redactSecrets, stripPrivate } from '../../common/privacy';
import { diffSummary } from './diff';

export type CaptureKind = 'saves' | 'fileOperations' | 'terminal' | 'tasks' | 'debug' | 'focus';

export type CaptureEvent =
  | { kind: 'save'; file: string; before: string | undefined; after: string }
  | { kind: 'create'; file: string }
  | { kind: 'delete'; file: string }
  | { kind: 'rename'; file: string; newFile: string }
  | { kind: 'terminal'; commandLine: string; exitCode: number | undefined; output?: string; cwd?: string }
  | { kind: 'task'; task: string; exitCode: number | undefined; source?: string; folder?: string }
  | { kind: 'debug'; name: string; type?: string; folder?: string }
  | { kind: 'focus'; file: string };

export const KIND_OF: Record<CaptureEvent['kind'], CaptureKind> = {
  save: 'saves',
  create: 'fileOperations',
  delete: 'fileOperations',
  rename: 'fileOperations',
  terminal: 'terminal',
  task: 'tasks',
  debug: 'debug',
  focus: 'focus',
};

export interface MapLimits {
  /** Excerpt budget for a save's diff, characters. */
  excerptChars: number;
  /** Terminal output kept, characters (head and tail). */
  outputChars: number;
}

export const DEFAULT_LIMITS: MapLimits = { excerptChars: 1500, outputChars: 2000 };

/** What the session adds (contentSessionId, platform, project) is left out here. */
export type Mapped = Omit<ObservationRequest, 'contentSessionId' | 'platform' | 'project'>;

export type MapResult = { ok: true; req: Mapped } | { ok: false; skipped: string };

const skip = (skipped: string): MapResult => ({ ok: false, skipped });

export function mapEvent(e: CaptureEvent, cwd: string | undefined, limits: MapLimits = DEFAULT_LIMITS): MapResult {
  const withCwd = (r: Mapped): MapResult => ({ ok: true, req: cwd ? { ...r, cwd } : r });
  switch (e.kind) {
    case 'save': {
      const after = stripPrivate(e.after).text;
      if (e.before === undefined) {
        // No earlier content known (first save of a file opened before we started): report its size only.
        return withCwd({ tool_name: 'FileSave', tool_input: { file: e.file, added: 0, removed: 0, excerpt: '', baseline: false, lines: countLines(after) }, tool_response: '' });
      }
      const before = stripPrivate(e.before).text;
      const d = diffSummary(before, after, { maxChars: limits.excerptChars });
      if (d.added === 0 && d.removed === 0) return skip('no_change');
      return withCwd({
        tool_name: 'FileSave',
        tool_input: { file: e.file, added: d.added, removed: d.removed, excerpt: redactSecrets(d.excerpt), ...(d.approximate ? { approximate: true } : {}) },
        tool_response: '',
      });
    }
    case 'create':
      return withCwd({ tool_name: 'FileCreate', tool_input: { file_path: e.file }, tool_response: '' });
    case 'delete':
      return withCwd({ tool_name: 'FileDelete', tool_input: { file_path: e.file }, tool_response: '' });
    case 'rename':
      return withCwd({ tool_name: 'FileRename', tool_input: { file_path: e.file, new_path: e.newFile }, tool_response: '' });
    case 'terminal': {
      const raw = e.commandLine.replace(/\r?\n$/, '');
      // Shell convention: a command typed with a leading space stays out of history, and out of memory.
      if (raw === '' || /^\s/.test(raw)) return skip('ignored_command');
      const commandLine = redactSecrets(stripPrivate(raw).text.trim());
      if (commandLine === '') return skip('private_content');
      const output = e.output === undefined ? '' : cleanAndCut(cleanTerminalOutput(e.output), limits.outputChars);
      return withCwd({ tool_name: 'TerminalCommand', tool_input: { commandLine, ...(e.exitCode !== undefined ? { exitCode: e.exitCode } : {}) }, tool_response: output });
    }
    case 'task':
      return withCwd({ tool_name: 'TaskEnd', tool_input: { task: e.task, ...(e.exitCode !== undefined ? { exitCode: e.exitCode } : {}), ...(e.source ? { source: e.source } : {}) }, tool_response: '' });
    case 'debug':
      return withCwd({ tool_name: 'DebugSessionEnd', tool_input: { name: e.name, ...(e.type ? { type: e.type } : {}) }, tool_response: '' });
    case 'focus':
      return withCwd({ tool_name: 'FileFocus', tool_input: { file_path: e.file }, tool_response: '' });
  }
}

function countLines(text: string): number {
  return text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** Removes ANSI/OSC escape sequences and carriage-return overdraws from raw terminal data. */
export function cleanTerminalOutput(raw: string): string {
  return (
    raw
      // OSC … BEL or ST (shell integration marks, titles, hyperlinks)
      .replace(/\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g, '')
      // CSI sequences
      .replace(/\u001b\[[0-?]*[ -/]*[@-~]/g, '')
      // other two-byte escapes
      .replace(/\u001b[@-Z\\-_]/g, '')
      .replace(/\r\n/g, '\n')
      .split('\n')
      .map((l) => (l.includes('\r') ? l.slice(l.lastIndexOf('\r') + 1) : l))
      .join('\n')
      .trim()
  );
}

/** Blanks values that look like credentials: the one redactor (common/privacy), shared with the worker and the hook CLI. */
export { redactSecrets };

/** Keeps the first and the last `max / 2` characters of a stream (terminal output as it arrives). */
export class BoundedOutput {
  private head = '';
  private tail = '';
  private total = 0;

  constructor(private readonly max: number) {}

  push(chunk: string): void {
    this.total += chunk.length;
    const half = Math.floor(this.max / 2);
    if (this.head.length < half) {
      const take = chunk.slice(0, half - this.head.length);
      this.head += take;
      chunk = chunk.slice(take.length);
    }
    if (chunk) this.tail = (this.tail + chunk).slice(-half);
  }

  text(): string {
    const cut = this.total - this.head.length - this.tail.length;
    return cut > 0 ? `${this.head}\n…[${cut} characters]…\n${this.tail}` : this.head + this.tail;
  }
}
