// Runs inside the extension host (bundled by the harness). Proves our packaged extension
// activates on its own (onStartupFinished) and the fake language model answers.
import * as vscode from 'vscode';
import { createSuite, waitFor } from './runner';

const OUR_ID = 'claude-mem-vscode.claude-mem-vscode';
const suite = createSuite();

suite.test('our extension is installed from the vsix', () => {
  const ext = vscode.extensions.getExtension(OUR_ID);
  if (!ext) throw new Error(`${OUR_ID} not found; installed: ${vscode.extensions.all.map((e) => e.id).join(', ')}`);
  suite.record('extensionPath', ext.extensionPath);
  suite.record('extensionKind', ext.extensionKind);
});

suite.test('our extension activates by itself (onStartupFinished)', async () => {
  const ext = vscode.extensions.getExtension(OUR_ID)!;
  // Never call ext.activate(): that would prove nothing about the activation event.
  await waitFor(`${OUR_ID} to be active`, () => ext.isActive, 60_000);
  suite.record('activeObservedAt', Date.now());
}, 65_000);

suite.test('selectChatModels returns the fake model', async () => {
  const models = await vscode.lm.selectChatModels({ vendor: 'fake-lm' });
  if (models.length !== 1) throw new Error(`expected 1 fake-lm model, got ${models.length}`);
  const [m] = models;
  if (m.id !== 'fake-lm-1' || m.family !== 'fake') throw new Error(`unexpected model ${m.id}/${m.family}`);
});

suite.test('the fake model returns its scripted text', async () => {
  const [model] = await vscode.lm.selectChatModels({ vendor: 'fake-lm' });
  const res = await model.sendRequest([vscode.LanguageModelChatMessage.User('ping')], {}, new vscode.CancellationTokenSource().token);
  let text = '';
  for await (const chunk of res.text) text += chunk;
  if (text !== 'pong from fake-lm') throw new Error(`got ${JSON.stringify(text)}`);
});

suite.test('the fake model scripts a tool call and reads its result', async () => {
  const [model] = await vscode.lm.selectChatModels({ vendor: 'fake-lm' });
  const token = new vscode.CancellationTokenSource().token;
  const tools: vscode.LanguageModelChatTool[] = [{ name: 'fake_lookup', description: 'test tool', inputSchema: { type: 'object' } }];
  const ask = vscode.LanguageModelChatMessage.User('please use a tool');
  const first = await model.sendRequest([ask], { tools }, token);
  const calls: vscode.LanguageModelToolCallPart[] = [];
  for await (const part of first.stream) if (part instanceof vscode.LanguageModelToolCallPart) calls.push(part);
  if (calls.length !== 1 || calls[0].name !== 'fake_lookup') throw new Error(`tool calls: ${JSON.stringify(calls)}`);

  const followUp = [
    ask,
    vscode.LanguageModelChatMessage.Assistant([calls[0]]),
    vscode.LanguageModelChatMessage.User([new vscode.LanguageModelToolResultPart(calls[0].callId, [new vscode.LanguageModelTextPart('42')])]),
  ];
  let text = '';
  for await (const chunk of (await model.sendRequest(followUp, { tools }, token)).text) text += chunk;
  if (text !== 'fake-lm saw tool result: 42') throw new Error(`got ${JSON.stringify(text)}`);
});

export const run = (): Promise<void> => suite.run();
