// Freshness in the editor: which repository and branch a file is in, its memories (cached per file),
// and stale checks the worker cannot do itself: the cited files of the project by git's index when
// the worker connects (and every few minutes), an open file's text as it is edited (debounced), and
// a saved file from disk. Nothing is sent for files no memory cites.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CheckFile, MemoryFreshness } from '../../common/contract';
import { checkFiles } from './clientCheck';
import { baseBranches, blobId, findRepo, fingerprint, readHead, relativeTo, type GitRepo } from '../../common/node/freshness/gitRepo';
import type { BranchInfo, FreshnessApi } from './api';

export interface ControllerDeps {
  api: FreshnessApi;
  projectOf(fsPath: string): string;
  enabled(): boolean;
  log: vscode.LogOutputChannel;
}

export interface FileRef {
  repo: GitRepo | undefined;
  /** Repository-relative '/'-path (absolute outside a repository), as citations store it. */
  rel: string;
  project: string;
}

const FULL_CHECK_MS = 5 * 60_000;
const EDIT_DEBOUNCE_MS = 800;

/** How old a project's cited list may be before a file missing from it makes us ask again. */
const CITED_RECHECK_MS = 3_000;

export class FreshnessController implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  private readonly memo = new Map<string, Promise<MemoryFreshness[]>>();
  /** Cited paths per project (refreshed on a full check and when a new observation arrives). */
  private readonly cited = new Map<string, Map<string, string[]>>();
  /** When each project's cited list was fetched. */
  private readonly citedAt = new Map<string, number>();
  /** Bumped by invalidate(): a cited list fetched before it is used once but not kept. */
  private citedGeneration = 0;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private full: NodeJS.Timeout | undefined;
  private readonly subs: vscode.Disposable[] = [];

  constructor(private readonly d: ControllerDeps) {
    this.subs.push(
      vscode.workspace.onDidChangeTextDocument((e) => this.edited(e.document)),
      vscode.workspace.onDidSaveTextDocument((doc) => void this.checkDocument(doc, false)),
      vscode.workspace.onDidOpenTextDocument((doc) => void this.checkDocument(doc, false)),
    );
    this.full = setInterval(() => void this.checkAll(), FULL_CHECK_MS);
    this.full.unref?.();
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
    for (const t of this.timers.values()) clearTimeout(t);
    clearInterval(this.full);
    this.changed.dispose();
  }

  fileRef(uri: vscode.Uri): FileRef | undefined {
    if (uri.scheme !== 'file') return undefined;
    const repo = findRepo(path.dirname(uri.fsPath));
    const rel = repo ? relativeTo(repo, uri.fsPath) : undefined;
    return { repo, rel: rel ?? uri.fsPath.split(path.sep).join('/'), project: this.d.projectOf(uri.fsPath) };
  }

  branchOf(repo: GitRepo | undefined): BranchInfo | undefined {
    if (!repo) return undefined;
    const head = readHead(repo);
    return { branch: head.branch, commit: head.commit, bases: baseBranches(repo, head.branch) };
  }

  /** The memories about a file (cited or named), current branch first. */
  memories(uri: vscode.Uri): Promise<MemoryFreshness[]> {
    const key = uri.toString();
    let p = this.memo.get(key);
    if (!p) {
      const f = this.fileRef(uri);
      p = f && this.d.enabled() ? this.d.api.fileMemories(f.project, f.rel, this.branchOf(f.repo)).catch(() => []) : Promise.resolve([]);
      this.memo.set(key, p);
    }
    return p;
  }

  /** Something changed (a check, a decision, new memory): read again on next use. */
  invalidate(project?: string): void {
    this.citedGeneration++;
    this.memo.clear();
    if (project) this.cited.delete(project);
    else this.cited.clear();
    this.changed.fire();
  }

  private async citedOf(project: string, maxAgeMs = Infinity): Promise<Map<string, string[]>> {
    let m = this.cited.get(project);
    if (!m || Date.now() - (this.citedAt.get(project) ?? 0) > maxAgeMs) {
      // A save's check can ask while the memory it creates is being stored: an answer that
      // started before the next invalidate() must not be kept, or the new citation is never seen.
      const generation = this.citedGeneration;
      const r = await this.d.api.cited(project);
      m = new Map(r.files.map((f) => [f.path, f.blobs]));
      if (generation === this.citedGeneration) {
        this.cited.set(project, m);
        this.citedAt.set(project, Date.now());
      }
    }
    return m;
  }

  private edited(doc: vscode.TextDocument): void {
    if (doc.uri.scheme !== 'file' || !this.d.enabled()) return;
    const key = doc.uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        void this.checkDocument(doc, true);
      }, EDIT_DEBOUNCE_MS),
    );
  }

  /** Checks one file: its editor text when `live` (unsaved edits count), else the file on disk. */
  async checkDocument(doc: vscode.TextDocument, live: boolean): Promise<void> {
    if (!this.d.enabled()) return;
    const f = this.fileRef(doc.uri);
    if (!f) return;
    try {
      let cited = await this.citedOf(f.project);
      // A file cited since the list was fetched (a memory stored a moment ago, whose stream event
      // this window may have missed): ask again, at most every few seconds per project.
      if (!cited.has(f.rel)) cited = await this.citedOf(f.project, CITED_RECHECK_MS);
      if (!cited.has(f.rel)) return;
      const file: CheckFile = live ? { path: f.rel, blob: blobId(Buffer.from(doc.getText(), 'utf8')) } : fingerprint(f.repo?.root, f.rel);
      const b = this.branchOf(f.repo) ?? { branch: null, bases: [], commit: null };
      const r = await this.d.api.check(f.project, b, [file]);
      if (r.stale.length || r.fresh.length || r.moved.length) this.invalidate();
    } catch (e) {
      this.d.log.debug(`freshness check of ${f.rel} failed: ${(e as Error).message}`);
    }
  }

  /** Every cited file of each workspace folder's project, by git's index (files are read only when their stat changed). */
  async checkAll(): Promise<void> {
    if (!this.d.enabled()) return;
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      if (folder.uri.scheme !== 'file') continue;
      const project = this.d.projectOf(folder.uri.fsPath);
      const repo = findRepo(folder.uri.fsPath);
      if (!repo) continue;
      try {
        this.cited.delete(project);
        const cited = await this.citedOf(project);
        if (cited.size === 0) continue;
        const files = checkFiles(repo.root, [...cited].map(([p, blobs]) => ({ path: p, blobs })));
        const r = await this.d.api.check(project, this.branchOf(repo) as BranchInfo, files);
        this.d.log.debug(`freshness: ${r.checked} citations checked in ${project}: ${r.stale.length} stale, ${r.fresh.length} fresh again, ${r.moved.length} moved`);
        if (r.stale.length || r.fresh.length || r.moved.length) this.invalidate();
      } catch (e) {
        this.d.log.debug(`freshness check of ${project} failed: ${(e as Error).message}`);
      }
    }
  }
}

/** The editor's text of a file with unsaved edits, else undefined (the disk's copy is current). */
export function unsavedText(absPath: string): string | undefined {
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.isDirty && d.uri.fsPath === absPath);
  return doc?.getText();
}
