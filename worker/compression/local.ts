// The local heuristic compressor: turns one tool use into a structured observation with no model.
// Always available; the default when no provider is configured.
import * as path from 'node:path';
import type { ObservationDraft } from '../store/repos/observations';
import type { SummaryDraft } from '../store/repos/summaries';
import { canonicalUse, toolFiles, toolKind } from '../../common/toolKinds';

export interface ToolUse {
  toolName: string;
  /** Tool input as stored: JSON text (already stripped and capped). */
  toolInput: string;
  toolResponse: string;
  cwd?: string;
}

type Input = Record<string, unknown>;

function parseInput(text: string): Input {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Input) : { value: v };
  } catch {
    return { value: text };
  }
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

function rel(file: string, cwd?: string): string {
  if (cwd && path.isAbsolute(file)) {
    const r = path.relative(cwd, file);
    if (r && !r.startsWith('..') && !path.isAbsolute(r)) return r;
  }
  return file;
}

function lines(text: string | undefined): number {
  return text ? text.split('\n').length : 0;
}

function firstLine(text: string, max = 160): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line.trim();
}

function clip(line: string, max: number): string {
  const t = line.trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** The changed lines of a unified diff excerpt, added ones first (hunk headers are not content). */
function diffLines(excerpt: string): string[] {
  const body = excerpt.split('\n').filter((l) => !/^(@@|\+\+\+ |--- )/.test(l));
  const pick = (sign: string) => body.filter((l) => l.startsWith(sign) && l.slice(1).trim() !== '').map((l) => l.slice(1));
  const added = pick('+');
  return added.length > 0 ? added : pick('-');
}

const ERROR_LINE = /\b(error|failed|failure|exception|traceback|cannot|not found|denied)\b/i;
const FIX_WORDS = /\b(fix|bug|broken|regression|crash|error)\b/i;

function errorLines(output: string, max = 3): string[] {
  return output
    .split('\n')
    .filter((l) => ERROR_LINE.test(l))
    .slice(0, max)
    .map((l) => firstLine(l));
}

function pick(input: Input, ...keys: string[]): string | undefined {
  for (const k of keys) {
    const v = str(input[k]);
    if (v) return v;
  }
  return undefined;
}

/** Names the switch below knows; any other platform's tool is read through the tool table first. */
const OWN_NAMES = new Set(['Read', 'FileFocus', 'Edit', 'MultiEdit', 'NotebookEdit', 'Write', 'FileCreate', 'FileSave', 'FileDelete', 'FileRename', 'Bash', 'TerminalCommand', 'TaskEnd', 'Grep', 'Glob', 'WebFetch', 'WebSearch', 'DebugSessionEnd']);

export function observeToolUse(use: ToolUse): ObservationDraft {
  const raw = parseInput(use.toolInput);
  if (OWN_NAMES.has(use.toolName)) return observe(use, use.toolName, raw);
  const canon = canonicalUse(use.toolName, raw);
  const draft = observe(use, canon.name, canon.input);
  // A tool that names several files (multi_replace_string_in_file, a patch, read_many_files): all of them.
  const files = toolFiles(use.toolName, raw).map((f) => rel(f, use.cwd));
  if (files.length > 1) {
    const kind = toolKind(use.toolName);
    if (kind === 'edit' || kind === 'create' || kind === 'delete') draft.filesModified = files;
    else if (kind === 'read') draft.filesRead = files;
  }
  return draft;
}

function observe(use: ToolUse, toolName: string, input: Input): ObservationDraft {
  const out = use.toolResponse;
  const file = pick(input, 'file_path', 'path', 'notebook_path', 'file', 'uri');
  const shown = file ? rel(file, use.cwd) : undefined;
  const name = toolName;

  switch (name) {
    case 'Read':
    case 'FileFocus':
      return {
        type: 'discovery',
        title: `Read ${shown ?? 'a file'}`,
        facts: [`${shown ?? 'file'}: ${lines(out)} lines looked at`],
        narrative: `Looked at ${shown ?? 'a file'}${firstLine(out) ? `, which starts with: ${firstLine(out, 120)}` : ''}.`,
        concepts: ['how-it-works'],
        filesRead: file ? [shown as string] : [],
      };
    case 'Edit':
    case 'MultiEdit':
    case 'NotebookEdit': {
      const oldS = str(input.old_string) ?? '';
      const newS = str(input.new_string) ?? str(input.new_source) ?? '';
      const edits = Array.isArray(input.edits) ? input.edits.length : 1;
      const text = `${oldS}\n${newS}`;
      return {
        type: FIX_WORDS.test(text) ? 'bugfix' : 'change',
        title: `Edited ${shown ?? 'a file'}`,
        subtitle: edits > 1 ? `${edits} edits` : `${lines(oldS)} lines replaced by ${lines(newS)}`,
        facts: [`${shown ?? 'file'}: ${edits > 1 ? `${edits} edits` : `replaced ${lines(oldS)} lines with ${lines(newS)}`}`, ...(newS ? [`new text starts: ${firstLine(newS, 120)}`] : [])],
        narrative: `Changed ${shown ?? 'a file'}.`,
        concepts: ['what-changed'],
        filesModified: file ? [shown as string] : [],
      };
    }
    case 'Write':
    case 'FileCreate': {
      const content = str(input.content) ?? '';
      return {
        type: name === 'FileCreate' || /created/i.test(out) ? 'feature' : 'change',
        title: `${name === 'FileCreate' ? 'Created' : 'Wrote'} ${shown ?? 'a file'}`,
        facts: [`${shown ?? 'file'}: ${lines(content)} lines written`],
        narrative: `Wrote ${shown ?? 'a file'}${content ? ` starting with: ${firstLine(content, 120)}` : ''}.`,
        concepts: ['what-changed'],
        filesModified: file ? [shown as string] : [],
      };
    }
    case 'FileSave': {
      const added = num(input.added) ?? 0;
      const removed = num(input.removed) ?? 0;
      const excerpt = str(input.excerpt) ?? '';
      return {
        type: FIX_WORDS.test(excerpt) ? 'bugfix' : 'change',
        title: `Saved ${shown ?? 'a file'} (+${added} −${removed})`,
        facts: [`${shown ?? 'file'}: ${added} lines added, ${removed} removed`, ...diffLines(excerpt).slice(0, 3).map((l) => `changed: ${clip(l, 120)}`)],
        narrative: `Edited and saved ${shown ?? 'a file'}.`,
        concepts: ['what-changed'],
        filesModified: file ? [shown as string] : [],
      };
    }
    case 'FileDelete':
    case 'FileRename': {
      const to = pick(input, 'new_path', 'newPath', 'to');
      return {
        type: 'change',
        title: name === 'FileDelete' ? `Deleted ${shown ?? 'a file'}` : `Renamed ${shown ?? 'a file'} to ${to ? rel(to, use.cwd) : '?'}`,
        facts: [],
        narrative: null,
        concepts: ['what-changed'],
        filesModified: [shown, to ? rel(to, use.cwd) : undefined].filter((x): x is string => !!x),
      };
    }
    case 'Bash':
    case 'TerminalCommand':
    case 'TaskEnd': {
      const cmd = pick(input, 'command', 'commandLine', 'task', 'name') ?? 'a command';
      const exit = num(input.exitCode) ?? num(input.exit_code) ?? (/exit code (\d+)/i.exec(out) ? Number(/exit code (\d+)/i.exec(out)?.[1]) : undefined);
      const errs = errorLines(out);
      const failed = (exit !== undefined && exit !== 0) || errs.length > 0;
      return {
        type: failed ? 'discovery' : 'change',
        title: `Ran \`${firstLine(cmd, 80)}\`${exit !== undefined ? ` (exit ${exit})` : ''}`,
        subtitle: str(input.description) ?? null,
        facts: [...(exit !== undefined ? [`exit code ${exit}`] : []), ...errs],
        narrative: failed ? `The command reported problems: ${errs[0] ?? `exit ${exit}`}.` : `Ran ${firstLine(cmd, 120)}.`,
        concepts: failed ? ['gotcha'] : ['what-changed'],
      };
    }
    case 'Grep':
    case 'Glob': {
      const pattern = pick(input, 'pattern', 'query') ?? '';
      const hits = out.split('\n').filter((l) => l.trim() !== '').length;
      return {
        type: 'discovery',
        title: `Searched for ${pattern ? `\`${firstLine(pattern, 60)}\`` : 'files'}`,
        facts: [`${hits} result lines`, ...out.split('\n').filter((l) => l.trim()).slice(0, 3).map((l) => firstLine(l, 120))],
        narrative: null,
        concepts: ['how-it-works'],
        filesRead: [],
      };
    }
    case 'WebFetch':
    case 'WebSearch': {
      const target = pick(input, 'url', 'query') ?? 'the web';
      return {
        type: 'discovery',
        title: `${name === 'WebFetch' ? 'Fetched' : 'Searched the web for'} ${firstLine(target, 80)}`,
        facts: out ? [firstLine(out, 160)] : [],
        narrative: null,
        concepts: ['how-it-works'],
      };
    }
    case 'DebugSessionEnd':
      return { type: 'discovery', title: `Debug session ended: ${pick(input, 'name') ?? 'debug'}`, facts: [], concepts: ['how-it-works'] };
    default: {
      const summary = firstLine(use.toolInput, 100);
      return {
        type: 'discovery',
        title: `Used ${name}${shown ? ` on ${shown}` : ''}`,
        facts: [summary, ...(out ? [firstLine(out, 120)] : [])].filter((x) => x !== ''),
        narrative: null,
        concepts: [],
        filesRead: file ? [shown as string] : [],
      };
    }
  }
}

export function summarizeLocally(s: {
  request: string | undefined;
  lastAssistantMessage: string | undefined;
  observations: { type: string; title: string; files_read: string; files_modified: string }[];
}): SummaryDraft {
  const changed = s.observations.filter((o) => ['change', 'feature', 'bugfix', 'refactor'].includes(o.type)).map((o) => o.title);
  const found = s.observations.filter((o) => o.type === 'discovery').map((o) => o.title);
  const join = (xs: string[]) => (xs.length === 0 ? null : [...new Set(xs)].slice(0, 8).join('; '));
  return {
    request: s.request ? firstLine(s.request, 300) : null,
    investigated: join(found),
    learned: null,
    completed: join(changed),
    nextSteps: null,
    notes: s.lastAssistantMessage ? s.lastAssistantMessage.slice(0, 600) : null,
  };
}
