// This window's part in compression: the worker compresses with a model of this window (the
// `vscode` provider: vscode.lm through the CompressionServer, vscodeProvider.ts) or with the user's
// Anthropic key (the `anthropic` provider), which this feature reads from secret storage and hands
// to the worker.
import { CompressionServer } from '../core/compressionServer';
import { SECTION } from '../core/settings';
import { vscodeLmPort } from './vscodeProvider';
import { API_KEY_SECRET, type Session, type WindowState } from '../session';

export interface WindowCompression {
  compression: CompressionServer;
  /** Hands the Anthropic key (or null: forget it) to the running worker; false when it could not. */
  sendApiKey(key: string | null): Promise<boolean>;
  /** Reads the key from secret storage, so that a worker this window forks gets it. */
  loadApiKey(): Promise<void>;
}

export function startCompression(w: WindowState, s: Session): WindowCompression {
  const { supervisor } = s;
  const { log } = w;

  /** The key goes to the worker's memory only (POST /api/agent/credentials); never logged. */
  async function sendApiKey(key: string | null): Promise<boolean> {
    // A worker forked from now on gets exactly this (none after a removal), without waiting for the secrets event.
    w.apiKey = key ?? undefined;
    if (supervisor.state.kind !== 'connected') return false;
    try {
      const r = await supervisor.client.request('POST', '/api/agent/credentials', { anthropicApiKey: key }, 3000);
      if (r.status !== 200) log.warn(`the worker did not take the API key (HTTP ${r.status})`);
      return r.status === 200;
    } catch (e) {
      log.warn(`handing the API key to the worker failed: ${(e as Error).message}`);
      return false;
    }
  }

  const compression = new CompressionServer({
    requester: () => (supervisor.state.kind === 'connected' ? supervisor.client : undefined),
    windowId: w.sessionId,
    port: vscodeLmPort(() => w.settings().vscodeModelFamily),
    enabled: () => w.settings().provider === 'vscode' || w.settings().provider === 'auto',
    log,
  });

  w.context.subscriptions.push(
    s.onState((st) => {
      if (st.kind !== 'connected') return;
      if (w.apiKey && !st.owned) void sendApiKey(w.apiKey);
      compression.kick();
    }),
    w.onDidChangeSettings((e) => {
      if (e.affectsConfiguration(`${SECTION}.compression`)) compression.kick();
    }),
    w.context.secrets.onDidChange((e) => {
      if (e.key === API_KEY_SECRET) void w.context.secrets.get(API_KEY_SECRET).then((k) => (w.apiKey = k || undefined));
    }),
  );

  return {
    compression,
    sendApiKey,
    async loadApiKey() {
      try {
        w.apiKey = (await w.context.secrets.get(API_KEY_SECRET)) || undefined;
      } catch (e) {
        log.warn(`secret storage unavailable: ${(e as Error).message}`);
      }
    },
  };
}
