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
import type { CitationFile, CitationsPayload } from '../../contract';

const MAX_BYTES = 8 * 1024 * 1024;
/** A bigger index is not read on the hook path (files are hashed instead). */
const MAX_INDEX_BYTES = 16 * 1024 * 1024;
const MAX_FILES = 20;
/** Keys of tool inputs that name one file (Claude Code, VS Code agent tools, Copilot CLI, Codex, Gemini). */
const FILE_KEYS = ['file_path', 'filePath', 'notebook_path', 'path', 'absolute_path', 'target_file'];
const LIST_KEYS = ['file_paths', 'filePaths', 'paths', 'files'];

type HookInput = Record<string, unknown>;

/** The file paths a tool input names (absolute, resolved against cwd). */
export function toolFiles(toolInput: unknown, cwd: string): string[] {
  if (!toolInput || typeof toolInput !== 'object' || Array.isArray(toolInput)) return [];
  const o = toolInput as Record<string, unknown>;
  const out: string[] = [];
  const add = (v: unknown) => {
    if (typeof v === 'string' && v !== '' && v.length < 4096 && !v.includes('\0') && !/[*?]/.test(v)) out.push(path.resolve(cwd, v));
  };
  for (const k of FILE_KEYS) add(o[k]);
  for (const k of LIST_KEYS) {
    const list = o[k];
    if (!Array.isArray(list)) continue;
    for (const v of list.slice(0, MAX_FILES)) add(typeof v === 'object' && v ? ((v as Record<string, unknown>).path ?? (v as Record<string, unknown>).filePath) : v);
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
    const files = toolFiles(input.tool_input, cwd);
    if (files.length === 0) return undefined;
    const repo = findRepo(path.dirname(files[0]));
    const head = repo ? readHead(repo) : undefined;
    let indexBuf: Buffer | undefined | null = null;
    const index = repo ? () => (indexBuf === null ? (indexBuf = readIndexFile(repo)) : indexBuf) : undefined;
    const cited: CitationFile[] = [];
    for (const abs of files) {
      const rel = repo ? relativeTo(repo, abs) : undefined;
      const f = fileFingerprint(abs, rel ?? abs.split(path.sep).join('/'), rel ? index : undefined);
      if (f) cited.push(f);
    }
    if (cited.length === 0) return undefined;
    // One hop of "Created from" and no HEAD reflog scan here: the extension reads the whole chain.
    return { commit: head?.commit ?? null, branch: head?.branch ?? null, bases: repo && head ? baseBranches(repo, head.branch, 1, false) : [], files: cited };
  } catch {
    return undefined;
  }
}
