// The check at the moment of use, for this process's clients (the context and file-context hooks,
// the MCP tools, `claude-mem search`): before memories are shown, the files they cite are compared
// with the work tree and the branch here, where the files are, and the verdicts sent to the worker
// (POST /api/freshness/check); the request that reads the memories then carries the branch, so the
// worker marks what is stale or from another branch (docs/freshness.md).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { gitAnswersFile } from '../common/node/freshness/gitAnswers';
import type { CheckFile, CitedFilesResponse, FreshnessCheckRequest } from '../common/contract';
import { branchOf, checkWorktree, type WorktreeOptions } from '../common/node/freshness/worktree';

/** One worker call; undefined when it failed (the caller logs how). */
export type Send = (method: 'GET' | 'POST', path: string, body?: unknown) => Promise<unknown>;

export interface UseView {
  branch: string | null;
  bases: string[];
}

/** git's answers a hook keeps in the data dir for the next hook (common/node/freshness/gitAnswers.ts). */
export function hookAnswers(dataDir: string): WorktreeOptions {
  return { answers: gitAnswersFile(join(dataDir, 'hooks', 'git-answers.json')) };
}

/** The query parameters that carry a view (none outside git). */
export function viewParams(v: UseView | undefined): { branch?: string; bases?: string } {
  if (!v?.branch) return {};
  return { branch: v.branch, ...(v.bases.length ? { bases: v.bases.join(',') } : {}) };
}

const enc = encodeURIComponent;

/** The route that lists a project's cited files (GET). */
export function citedPath(project: string, limit = 2000): string {
  return `/api/freshness/cited?project=${enc(project)}&limit=${limit}`;
}

function citedOf(body: unknown): CitedFilesResponse['files'] {
  const files = (body as Partial<CitedFilesResponse> | undefined)?.files;
  if (!Array.isArray(files)) return [];
  return files.filter((f) => f && typeof f.path === 'string' && Array.isArray(f.blobs));
}

/**
 * Checks every cited file of a project against the work tree at cwd (one `git status`, none when
 * git's answer is kept) and returns the branch view for the reads that follow, with the check
 * request when the worker has something to hear (files that differ from what is cited, or whose
 * verdict may change). Off with CLAUDE_MEM_FRESHNESS=0 (then only the branch is read).
 */
export async function checkProject(send: Send, project: string, cwd: string, opts?: WorktreeOptions): Promise<{ view: UseView; check?: FreshnessCheckRequest }> {
  if (process.env.CLAUDE_MEM_FRESHNESS === '0') return { view: branchOf(cwd) };
  const cited = citedOf(await send('GET', citedPath(project)));
  const req = checkWorktree(project, cwd, cited, opts);
  const files = news(cited, req.files);
  const view = { branch: req.branch ?? null, bases: req.bases ?? [] };
  return files.length > 0 ? { view, check: { project, branch: req.branch, bases: req.bases, commit: req.commit, files } } : { view };
}

/** checkProject, with the verdicts sent to the worker (POST /api/freshness/check) before the view is returned. */
export async function verifyProject(send: Send, project: string, cwd: string, opts?: WorktreeOptions): Promise<UseView> {
  const { view, check } = await checkProject(send, project, cwd, opts);
  if (check) await send('POST', '/api/freshness/check', check);
  return view;
}

/**
 * What the worker needs to hear: a file at the content every memory cites, with no verdict stored,
 * would change nothing there (most of a session start's files), so it is not sent.
 */
function news(cited: CitedFilesResponse['files'], files: CheckFile[]): CheckFile[] {
  const by = new Map(cited.map((c) => [c.path, c]));
  return files.filter((f) => {
    const c = by.get(f.path);
    return !c || c.stale || f.gone || f.movedTo || f.blob === null || !c.blobs.every((b) => b === f.blob);
  });
}

/**
 * Checks a project found in results (a search over every project, memories fetched by id) in the
 * folder it was last worked in, as the worker knows it; false when that folder is unknown or gone
 * here (its memories are then "unverified"). True when it was checked (or the check is off).
 */
export async function verifyElsewhere(send: Send, project: string): Promise<boolean> {
  if (process.env.CLAUDE_MEM_FRESHNESS === '0') return true;
  const body = (await send('GET', citedPath(project))) as Partial<CitedFilesResponse> | undefined;
  const folder = typeof body?.folder === 'string' ? body.folder : undefined;
  if (!folder || !existsSync(folder)) return false;
  const cited = citedOf(body);
  const req = checkWorktree(project, folder, cited);
  if (!req.root) return false;
  const files = news(cited, req.files);
  if (files.length > 0) await send('POST', '/api/freshness/check', { project, branch: req.branch, bases: req.bases, commit: req.commit, files });
  return true;
}

/**
 * The check at use for results of several projects: the caller's own project (here) was checked by
 * the caller; every other project of the results is checked in its own folder. Returns the projects
 * that could not be checked.
 */
export async function verifyOthers(send: Send, projects: Iterable<string>, own: string | undefined): Promise<Set<string>> {
  const unverified = new Set<string>();
  for (const p of new Set(projects)) {
    if (p === own) continue;
    const ok = await verifyElsewhere(send, p).catch(() => false);
    if (!ok) unverified.add(p);
  }
  return unverified;
}

/**
 * Checks one file (its repository-relative path) the same way, for a request that carries the check
 * (POST /api/search/by-file). With keptOnly, no git process starts: a file that matches git's index
 * goes without its change kind (committed or staged) unless git's answer is kept. No check outside
 * a repository, or with CLAUDE_MEM_FRESHNESS=0.
 */
export function checkFile(project: string, cwd: string, rel: string, opts?: WorktreeOptions): { view: UseView; check?: FreshnessCheckRequest } {
  if (process.env.CLAUDE_MEM_FRESHNESS === '0') return { view: branchOf(cwd) };
  const req = checkWorktree(project, cwd, [{ path: rel, blobs: [] }], opts);
  const view = { branch: req.branch ?? null, bases: req.bases ?? [] };
  const file = req.files[0];
  return file ? { view, check: { project, branch: req.branch, bases: req.bases, commit: req.commit, files: [file] } } : { view };
}
