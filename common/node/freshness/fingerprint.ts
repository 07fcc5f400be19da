// Hook-side fingerprinting: the files a tool use read or changed, with the workspace's
// git commit and branch and each file's blob id, taken here because the hook has the files (the
// worker never reads them). Self-contained: call fingerprintToolUse(hookInput) in the observation
// handler and send the result as `citations` in the POST /api/sessions/observations body.
// Cost (bench/freshness.mjs): a few stats and small reads for HEAD; a tracked file that git's index
// says is unchanged (size and mtime match) takes the index's blob id, found by a native search in
// the index file, without being read; any other file is read and hashed (SHA-1 in WebAssembly up
// to 1 MiB: node:crypto's start-up costs more). Files over MAX_BYTES are left out; no git process ever.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { baseBranches, blobId, findRepo, indexLookup, readHead, relativeTo, statMatches, type GitRepo } from './gitRepo';
import type { CheckFile, CitationFile, CitationsPayload } from '../../contract';

const MAX_BYTES = 8 * 1024 * 1024;
/** A bigger index is not read on the hook path (files are hashed instead). */
const MAX_INDEX_BYTES = 16 * 1024 * 1024;
const MAX_FILES = 20;
/** Keys of tool inputs that name one file (Claude Code, VS Code agent tools, Copilot CLI, Codex, Gemini). */
const FILE_KEYS = ['file_path', 'filePath', 'notebook_path', 'path', 'absolute_path', 'target_file', 'targetFile', 'file', 'new_path', 'newPath', 'newFilePath', 'old_path', 'oldPath'];
const LIST_KEYS = ['file_paths', 'filePaths', 'paths', 'files'];

type HookInput = Record<string, unknown>;
type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** A patch's text wherever a platform puts it: VS Code `input`, Codex `command` (a string, or argv ending in it), `patch`, or the input itself. */
function patchText(toolName: string | undefined, input: unknown): string | undefined {
  const isPatch = (v: unknown): v is string => typeof v === 'string' && (toolName === 'apply_patch' || v.includes('*** Begin Patch'));
  if (isPatch(input)) return input;
  if (!isObj(input)) return undefined;
  for (const k of ['input', 'patch', 'command', 'cmd']) {
    const v = input[k];
    if (isPatch(v) && (k !== 'command' || v.includes('*** '))) return v;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) if (typeof v[i] === 'string' && (v[i] as string).includes('*** Begin Patch')) return v[i] as string;
    }
  }
  return undefined;
}

/** What a patch does to each file: `*** Update File:` (with `*** Move to:`), `*** Add File:`, `*** Delete File:`. */
export function patchOps(patch: string): { file: string; op: 'update' | 'add' | 'delete'; moveTo?: string }[] {
  const out: { file: string; op: 'update' | 'add' | 'delete'; moveTo?: string }[] = [];
  for (const line of patch.split('\n')) {
    const m = /^\*\*\* (Update|Add|Delete) File: (.+?)\s*$/.exec(line);
    if (m) out.push({ file: m[2], op: m[1].toLowerCase() as 'update' | 'add' | 'delete' });
    const mv = /^\*\*\* Move to: (.+?)\s*$/.exec(line);
    if (mv && out.length > 0) out[out.length - 1].moveTo = mv[1];
  }
  return out;
}

/**
 * The file paths a tool input names (absolute, resolved against cwd): single paths, lists, VS Code's
 * `replacements[].filePath` (multi_replace_string_in_file), and every file of an apply_patch text
 * (VS Code and Codex formats). `moves` gets each patch's `*** Move to:` (old path -> new path).
 */
export function toolFiles(toolInput: unknown, cwd: string, toolName?: string, moves?: Map<string, string>): string[] {
  const out: string[] = [];
  const norm = (v: unknown): string | undefined => {
    if (typeof v !== 'string') return undefined;
    const s = v.trim().replace(/^file:\/\//, '');
    return s !== '' && s.length < 4096 && !s.includes('\0') && !/[*?]/.test(s) ? path.resolve(cwd, s) : undefined;
  };
  const add = (v: unknown) => {
    const abs = norm(v);
    if (abs) out.push(abs);
  };
  const patch = patchText(toolName, toolInput);
  if (patch) {
    for (const op of patchOps(patch)) {
      add(op.file);
      if (op.moveTo) {
        add(op.moveTo);
        const from = norm(op.file);
        const to = norm(op.moveTo);
        if (from && to) moves?.set(from, to);
      }
    }
  }
  if (isObj(toolInput)) {
    const o = toolInput;
    for (const k of FILE_KEYS) add(o[k]);
    for (const k of LIST_KEYS) {
      const list = o[k];
      if (!Array.isArray(list)) continue;
      for (const v of list.slice(0, MAX_FILES)) add(isObj(v) ? (v.path ?? v.filePath ?? v.file_path) : v);
    }
    // A rename tool (old and new path): memories citing the old path follow the file.
    const from = norm(o.old_path ?? o.oldPath);
    const to = norm(o.new_path ?? o.newPath ?? o.newFilePath);
    if (from && to) moves?.set(from, to);
    // VS Code multi_replace_string_in_file, and edit lists that name their file per entry.
    for (const k of ['replacements', 'edits']) {
      const list = o[k];
      if (Array.isArray(list)) for (const v of list.slice(0, 50)) if (isObj(v)) add(v.filePath ?? v.file_path ?? v.path);
    }
  }
  return [...new Set(out)].slice(0, MAX_FILES);
}

function readIndexFile(repo: GitRepo): Buffer | undefined {
  try {
    const file = path.join(repo.gitDir, 'index');
    if (fs.statSync(file).size > MAX_INDEX_BYTES) return undefined;
    return fs.readFileSync(file);
  } catch {
    return undefined;
  }
}

function fileFingerprint(abs: string, rel: string, index: (() => Buffer | undefined) | undefined): CitationFile | undefined {
  let st: fs.BigIntStats;
  try {
    st = fs.statSync(abs, { bigint: true });
  } catch (e) {
    // A deleted file is news too (a memory citing it is stale); anything else (no permission) is skipped.
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? { path: rel, blob: null, gone: true } : undefined;
  }
  if (!st.isFile() || st.size > BigInt(MAX_BYTES)) return undefined;
  const buf = index?.();
  const entry = buf ? indexLookup(buf, rel) : undefined;
  if (entry && statMatches(entry, st)) return { path: rel, blob: entry.blob, tracked: true };
  try {
    return { path: rel, blob: blobId(fs.readFileSync(abs)), ...(entry ? { tracked: true } : {}) };
  } catch {
    return undefined;
  }
}

/**
 * Citations for one PostToolUse-style hook input ({cwd, tool_input, ...}); undefined when it names
 * no file or CLAUDE_MEM_FRESHNESS=0. Never throws.
 */
export function fingerprintToolUse(input: HookInput, env: NodeJS.ProcessEnv = process.env): CitationsPayload | undefined {
  if (env.CLAUDE_MEM_FRESHNESS === '0') return undefined;
  try {
    const cwd = typeof input.cwd === 'string' && input.cwd ? input.cwd : process.cwd();
    const moves = new Map<string, string>();
    const files = toolFiles(input.tool_input, cwd, typeof input.tool_name === 'string' ? input.tool_name : undefined, moves);
    if (files.length === 0) return undefined;
    const repo = findRepo(path.dirname(files[0]));
    const head = repo ? readHead(repo) : undefined;
    let indexBuf: Buffer | undefined | null = null;
    const index = repo ? () => (indexBuf === null ? (indexBuf = readIndexFile(repo)) : indexBuf) : undefined;
    const cited: CheckFile[] = [];
    for (const abs of files) {
      const rel = repo ? relativeTo(repo, abs) : undefined;
      const f = fileFingerprint(abs, rel ?? abs.split(path.sep).join('/'), rel ? index : undefined);
      if (!f) continue;
      // A patch's "Move to": memories citing the old path follow the file to the new one.
      const to = moves.get(abs);
      const toRel = to && f.gone ? (repo ? relativeTo(repo, to) : to.split(path.sep).join('/')) : undefined;
      cited.push(toRel ? { ...f, movedTo: toRel } : f);
    }
    if (cited.length === 0) return undefined;
    // One hop of "Created from" and no HEAD reflog scan here: the extension reads the whole chain.
    return { commit: head?.commit ?? null, branch: head?.branch ?? null, bases: repo && head ? baseBranches(repo, head.branch, 1, false) : [], files: cited };
  } catch {
    return undefined;
  }
}
