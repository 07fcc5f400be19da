// Which files a tool use read or modified, from the tool's own input (edit/write inputs, saved
// paths), never from a model's word. Model-reported files are kept only when evidence confirms them.
import * as path from 'node:path';
import { toolFiles, toolKind } from '../../common/toolKinds';

export interface ToolEvidence {
  read: string[];
  modified: string[];
}

const MODIFYING = new Set(['Edit', 'MultiEdit', 'Write', 'NotebookEdit', 'FileSave', 'FileCreate', 'FileDelete', 'FileRename']);
const READING = new Set(['Read', 'FileFocus', 'NotebookRead']);
const MODIFY_WORDS = /(?:^|[_\W])(edit|write|create|save|patch|replace|rename|delete|move|insert|apply)/i;

function inputObject(text: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function relPath(file: string, cwd?: string): string {
  let f = file.replace(/^file:\/\//, '');
  if (cwd && path.isAbsolute(f)) {
    const r = path.relative(cwd, f);
    if (r && !r.startsWith('..') && !path.isAbsolute(r)) f = r;
  }
  return f.replace(/^\.\//, '');
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);

export function evidenceOf(use: { toolName: string; toolInput: string; cwd?: string }): ToolEvidence {
  const input = inputObject(use.toolInput);
  const files: string[] = [];
  for (const k of ['file_path', 'notebook_path', 'path', 'file', 'uri', 'new_path', 'newPath']) {
    const v = str(input[k]);
    if (v && !files.includes(v)) files.push(v);
  }
  // Other platforms' tools name their files in their own keys (filePath, replacements, patches).
  for (const f of toolFiles(use.toolName, input)) if (!files.includes(f)) files.push(f);
  const rel = files.map((f) => relPath(f, use.cwd));
  const kind = toolKind(use.toolName);
  const modifies = MODIFYING.has(use.toolName) || kind === 'edit' || kind === 'create' || kind === 'delete' || (!READING.has(use.toolName) && kind !== 'read' && MODIFY_WORDS.test(use.toolName));
  if (modifies) return { read: [], modified: rel };
  // A search's "path" is a search root, and a command's files are not known: neither is a file read.
  if (kind === 'search' || kind === 'run' || kind === 'fetch') return { read: [], modified: [] };
  return { read: rel, modified: [] };
}

function same(a: string, b: string): boolean {
  return a === b || a.endsWith(`/${b}`) || b.endsWith(`/${a}`);
}

/**
 * Files modified: those the cited tool uses modified, plus those the model names that some tool use
 * of the batch modified (in the evidence's spelling). Never a file no tool use modified.
 */
export function confirmedModified(cited: ToolEvidence[], batch: ToolEvidence[], claimed: string[], cwd?: string): string[] {
  const out: string[] = [];
  const add = (f: string) => {
    if (!out.includes(f)) out.push(f);
  };
  for (const e of cited) e.modified.forEach(add);
  const all = batch.flatMap((e) => e.modified);
  for (const c of claimed) {
    const r = relPath(c, cwd);
    const hit = all.find((e) => same(e, r));
    if (hit) add(hit);
  }
  return out;
}

/** Files read: the model's list (relative to cwd) plus what the cited tool uses read. */
export function filesRead(cited: ToolEvidence[], claimed: string[], cwd?: string): string[] {
  const out: string[] = [];
  for (const f of [...cited.flatMap((e) => e.read), ...claimed.map((c) => relPath(c, cwd))]) if (f && !out.includes(f) && out.length < 50) out.push(f);
  return out;
}
