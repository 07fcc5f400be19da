// The window's language model as the worker's `vscode` compression provider: vscode.lm for the
// calls, CompressionServer (core/compressionServer.ts) for the protocol.
import * as vscode from 'vscode';
import type { AgentErrorKind } from '../../common/contract';
import type { LmOutcome, LmPort } from '../core/compressionServer';

function kindOf(e: unknown): AgentErrorKind {
  if (e instanceof vscode.LanguageModelError) {
    if (e.code === vscode.LanguageModelError.NoPermissions.name) return 'auth';
    if (e.code === vscode.LanguageModelError.Blocked.name) return 'quota';
    if (e.code === vscode.LanguageModelError.NotFound.name) return 'not_found';
  }
  const msg = e instanceof Error ? e.message : String(e);
  if (/rate.?limit|429|too many/i.test(msg)) return 'rate_limit';
  if (/quota|exceeded/i.test(msg)) return 'quota';
  return 'other';
}

export function vscodeLmPort(family: () => string): LmPort {
  return {
    async complete(job, signal): Promise<LmOutcome> {
      const want = family();
      let models = await vscode.lm.selectChatModels(want ? { family: want } : {});
      if (models.length === 0 && want) models = await vscode.lm.selectChatModels({});
      const model = models.find((m) => m.vendor === 'copilot') ?? models[0];
      if (!model) return { error: { kind: 'not_found', message: want ? `no chat model of family "${want}" (nor any other) is available` : 'no chat model is available in this window' } };
      const cts = new vscode.CancellationTokenSource();
      const poll = setInterval(() => signal.isCancellationRequested && cts.cancel(), 250);
      try {
        const messages = [vscode.LanguageModelChatMessage.User(job.system), vscode.LanguageModelChatMessage.User(job.prompt)];
        const res = await model.sendRequest(messages, { justification: vscode.l10n.t('Claude Mem compresses your coding activity into short memory notes with your chat model.') }, cts.token);
        let text = '';
        for await (const chunk of res.text) text += chunk;
        const [inputTokens, outputTokens] = await Promise.all([
          model.countTokens(`${job.system}\n${job.prompt}`, cts.token).then(
            (n) => n,
            () => undefined,
          ),
          model.countTokens(text, cts.token).then(
            (n) => n,
            () => undefined,
          ),
        ]);
        return { text, model: `${model.vendor}/${model.family || model.id}`, inputTokens, outputTokens };
      } catch (e) {
        return { error: { kind: kindOf(e), message: e instanceof Error ? e.message : String(e) } };
      } finally {
        clearInterval(poll);
        cts.dispose();
      }
    },
  };
}
