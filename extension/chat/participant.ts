// The @memory chat participant: adapts VS Code's chat API to the handler in handler.ts.
import * as vscode from 'vscode';
import { followupsFor, handleChat, type ChatDeps, type ChatModelPort, type ChatMsg, type ChatOutcome } from './handler';
import { observationUri } from '../contentProvider';
import type { Services } from '../services';
import type { ToolDeps } from '../tools/types';
import { rerankHits } from './modelRerank';

export const PARTICIPANT_ID = 'claude-mem-vscode.memory';

/** request.model as a ChatModelPort. */
export function modelPort(model: vscode.LanguageModelChat | undefined, token: vscode.CancellationToken): ChatModelPort | undefined {
  if (!model) return undefined;
  return {
    name: model.name || model.id,
    async send(messages: ChatMsg[]) {
      const msgs = messages.map((m) => (m.role === 'user' ? vscode.LanguageModelChatMessage.User(m.text) : vscode.LanguageModelChatMessage.Assistant(m.text)));
      const res = await model.sendRequest(msgs, { justification: vscode.l10n.t('Answers your question from the stored memory of this project.') }, token);
      return res.text;
    },
  };
}

/**
 * memory_search's rerank: the first chat model VS Code offers (tools are not told which model
 * called them), when the setting allows; undefined model or any failure keeps the search order.
 */
export function lmRerank(enabled: () => boolean): NonNullable<ToolDeps['rerank']> {
  return async (query, hits, signal) => {
    if (!enabled() || hits.length < 2) return hits;
    try {
      const [model] = await vscode.lm.selectChatModels();
      const token = new vscode.CancellationTokenSource();
      const port = modelPort(model, token.token);
      if (!port) return hits;
      try {
        return await rerankHits(query, hits, port, signal ?? token.token);
      } finally {
        token.dispose();
      }
    } catch {
      return hits;
    }
  };
}

/** Earlier turns with @memory, as plain messages. */
export function historyOf(ctx: vscode.ChatContext): ChatMsg[] {
  const out: ChatMsg[] = [];
  for (const turn of ctx.history) {
    if (turn instanceof vscode.ChatRequestTurn) out.push({ role: 'user', text: turn.prompt });
    else if (turn instanceof vscode.ChatResponseTurn) {
      const text = turn.response
        .map((p) => (p instanceof vscode.ChatResponseMarkdownPart ? p.value.value : ''))
        .join('')
        .trim();
      if (text) out.push({ role: 'assistant', text });
    }
  }
  return out;
}

export function registerChatParticipant(context: vscode.ExtensionContext, deps: ChatDeps, log: vscode.LogOutputChannel): vscode.Disposable {
  const handler: vscode.ChatRequestHandler = async (request, chatContext, stream, token): Promise<vscode.ChatResult> => {
    const outcome: ChatOutcome = await handleChat(
      { prompt: request.prompt, command: request.command, history: historyOf(chatContext) },
      modelPort(request.model, token),
      {
        markdown: (md) => stream.markdown(md),
        progress: (t) => stream.progress(t),
        reference: (h) => {
          if (h.kind === 'observation') stream.reference(observationUri(h.id));
        },
      },
      deps,
      token,
      vscode.l10n,
    ).catch((e: Error) => {
      log.error(`@memory failed: ${e.stack ?? e.message}`);
      return { metadata: { command: request.command ?? 'ask', ids: [], query: request.prompt }, answer: '', errorDetails: { message: e.message } };
    });
    return { metadata: outcome.metadata, ...(outcome.errorDetails ? { errorDetails: outcome.errorDetails } : {}) };
  };
  const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, handler);
  participant.iconPath = vscode.Uri.joinPath(context.extensionUri, 'media', 'icon.svg');
  participant.followupProvider = {
    provideFollowups(result) {
      return followupsFor(result.metadata as ChatOutcome['metadata'] | undefined, vscode.l10n).map((f) => ({ prompt: f.prompt, label: f.label, command: f.command }));
    },
  };
  return participant;
}

/** The @memory participant over the window's services. */
export function registerChat(s: Services): vscode.Disposable {
  const deps: ChatDeps = {
    api: s.api,
    project: s.project,
    session: s.session,
    context: () => s.contextCache.get(s.project()).catch(() => ''),
    get maxResults() {
      return s.settings().maxResults;
    },
    get rerank() {
      return s.settings().rerank;
    },
  };
  return registerChatParticipant(s.context, deps, s.log);
}
