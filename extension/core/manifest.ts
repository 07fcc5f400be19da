// The extension's package.json contributions, built from the same declarations the code uses
// (settings, tools, chat commands, views). Not bundled. A unit test (test/unit/extension-manifest.test.ts)
// fails when package.json or package.nls.json drift; rewrite them with:
//   node --import tsx -e "require('./extension/core/manifest.ts').writeManifest()"
// which touches only contributes, activationEvents and capabilities in package.json, and all of
// package.nls.json. Every string a person reads is written as a %key% placeholder whose English
// text is in package.nls.json (VS Code substitutes the display language's package.nls.<lang>.json);
// strings only the model reads (modelDescription, input schemas, disambiguation) stay inline.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TOOLS } from '../tools/index';
import { SECTION, SETTINGS } from './settings';

const CATEGORY = 'Claude Mem';

/** Collects one user-visible string under a key and returns its placeholder. */
type Localize = (key: string, english: string) => string;

function recorder(): { t: Localize; strings: Record<string, string> } {
  const strings: Record<string, string> = {};
  const t: Localize = (key, english) => {
    if (key in strings && strings[key] !== english) throw new Error(`package.nls key ${key} has two texts`);
    strings[key] = english;
    return `%${key}%`;
  };
  return { t, strings };
}

export const COMMANDS: Array<{ command: string; title: string; icon?: string; enablement?: string }> = [
  { command: 'claudeMem.search', title: 'Search Memory', icon: '$(search)' },
  { command: 'claudeMem.showContext', title: 'Show Project Context', icon: '$(book)' },
  { command: 'claudeMem.saveSelection', title: 'Save Selection as Memory', icon: '$(save)' },
  { command: 'claudeMem.openPanel', title: 'Open Memory Panel', icon: '$(database)' },
  { command: 'claudeMem.export', title: 'Export Memory…', icon: '$(export)' },
  { command: 'claudeMem.import', title: 'Import Memory…', icon: '$(cloud-download)' },
  { command: 'claudeMem.forgetProject', title: 'Forget This Project…', icon: '$(trash)' },
  { command: 'claudeMem.pauseCapture', title: 'Pause Capture', icon: '$(debug-pause)' },
  { command: 'claudeMem.resumeCapture', title: 'Resume Capture', icon: '$(play)' },
  { command: 'claudeMem.toggleCapture', title: 'Pause or Resume Capture' },
  { command: 'claudeMem.restartWorker', title: 'Restart Worker', icon: '$(debug-restart)' },
  { command: 'claudeMem.installClaudeCodeHooks', title: 'Install Claude Code Hooks…', icon: '$(plug)' },
  { command: 'claudeMem.installAgentHooks', title: 'Install Agent Hooks (Copilot Agent Sessions)…', icon: '$(plug)' },
  { command: 'claudeMem.setApiKey', title: 'Set Anthropic API Key…', icon: '$(key)' },
  { command: 'claudeMem.clearApiKey', title: 'Remove Anthropic API Key' },
  { command: 'claudeMem.showObservation', title: 'Show Observation…' },
  { command: 'claudeMem.showLog', title: 'Show Log', icon: '$(output)' },
  { command: 'claudeMem.shareProject', title: 'Share Project Memory…', icon: '$(cloud-upload)' },
  { command: 'claudeMem.unshareProject', title: 'Stop Sharing Project Memory…' },
  { command: 'claudeMem.forgetTeamHub', title: 'Forget Team Hub Connection' },
  // Freshness (extension/freshness).
  { command: 'claudeMem.fileMemories.pick', title: 'Memories for This File', icon: '$(history)' },
  { command: 'claudeMem.freshness.checkNow', title: 'Check Memories Against the Files Now', icon: '$(refresh)' },
  { command: 'claudeMem.freshness.open', title: 'Open Memory', icon: '$(go-to-file)' },
  { command: 'claudeMem.freshness.confirm', title: 'Confirm Memory (Still True)', icon: '$(check)' },
  { command: 'claudeMem.freshness.retire', title: 'Retire Memory', icon: '$(archive)' },
  { command: 'claudeMem.freshness.verify', title: 'Re-verify Memory with the Model', icon: '$(sync)' },
];

export const CHAT_PARTICIPANT = {
  id: 'claude-mem-vscode.memory',
  name: 'memory',
  fullName: 'Claude Mem',
  description: 'Ask what earlier sessions did in this project',
  isSticky: false,
  commands: [
    { name: 'search', description: 'Search the memory of this project by keywords' },
    { name: 'timeline', description: 'What happened around a memory (id, S<summary id>, ISO time or keywords)' },
    { name: 'recent', description: 'The latest memories of this project' },
    { name: 'save', description: 'Remember this text' },
  ],
  disambiguation: [
    {
      category: 'project_memory',
      description: 'The user asks about earlier work in this project: what was done or decided in past sessions, how a past bug was fixed, why code changed, or what happened to a file before.',
      examples: ['How did we fix the login timeout last week?', 'What did I change in the parser yesterday?', 'Why did we switch to sql.js?'],
    },
  ],
};

function configuration(t: Localize): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  let order = 0;
  for (const [key, decl] of Object.entries(SETTINGS)) {
    const k = `setting.${key}`;
    properties[`${SECTION}.${key}`] = {
      ...decl,
      ...(decl.description ? { description: t(`${k}.description`, decl.description) } : {}),
      ...(decl.markdownDescription ? { markdownDescription: t(`${k}.markdownDescription`, decl.markdownDescription) } : {}),
      ...(decl.enumDescriptions ? { enumDescriptions: decl.enumDescriptions.map((d, i) => t(`${k}.enumDescriptions.${decl.enum?.[i] ?? i}`, d)) } : {}),
      order: order++,
    };
  }
  return { title: t('configuration.title', 'Claude Mem'), properties };
}

function walkthroughs(t: Localize): unknown[] {
  const w = 'walkthrough.gettingStarted';
  const step = (id: string, title: string, description: string, completionEvents: string[]) => ({
    id,
    title: t(`${w}.${id}.title`, title),
    description: t(`${w}.${id}.description`, description),
    media: { markdown: `media/walkthrough/${id}.md` },
    completionEvents,
  });
  return [
    {
      id: 'claudeMem.gettingStarted',
      title: t(`${w}.title`, 'Get started with Claude Mem'),
      description: t(`${w}.description`, 'Persistent memory for your coding sessions: what it captures, how to ask it, and how to share it with Claude Code.'),
      steps: [
        step('worker', 'A local memory worker', 'Memory lives on this machine, in a small worker process that starts by itself and is shared by every window and by Claude Code.\n[Open the Memory panel](command:claudeMem.openPanel)', ['onCommand:claudeMem.openPanel', 'onView:claudeMem.panel']),
        step('capture', 'What is captured, and what never is', 'Saves, file operations, terminal commands, tasks, debug sessions and files you read become short observations. Secrets, ignored files and untrusted workspaces are never captured.\n[Pause Capture](command:claudeMem.pauseCapture)', ['onSettingChanged:claudeMem.capture.enabled', 'onCommand:claudeMem.pauseCapture']),
        step('chat', 'Ask @memory', 'Ask `@memory` in chat about earlier work, or use `/search`, `/timeline`, `/recent` and `/save`. Agent mode can use the memory tools by itself.\n[Search Memory](command:claudeMem.search)', ['onCommand:claudeMem.search']),
        step('compression', 'Better observations with a model', 'By default a local heuristic compresses events, with no key and no network. Use your VS Code chat model, or Claude with an API key kept in secret storage.\n[Set Anthropic API Key](command:claudeMem.setApiKey)', ['onCommand:claudeMem.setApiKey', 'onSettingChanged:claudeMem.compression.provider']),
        step('agentHooks', 'Remember Copilot agent sessions', 'Install the agent hooks so that Copilot agent sessions in VS Code record their prompts, edits and terminal runs, and each new session starts with the project\'s memory.\n[Install Agent Hooks](command:claudeMem.installAgentHooks)', ['onCommand:claudeMem.installAgentHooks']),
        step('claudeCode', 'Share memory with Claude Code', 'Install the hooks so that Claude Code in the terminal writes to and reads from the same memory.\n[Install Claude Code Hooks](command:claudeMem.installClaudeCodeHooks)', ['onCommand:claudeMem.installClaudeCodeHooks']),
      ],
    },
  ];
}

function chatParticipant(t: Localize): Record<string, unknown> {
  const k = 'chat.memory';
  return {
    ...CHAT_PARTICIPANT,
    fullName: t(`${k}.fullName`, CHAT_PARTICIPANT.fullName),
    description: t(`${k}.description`, CHAT_PARTICIPANT.description),
    commands: CHAT_PARTICIPANT.commands.map((c) => ({ ...c, description: t(`${k}.command.${c.name}.description`, c.description) })),
  };
}

/** The Memory activity-bar container and its views (the webview panel, the file's memories). */
function views(t: Localize): Record<string, unknown> {
  return {
    viewsContainers: { activitybar: [{ id: 'claudeMem', title: t('viewsContainer.claudeMem.title', 'Memory'), icon: 'media/icon.svg' }] },
    views: {
      claudeMem: [
        { type: 'webview', id: 'claudeMem.panel', name: t('view.claudeMem.panel.name', 'Memory') },
        { id: 'claudeMem.fileMemories', name: t('view.claudeMem.fileMemories.name', 'Memories for This File'), when: 'config.claudeMem.freshness.enabled' },
      ],
    },
  };
}

function build(t: Localize): Record<string, unknown> {
  return {
    ...views(t),
    configuration: configuration(t),
    commands: COMMANDS.map((c) => ({ ...c, title: t(`command.${c.command}.title`, c.title), category: t('command.category', CATEGORY) })),
    menus: {
      commandPalette: [
        { command: 'claudeMem.pauseCapture', when: '!claudeMem.capturePaused' },
        { command: 'claudeMem.resumeCapture', when: 'claudeMem.capturePaused' },
        ...['open', 'confirm', 'retire', 'verify'].map((c) => ({ command: `claudeMem.freshness.${c}`, when: 'false' })),
      ],
      'editor/context': [{ command: 'claudeMem.saveSelection', when: 'editorHasSelection', group: 'claudeMem@1' }],
      'view/title': [
        { command: 'claudeMem.search', when: 'view == claudeMem.panel', group: 'navigation@1' },
        { command: 'claudeMem.pauseCapture', when: 'view == claudeMem.panel && !claudeMem.capturePaused', group: 'navigation@2' },
        { command: 'claudeMem.resumeCapture', when: 'view == claudeMem.panel && claudeMem.capturePaused', group: 'navigation@2' },
        { command: 'claudeMem.showContext', when: 'view == claudeMem.panel', group: 'more@1' },
        { command: 'claudeMem.export', when: 'view == claudeMem.panel', group: 'more@2' },
        { command: 'claudeMem.import', when: 'view == claudeMem.panel', group: 'more@3' },
        { command: 'claudeMem.forgetProject', when: 'view == claudeMem.panel', group: 'more@4' },
        { command: 'claudeMem.restartWorker', when: 'view == claudeMem.panel', group: 'more@5' },
        { command: 'claudeMem.freshness.checkNow', when: 'view == claudeMem.fileMemories', group: 'navigation@1' },
      ],
      'view/item/context': [
        { command: 'claudeMem.freshness.verify', when: 'view == claudeMem.fileMemories && viewItem == claudeMem.memory.stale', group: 'inline@1' },
        { command: 'claudeMem.freshness.confirm', when: 'view == claudeMem.fileMemories && viewItem != claudeMem.memory.retired', group: 'inline@2' },
        { command: 'claudeMem.freshness.retire', when: 'view == claudeMem.fileMemories && viewItem != claudeMem.memory.retired', group: 'inline@3' },
      ],
    },
    chatParticipants: [chatParticipant(t)],
    languageModelTools: TOOLS.map(({ manifest: m }) => ({
      ...m,
      displayName: t(`tool.${m.name}.displayName`, m.displayName),
      userDescription: t(`tool.${m.name}.userDescription`, m.userDescription),
    })),
    walkthroughs: walkthroughs(t),
  };
}

/** package.json's contributes, with %key% placeholders for what people read. */
export function contributions(_existing: Record<string, unknown> = {}): Record<string, unknown> {
  return build(recorder().t);
}

const UNTRUSTED = 'Nothing is captured in an untrusted workspace; stored memory can still be searched and asked about.';

/** package.nls.json: the English text of every placeholder in contributes and capabilities. */
export function nlsStrings(): Record<string, string> {
  const { t, strings } = recorder();
  build(t);
  t('capabilities.untrustedWorkspaces.description', UNTRUSTED);
  return Object.fromEntries(Object.entries(strings).sort(([a], [b]) => a.localeCompare(b)));
}

export const ACTIVATION_EVENTS = ['onStartupFinished'];

export const CAPABILITIES = {
  untrustedWorkspaces: {
    supported: 'limited',
    description: '%capabilities.untrustedWorkspaces.description%',
    restrictedConfigurations: Object.entries(SETTINGS)
      .filter(([k]) => k.startsWith('capture.'))
      .map(([k]) => `${SECTION}.${k}`),
  },
};

/** Where the extension's runtime strings (vscode.l10n.t) are translated: l10n/bundle.l10n.<lang>.json. */
export const L10N_DIR = './l10n';

/**
 * The English source of the l10n bundle: the first argument of every `l10n.t(...)` call under
 * extension/ (vscode.l10n.t, and the L10n that vscode-free modules take), common/panel/ and
 * media/panel/ (the Memory panel's page and app, which get vscode.l10n.bundle: common/panel/l10n.ts), as @vscode/l10n-dev
 * would export it. A call whose message is not a string literal cannot be translated: listed in
 * `nonLiteral` (file:line) so a test can fail on it.
 */
export function l10nMessages(root = path.resolve(__dirname, '..', '..')): { messages: Record<string, string>; nonLiteral: string[] } {
  // typescript is a dev dependency; this runs only from tests and writeManifest, never bundled.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const ts = require('typescript') as typeof import('typescript');
  const messages: Record<string, string> = {};
  const nonLiteral: string[] = [];
  const walk = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : []));
  for (const file of [...walk(path.join(root, 'extension')), ...walk(path.join(root, 'common', 'panel')), ...walk(path.join(root, 'media', 'panel'))].sort()) {
    const text = fs.readFileSync(file, 'utf8');
    if (!text.includes('l10n.t(')) continue;
    const src = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const visit = (n: import('typescript').Node): void => {
      if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && n.expression.name.text === 't' && /(^|\.)l10n$/.test(n.expression.expression.getText(src))) {
        const arg = n.arguments[0];
        if (arg && (ts.isStringLiteral(arg) || ts.isNoSubstitutionTemplateLiteral(arg))) messages[arg.text] = arg.text;
        else nonLiteral.push(`${path.relative(root, file)}:${src.getLineAndCharacterOfPosition(n.getStart(src)).line + 1}`);
      }
      ts.forEachChild(n, visit);
    };
    visit(src);
  }
  return { messages: Object.fromEntries(Object.entries(messages).sort(([a], [b]) => a.localeCompare(b))), nonLiteral };
}

/** Rewrites only contributes, activationEvents, capabilities and l10n in package.json, and package.nls.json beside it. */
export function writeManifest(file = 'package.json'): void {
  const text = fs.readFileSync(file, 'utf8');
  const pkg = JSON.parse(text) as Record<string, unknown>;
  pkg.contributes = contributions();
  pkg.activationEvents = ACTIVATION_EVENTS;
  pkg.capabilities = CAPABILITIES;
  pkg.l10n = L10N_DIR;
  fs.writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);
  fs.writeFileSync(path.join(path.dirname(file), 'package.nls.json'), `${JSON.stringify(nlsStrings(), null, 2)}\n`);
  const l10nDir = path.join(path.dirname(file), L10N_DIR);
  fs.mkdirSync(l10nDir, { recursive: true });
  fs.writeFileSync(path.join(l10nDir, 'bundle.l10n.json'), `${JSON.stringify(l10nMessages(path.dirname(path.resolve(file))).messages, null, 2)}\n`);
}
