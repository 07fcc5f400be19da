// Runs inside the extension host (bundled by the harness) with the real `vscode` API, in a window
// whose settings say claudeMem.compression.provider = "vscode": our worker compresses with the
// window's language model, here the fake LM (test/e2e/fixtures/fake-lm-extension). Driven by
// test/e2e/suites/memory.ts ("memory-host"); the workspace holds notes.txt.
import * as vscode from 'vscode';
import type { Services } from '../../../extension/services';
import type { Observation } from '../../../common/contract';
import { createSuite, waitFor } from './runner';

const OUR_ID = 'claude-mem-vscode.claude-mem-vscode';
const FAKE_LM_ID = 'claude-mem-test.fake-lm';
const UNIQUE = 'quokkanaut';
const OUR_TOOLS = ['memory_search', 'memory_timeline', 'memory_get', 'memory_save', 'memory_context'];

interface FakeLm {
  requests: Array<{ prompt: string; toolResult?: string; messages: Array<{ role: number; text: string }>; tools: string[] }>;
}

const suite = createSuite();
let services: Services | undefined;
let found: Observation | undefined;
/** What the later cases build on; when an earlier case failed they say so instead of a TypeError. */
const ours = (): Services => services ?? fail('no services: the activation case failed');
const saved = (): Observation => found ?? fail('no observation: the save case failed');
function fail(why: string): never {
  throw new Error(`not run: ${why}`);
}
const token = () => new vscode.CancellationTokenSource().token;
const fakeLm = (): FakeLm => vscode.extensions.getExtension(FAKE_LM_ID)!.exports as FakeLm;

suite.test('the extension activates and its worker is connected with the vscode provider', async () => {
  const ext = vscode.extensions.getExtension<{ services: Services }>(OUR_ID);
  if (!ext) throw new Error(`${OUR_ID} is not installed`);
  // Never ext.activate(): the activation event is part of what is tested.
  await waitFor(`${OUR_ID} to be active`, () => ext.isActive, 60_000);
  const svc = (services = ext.exports.services);
  const st = await waitFor('the worker supervisor to be connected', () => (svc.supervisor.state.kind === 'connected' ? svc.supervisor.state : undefined), 60_000);
  const provider = st.health.provider?.name;
  if (provider !== 'vscode') throw new Error(`worker compression provider is ${JSON.stringify(st.health.provider)}, expected vscode`);
  suite.record('workerPid', st.pid);
}, 125_000);

suite.test('saving an edited file becomes an observation in the worker', async () => {
  const svc = ours();
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('no workspace folder is open');
  const uri = vscode.Uri.joinPath(folder.uri, 'notes.txt');
  const doc = await vscode.workspace.openTextDocument(uri);
  const editor = await vscode.window.showTextDocument(doc);
  const end = doc.lineAt(doc.lineCount - 1).range.end;
  if (!(await editor.edit((e) => e.insert(end, `${UNIQUE} line added through the vscode API\n`)))) throw new Error('the edit was not applied');
  if (!(await doc.save())) throw new Error('save() returned false');
  const project = svc.project();
  suite.record('project', project);
  const o = await waitFor(
    `an observation of ${project} modifying notes.txt`,
    async () => (await svc.api.recent(project, 50)).find((x) => x.filesModified.some((f) => f.endsWith('notes.txt'))),
    60_000,
    500,
  );
  found = o;
  suite.record('observation', { id: o.id, title: o.title, source: o.source });
}, 95_000);

suite.test('the vscode compression provider compressed it with the fake model', () => {
  const observation = saved();
  const asked = fakeLm().requests.filter((r) => r.prompt.includes('Record the observations for tool uses'));
  if (!asked.some((r) => r.prompt.includes('notes.txt') && r.prompt.includes(UNIQUE))) {
    throw new Error(`the fake model got no observer prompt about notes.txt (its requests: ${JSON.stringify(fakeLm().requests.map((r) => r.prompt.slice(0, 120)))})`);
  }
  if (observation.source !== 'vscode' || !observation.title.startsWith('fake-lm compressed')) {
    throw new Error(`observation #${observation.id} was not compressed by the fake model: source ${observation.source}, title ${JSON.stringify(observation.title)}`);
  }
});

suite.test('vscode.lm.tools lists our memory tools', () => {
  const names = vscode.lm.tools.map((t) => t.name);
  const missing = OUR_TOOLS.filter((n) => !names.includes(n));
  if (missing.length) throw new Error(`missing ${missing.join(', ')}; vscode.lm.tools: ${names.join(', ')}`);
});

suite.test("vscode.lm.invokeTool('memory_search') returns the observation", async () => {
  const observation = saved();
  const r = await vscode.lm.invokeTool('memory_search', { input: { query: UNIQUE }, toolInvocationToken: undefined }, token());
  const text = r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : JSON.stringify(p))).join('');
  if (!text.includes(`#${observation.id}`)) throw new Error(`memory_search for ${UNIQUE} did not return #${observation.id}:\n${text}`);
});

// The {verb}_{noun} names (VS Code's tool naming guidance); the old names above stay as aliases for one release.
const NEW_TOOLS = ['search_memory', 'get_memory_timeline', 'get_memories', 'save_memory', 'get_memory_context'];

suite.test("the {verb}_{noun} tools are listed and vscode.lm.invokeTool('search_memory') answers as memory_search does", async () => {
  const observation = saved();
  const names = vscode.lm.tools.map((t) => t.name);
  const missing = NEW_TOOLS.filter((n) => !names.includes(n));
  if (missing.length) throw new Error(`missing ${missing.join(', ')}; vscode.lm.tools: ${names.join(', ')}`);
  const ask = async (name: string) => {
    const r = await vscode.lm.invokeTool(name, { input: { query: UNIQUE }, toolInvocationToken: undefined }, token());
    return r.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : JSON.stringify(p))).join('');
  };
  // The answer ends with the semantic index's progress while it catches up, which can change between
  // the two calls: asked again, the two names must answer alike while nothing changes under them.
  for (let attempt = 1; ; attempt++) {
    const text = await ask('search_memory');
    if (!text.includes(`#${observation.id}`)) throw new Error(`search_memory for ${UNIQUE} did not return #${observation.id}:\n${text}`);
    const old = await ask('memory_search');
    if (old === text) break;
    if (attempt === 5) throw new Error(`memory_search answered differently:\n${old}\n---\n${text}`);
    await new Promise((r) => setTimeout(r, 500));
  }
});

suite.test('a model-driven memory_search tool call round trip answers with the observation', async () => {
  const observation = saved();
  const [model] = await vscode.lm.selectChatModels({ vendor: 'fake-lm' });
  if (!model) throw new Error('no fake-lm model');
  const tools: vscode.LanguageModelChatTool[] = vscode.lm.tools
    .filter((t) => OUR_TOOLS.includes(t.name))
    .map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
  const messages = [vscode.LanguageModelChatMessage.User(`search my memory for ${UNIQUE}`)];
  const first = await model.sendRequest(messages, { tools }, token());
  const calls: vscode.LanguageModelToolCallPart[] = [];
  for await (const part of first.stream) if (part instanceof vscode.LanguageModelToolCallPart) calls.push(part);
  if (calls.length !== 1 || calls[0].name !== 'memory_search') throw new Error(`the model's tool calls: ${JSON.stringify(calls)}`);
  const result = await vscode.lm.invokeTool(calls[0].name, { input: calls[0].input, toolInvocationToken: undefined }, token());
  messages.push(
    vscode.LanguageModelChatMessage.Assistant([calls[0]]),
    vscode.LanguageModelChatMessage.User([new vscode.LanguageModelToolResultPart(calls[0].callId, result.content)]),
  );
  let answer = '';
  for await (const chunk of (await model.sendRequest(messages, { tools }, token())).text) answer += chunk;
  if (!answer.startsWith('fake-lm saw tool result:') || !answer.includes(`#${observation.id}`)) throw new Error(`final answer: ${answer}`);
});

suite.test('workbench.action.chat.open with an @memory query reaches our handler', async () => {
  const observation = saved();
  const question = `what did I change about ${UNIQUE}?`;
  const before = fakeLm().requests.length;
  await vscode.commands.executeCommand('workbench.action.chat.open', { query: `@memory ${question}` });
  // The handler searches memory, then asks the request's model (the fake one) over what it found.
  const req = await waitFor(
    'the @memory handler to ask the fake model the question',
    () => fakeLm().requests.slice(before).find((r) => r.prompt === question),
    60_000,
    100,
  );
  const grounding = req.messages.map((m) => m.text).join('\n');
  if (!grounding.includes(`#${observation.id} [`)) throw new Error(`the handler did not give the model observation #${observation.id}:\n${grounding.slice(0, 2000)}`);
}, 65_000);

export const run = (): Promise<void> => suite.run();
