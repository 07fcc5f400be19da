// The client half of a stale check (extension, bench, tests): fingerprint the cited files of one
// repository by its index (no file read while size and mtime match) and find where a missing file's
// content went (a rename). Node builtins only; the worker never runs this on the user's files.
import type { CheckFile, CitedFilesResponse, FreshnessCheckRequest } from '../../common/contract';
import { baseBranches, findRepo, fingerprint, pathsByBlob, readHead, readIndex, type GitRepo } from '../../common/node/freshness/gitRepo';

export interface RepoState {
  repo: GitRepo | undefined;
  branch: string | null;
  commit: string | null;
  bases: string[];
}

export function repoState(dir: string): RepoState {
  const repo = findRepo(dir);
  if (!repo) return { repo, branch: null, commit: null, bases: [] };
  const head = readHead(repo);
  return { repo, branch: head.branch, commit: head.commit, bases: baseBranches(repo, head.branch) };
}

/** Fingerprints of the given cited files (repository-relative), moved ones found by their cited blob ids. */
export function checkFiles(root: string, cited: CitedFilesResponse['files']): CheckFile[] {
  const repo = findRepo(root);
  const index = repo ? readIndex(repo) : undefined;
  let byBlob: Map<string, string[]> | undefined;
  const out: CheckFile[] = [];
  for (const c of cited) {
    if (c.path.startsWith('/') || /^[A-Za-z]:\//.test(c.path)) continue; // outside this repository
    const f: CheckFile = fingerprint(repo?.root ?? root, c.path, index);
    if (f.gone && index) {
      byBlob ??= pathsByBlob(index);
      const to = c.blobs.flatMap((b) => byBlob?.get(b) ?? []).find((p) => p !== c.path);
      if (to) f.movedTo = to;
    }
    if (f.gone) delete (f as { tracked?: boolean }).tracked;
    out.push(f);
  }
  return out;
}

/** A whole check request for one repository and project. */
export function checkRequest(project: string, dir: string, cited: CitedFilesResponse['files']): FreshnessCheckRequest {
  const s = repoState(dir);
  return { project, branch: s.branch, bases: s.bases, commit: s.commit, files: checkFiles(s.repo?.root ?? dir, cited) };
}
