// Registers each memory tool with vscode.lm.registerTool; the logic lives in the tool files.
import * as vscode from 'vscode';
import { lmRerank } from '../chat/participant';
import type { Services } from '../services';
import { TOOLS } from './index';
import type { ToolDeps } from './types';

export function registerTools(deps: ToolDeps, log: vscode.LogOutputChannel): vscode.Disposable[] {
  return TOOLS.map((tool) =>
    vscode.lm.registerTool<unknown>(tool.manifest.name, {
      prepareInvocation(options) {
        let input: unknown;
        try {
          input = tool.parse(options.input);
        } catch {
          return { invocationMessage: tool.manifest.displayName };
        }
        const c = tool.confirmation?.(input, vscode.l10n);
        return {
          invocationMessage: tool.invocationMessage(input, vscode.l10n),
          ...(c ? { confirmationMessages: { title: c.title, message: new vscode.MarkdownString(c.message) } } : {}),
        };
      },
      async invoke(options, token) {
        let text: string;
        try {
          text = await tool.run(tool.parse(options.input), deps, token);
        } catch (e) {
          // The model reads this and can correct its input or tell the user.
          text = `${tool.manifest.name} failed: ${(e as Error).message}`;
          log.warn(text);
        }
        return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(text)]);
      },
    }),
  );
}

/** The memory tools over the window's services. */
export function registerMemoryTools(s: Services): vscode.Disposable[] {
  return registerTools({ api: s.api, project: s.project, context: () => s.contextCache.get(s.project()), rerank: lmRerank(() => s.settings().rerank) }, s.log);
}
