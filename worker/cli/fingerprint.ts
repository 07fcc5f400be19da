// Hook-side fingerprinting (issue 22): the files a tool use read or changed, with the workspace's
// git commit and branch and each file's blob id, taken here because the hook has the files (the
// worker never reads them). Self-contained: call fingerprintToolUse(hookInput) in the observation
// handler and send the result as `citations` in the POST /api/sessions/observations body.
// Cost: a few stats and small reads for the repository (no index read, no git process) plus one
// read and sha1 of each touched file; files over MAX_BYTES are left out.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { baseBranches, blobId, findRepo, readHead, relativeTo } from '../freshness/gitRepo';
import type { CitationFile, CitationsPayload } from '../protocol';

const MAX_BYTES = 8 * 1024 * 1024;
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
  for (const k of LIST_KEYS) if (Array.isArray(o[k])) for (const v of (o[k] as unknown[]).slice(0, MAX_FILES)) add(typeof v === 'object' && v ? (v as Record<string, unknown>).path ?? (v as Record<string, unknown>).filePath : v);
  // MultiEdit-style edits lists name the file once at the top; apply_patch-style inputs are not parsed.
  return [...new Set(out)].slice(0, MAX_FILES);
}

function fileFingerprint(abs: string, rel: string): CitationFile | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(abs, 'r');
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.size > MAX_BYTES) return undefined;
    const buf = Buffer.allocUnsafe(st.size);
    let off = 0;
    while (off < st.size) {
      const n = fs.readSync(fd, buf, off, st.size - off, off);
      if (n === 0) break;
      off += n;
    }
    return { path: rel, blob: blobId(off === st.size ? buf : buf.subarray(0, off)) };
  } catch (e) {
    // A deleted file is news too (a memory citing it is stale); anything else (a directory, no permission) is skipped.
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? { path: rel, blob: null, gone: true } : undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
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
    const cited: CitationFile[] = [];
    for (const abs of files) {
      const rel = repo ? relativeTo(repo, abs) : undefined;
      const f = fileFingerprint(abs, rel ?? abs.split(path.sep).join('/'));
      if (f) cited.push(f);
    }
    if (cited.length === 0) return undefined;
    return { commit: head?.commit ?? null, branch: head?.branch ?? null, bases: repo && head ? baseBranches(repo, head.branch) : [], files: cited };
  } catch {
    return undefined;
  }
}
