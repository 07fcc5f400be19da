// The capture pipeline between editor events and the worker: gates (untrusted workspace, paused,
// per-kind switches), exclusions, mapping, the save baseline cache, and the focus debounce.
// The vscode side only turns its events into CaptureEvents. No vscode import.
import * as path from 'node:path';
import type { ObservationRequest } from '../../common/contract';
import type { ExclusionReason, Exclusions } from './exclusions';
import { KIND_OF, mapEvent, type CaptureEvent, type CaptureKind, type MapLimits } from './observe';
import { Debouncer, realTimers, type Timers } from './timers';

export interface CaptureSettings extends MapLimits {
  enabled: boolean;
  kinds: Record<CaptureKind, boolean>;
  /** A focused file counts as "read" after staying focused this long. */
  focusDebounceMs: number;
  /** Files larger than this are not kept as a save baseline. */
  maxBaselineBytes: number;
}

export const DEFAULT_CAPTURE: CaptureSettings = {
  enabled: true,
  kinds: { saves: true, fileOperations: true, terminal: true, tasks: true, debug: true, focus: true },
  focusDebounceMs: 3000,
  maxBaselineBytes: 1024 * 1024,
  excerptChars: 1500,
  outputChars: 2000,
};

export interface CaptureHost {
  /** Workspace trust right now. */
  trusted(): boolean;
  paused(): boolean;
  settings(): CaptureSettings;
  exclusions: Exclusions;
  /** The workspace folder holding a path, or undefined. */
  folderOf(file: string): string | undefined;
  /** The folder events without a file belong to (the first workspace folder). */
  primaryFolder(): string | undefined;
  projectOf(folder: string | undefined): string;
  /** Sends the observation (adds session fields); returns what was sent. */
  send(project: string, req: Omit<ObservationRequest, 'contentSessionId' | 'platform' | 'project'>): void;
  log?: { debug(msg: string): void };
}

export type Outcome = { sent: true; project: string; tool: string } | { sent: false; reason: string };

/** Bounded LRU of file contents: the "before" side of a save's diff. */
export class ContentCache {
  private readonly map = new Map<string, string>();
  private bytes = 0;

  constructor(private readonly maxBytes = 32 * 1024 * 1024) {}

  get(key: string): string | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: string, value: string): void {
    this.delete(key);
    if (value.length > this.maxBytes) return;
    this.map.set(key, value);
    this.bytes += value.length;
    while (this.bytes > this.maxBytes) {
      const oldest = this.map.keys().next().value as string;
      this.delete(oldest);
    }
  }

  delete(key: string): void {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.bytes -= v.length;
      this.map.delete(key);
    }
  }

  rename(from: string, to: string): void {
    const v = this.map.get(from);
    this.delete(from);
    if (v !== undefined) this.set(to, v);
  }

  get size(): number {
    return this.map.size;
  }
}

export class Capture {
  readonly baselines = new ContentCache();
  private readonly focus: Debouncer<string>;
  private readonly focused = new Set<string>();
  /** Counters for the status bar and tests. */
  readonly stats = { sent: 0, skipped: 0 };

  constructor(
    private readonly host: CaptureHost,
    timers: Timers = realTimers,
  ) {
    this.focus = new Debouncer(() => host.settings().focusDebounceMs, (file) => void this.handle({ kind: 'focus', file }), timers);
  }

  /** Whether anything may be captured at all right now (trust, pause, master switch). */
  private gate(): string | undefined {
    if (!this.host.trusted()) return 'untrusted_workspace';
    if (!this.host.settings().enabled) return 'capture_disabled';
    if (this.host.paused()) return 'paused';
    return undefined;
  }

  private excluded(file: string): ExclusionReason | undefined {
    return this.host.exclusions.check(file, this.host.folderOf(file));
  }

  /** Why a file is never captured, or undefined. */
  isExcluded(file: string): ExclusionReason | undefined {
    return this.excluded(file);
  }

  /** A document was opened or is already open: remember its content as the next save's baseline. */
  remember(file: string, text: string): void {
    if (this.gate() === 'untrusted_workspace') return;
    if (text.length > this.host.settings().maxBaselineBytes) return;
    if (this.excluded(file)) return;
    this.baselines.set(file, text);
  }

  forget(file: string): void {
    this.baselines.delete(file);
  }

  /** The active editor changed: a file that keeps focus for the debounce period counts as read. */
  focusChanged(file: string | undefined): void {
    if (file === undefined) return this.focus.cancel();
    if (this.gate() || !this.host.settings().kinds.focus) return this.focus.cancel();
    this.focus.poke(file);
  }

  handle(e: CaptureEvent): Outcome {
    const out = this.run(e);
    if (out.sent) this.stats.sent++;
    else this.stats.skipped++;
    this.host.log?.debug(out.sent ? `captured ${out.tool} (${out.project})` : `skipped ${e.kind}: ${out.reason}`);
    return out;
  }

  private run(e: CaptureEvent): Outcome {
    // The save baseline moves on even when nothing is sent, so the next diff is against this save.
    if (e.kind === 'save') {
      const before = this.baselines.get(e.file);
      const tooBig = e.after.length > this.host.settings().maxBaselineBytes;
      if (tooBig) this.baselines.delete(e.file);
      else if (!this.excluded(e.file) && this.host.trusted()) this.baselines.set(e.file, e.after);
      e = { ...e, before };
      if (tooBig) return this.finish(e, 'file_too_large');
    }
    if (e.kind === 'delete') this.baselines.delete(e.file);
    if (e.kind === 'rename') this.baselines.rename(e.file, e.newFile);
    return this.finish(e);
  }

  private finish(e: CaptureEvent, earlySkip?: string): Outcome {
    const closed = this.gate();
    if (closed) return { sent: false, reason: closed };
    if (!this.host.settings().kinds[KIND_OF[e.kind]]) return { sent: false, reason: `${KIND_OF[e.kind]}_disabled` };
    if (earlySkip) return { sent: false, reason: earlySkip };

    let folder: string | undefined;
    if ('file' in e) {
      const why = this.excluded(e.file) ?? (e.kind === 'rename' ? this.excluded(e.newFile) : undefined);
      if (why) return { sent: false, reason: why };
      folder = this.host.folderOf(e.file);
      if (e.kind === 'focus') {
        if (this.focused.has(e.file)) return { sent: false, reason: 'already_read' };
        this.focused.add(e.file);
      }
      if (e.kind === 'save') this.focused.delete(e.file); // a changed file is worth reading again
    } else if (e.kind === 'terminal') {
      folder = (e.cwd && this.host.folderOf(e.cwd)) || this.host.primaryFolder();
    } else {
      folder = (e.folder && this.host.folderOf(e.folder)) || this.host.primaryFolder();
    }

    const settings = this.host.settings();
    const mapped = mapEvent(e, folder, settings);
    if (!mapped.ok) return { sent: false, reason: mapped.skipped };
    const project = this.host.projectOf(folder);
    this.host.send(project, mapped.req);
    return { sent: true, project, tool: mapped.req.tool_name };
  }

  dispose(): void {
    this.focus.cancel();
  }
}

/** Folder lookup over a list of workspace folder paths: the deepest one containing the path. */
export function folderLookup(folders: () => readonly string[]): (p: string) => string | undefined {
  return (p) => {
    let best: string | undefined;
    for (const f of folders()) {
      const rel = path.relative(f, p);
      if (rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))) {
        if (!best || f.length > best.length) best = f;
      }
    }
    return best;
  };
}
