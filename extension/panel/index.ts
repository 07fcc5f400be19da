// The Memory panel: a webview view (id claudeMem.panel, activity bar container "Memory").
// This file is the VS Code adapter: it makes the webview (strict CSP with a nonce, scripts only
// from dist/media), and gives PanelHost (host.ts) the editor actions it needs.
import * as crypto from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { projectFromCwd } from '../../common/node/project';
import { renderPage, webviewCsp } from '../../common/panel/page';
import type { Session, WindowState } from '../session';
import type { WorkerClient } from '../workerClient';
import { candidatePaths, PanelHost, type CaptureState } from './host';

export const PANEL_VIEW_ID = 'claudeMem.panel';

export interface PanelDeps {
  client: () => WorkerClient | undefined;
  log: vscode.LogOutputChannel;
  /** The workspace's project (the panel's default filter); by default derived from the first folder. */
  project?: () => string | undefined;
  /** Capture's paused state, so the panel's pause button shows it (the capture module owns it). */
  capture?: CaptureState;
}

export function registerMemoryPanel(context: vscode.ExtensionContext, deps: PanelDeps): vscode.Disposable {
  const provider = new MemoryViewProvider(context.extensionUri, deps);
  return vscode.Disposable.from(vscode.window.registerWebviewViewProvider(PANEL_VIEW_ID, provider), provider);
}

/** The panel over the window's worker, project and pause state. */
export function openMemoryPanel(w: WindowState, s: Session): vscode.Disposable {
  return registerMemoryPanel(w.context, {
    client: () => s.supervisor.client,
    log: w.log,
    project: w.currentProject,
    capture: { isPaused: w.paused, onDidChange: (l) => w.onDidChangePaused(l) },
  });
}

export function workspaceProject(): string | undefined {
  const folder = vscode.workspace.workspaceFolders?.[0];
  return folder && folder.uri.scheme === 'file' ? projectFromCwd(folder.uri.fsPath) : undefined;
}

/** Opens a file named by an observation: absolute, or relative to a workspace folder. */
export async function openStoredFile(file: string, line: number | undefined): Promise<void> {
  const roots = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  for (const p of candidatePaths(file, roots, path.join, path.isAbsolute)) {
    const uri = vscode.Uri.file(p);
    try {
      const st = await vscode.workspace.fs.stat(uri);
      if (st.type & vscode.FileType.Directory) {
        await vscode.commands.executeCommand('revealInExplorer', uri);
        return;
      }
    } catch {
      continue;
    }
    const pos = line ? new vscode.Position(line - 1, 0) : undefined;
    await vscode.window.showTextDocument(uri, { preview: true, ...(pos ? { selection: new vscode.Range(pos, pos) } : {}) });
    return;
  }
  void vscode.window.showWarningMessage(vscode.l10n.t('{0} is not in this workspace (it may have been moved or deleted, or it belongs to another project).', file));
}

class MemoryViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private readonly views = new Set<{ host: PanelHost; subs: vscode.Disposable[] }>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly deps: PanelDeps,
  ) {}

  resolveWebviewView(view: vscode.WebviewView): void {
    const mediaRoot = vscode.Uri.joinPath(this.extensionUri, 'dist', 'media');
    const webview = view.webview;
    webview.options = { enableScripts: true, enableCommandUris: false, localResourceRoots: [mediaRoot] };
    const nonce = crypto.randomBytes(18).toString('base64');
    webview.html = renderPage({
      nonce,
      csp: webviewCsp(webview.cspSource, nonce),
      host: 'webview',
      script: { src: webview.asWebviewUri(vscode.Uri.joinPath(mediaRoot, 'panel.js')).toString() },
      // The page translates its own text with the extension's bundle (media/panel/l10n.ts).
      l10n: vscode.l10n.bundle,
      lang: vscode.env.language,
    });
    const host = new PanelHost({
      client: this.deps.client,
      post: (msg) => webview.postMessage(msg),
      openFile: (file, line) => openStoredFile(file, line),
      executeCommand: (id) => Promise.resolve(vscode.commands.executeCommand(id)),
      showError: (msg) => void vscode.window.showErrorMessage(msg),
      log: this.deps.log,
      capabilities: { openFiles: true, pauseCapture: true },
      project: this.deps.project ?? workspaceProject,
      capture: this.deps.capture,
      l10n: vscode.l10n,
    });
    const entry = {
      host,
      subs: [
        webview.onDidReceiveMessage((m: unknown) => host.handle(m).catch((e: Error) => this.deps.log.warn(`memory panel: ${e.message}`))),
        // A hidden view's page is unloaded; it says "ready" again when shown and refetches.
        view.onDidChangeVisibility(() => (view.visible ? undefined : host.suspend())),
      ],
    };
    this.views.add(entry);
    view.onDidDispose(() => {
      host.dispose();
      for (const s of entry.subs) s.dispose();
      this.views.delete(entry);
    });
  }

  dispose(): void {
    for (const v of this.views) {
      v.host.dispose();
      for (const s of v.subs) s.dispose();
    }
    this.views.clear();
  }
}
