// Re-verify from the editor: the changed lines of each cited file (the cited content from git, the
// current from disk) go to the worker's model; without a model the person decides. The worker never
// reads the files: they are read here.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { MemoryFreshness, VerifyFile } from '../../common/contract';
import { diffSummary } from '../core/diff';
import { fingerprint, type GitRepo } from '../../common/node/freshness/gitRepo';

const MAX_CONTENT = 50_000;

function catBlob(root: string, blob: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('git', ['cat-file', 'blob', blob], { cwd: root, maxBuffer: 8 * 1024 * 1024, timeout: 5000 }, (err, out) => resolve(err ? undefined : out));
  });
}

export async function verifyFiles(repo: GitRepo | undefined, m: MemoryFreshness): Promise<VerifyFile[]> {
  const out: VerifyFile[] = [];
  for (const c of m.citations.slice(0, 20)) {
    const abs = repo && !path.isAbsolute(c.path) ? path.join(repo.root, c.path) : c.path;
    let now: string | undefined;
    try {
      now = fs.readFileSync(abs, 'utf8');
    } catch {
      now = undefined;
    }
    const blob = repo ? fingerprint(repo.root, c.path).blob : null;
    if (now === undefined) {
      out.push({ path: c.path, blob: null, content: '' });
      continue;
    }
    const before = repo && c.blob ? await catBlob(repo.root, c.blob) : undefined;
    if (before !== undefined) out.push({ path: c.path, blob, diff: diffSummary(before, now, { maxChars: 12_000, maxLineChars: 400 }).excerpt || '(no line changed)' });
    else out.push({ path: c.path, blob, content: now.slice(0, MAX_CONTENT) });
  }
  return out;
}
