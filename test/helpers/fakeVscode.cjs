// A stand-in for the `vscode` module, for running the bundled extension (dist/extension.js) where no
// VS Code host runs: the integration tests and bench/activation.mjs. It implements what the
// extension touches (events, configuration, commands, chat participants, LM tools, status bar, log
// channel, secrets) with recording, and answers anything else with a no-op so it survives code it
// does not know. The real host is exercised by test/e2e.
//
//   const fake = require('./fakeVscode.cjs'); fake.install({ settings, folders, trusted });
//   const ext = require('../../dist/extension.js'); ext.activate(fake.context(extensionPath));
//   fake.fire('workspace.onDidSaveTextDocument', fake.document('/p/a.ts', 'text'));
'use strict';
const Module = require('node:module');
const path = require('node:path');

class Disposable {
  constructor(fn) {
    this._fn = fn;
  }
  static from(...items) {
    return new Disposable(() => items.forEach((i) => i && i.dispose && i.dispose()));
  }
  dispose() {
    if (this._fn) this._fn();
    this._fn = undefined;
  }
}

class EventEmitter {
  constructor() {
    this.listeners = new Set();
    this.event = (fn, thisArg) => {
      const l = thisArg ? fn.bind(thisArg) : fn;
      this.listeners.add(l);
      return new Disposable(() => this.listeners.delete(l));
    };
  }
  fire(v) {
    return [...this.listeners].map((l) => l(v));
  }
  dispose() {
    this.listeners.clear();
  }
}

class Uri {
  constructor(scheme, authority, p, query, fragment) {
    this.scheme = scheme;
    this.authority = authority || '';
    this.path = p || '/';
    this.query = query || '';
    this.fragment = fragment || '';
  }
  get fsPath() {
    return this.path;
  }
  static file(p) {
    return new Uri('file', '', path.resolve(p));
  }
  static parse(s) {
    const m = /^([\w+.-]+):(?:\/\/([^/]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/.exec(s);
    return m ? new Uri(m[1], m[2], m[3], m[4], m[5]) : new Uri('file', '', s);
  }
  static from(c) {
    return new Uri(c.scheme, c.authority, c.path, c.query, c.fragment);
  }
  static joinPath(base, ...parts) {
    return new Uri(base.scheme, base.authority, path.posix.join(base.path, ...parts));
  }
  with(c) {
    return new Uri(c.scheme ?? this.scheme, c.authority ?? this.authority, c.path ?? this.path, c.query ?? this.query, c.fragment ?? this.fragment);
  }
  toString() {
    return `${this.scheme}://${this.authority}${this.path}${this.query ? `?${this.query}` : ''}`;
  }
}

class MarkdownString {
  constructor(value = '') {
    this.value = value;
  }
  appendMarkdown(v) {
    this.value += v;
    return this;
  }
}
class ThemeColor {
  constructor(id) {
    this.id = id;
  }
}
class ThemeIcon {
  constructor(id) {
    this.id = id;
  }
}
class LanguageModelTextPart {
  constructor(value) {
    this.value = value;
  }
}
class LanguageModelToolResult {
  constructor(content) {
    this.content = content;
  }
}
class LanguageModelChatMessage {
  constructor(role, content) {
    this.role = role;
    this.content = typeof content === 'string' ? [new LanguageModelTextPart(content)] : content;
  }
  static User(c) {
    return new LanguageModelChatMessage(1, c);
  }
  static Assistant(c) {
    return new LanguageModelChatMessage(2, c);
  }
}
class ChatRequestTurn {
  constructor(prompt, command, references, participant, toolReferences) {
    Object.assign(this, { prompt, command, references: references || [], participant, toolReferences: toolReferences || [] });
  }
}
class ChatResponseMarkdownPart {
  constructor(value) {
    this.value = typeof value === 'string' ? new MarkdownString(value) : value;
  }
}
class ChatResponseTurn {
  constructor(response, result, participant) {
    Object.assign(this, { response, result, participant });
  }
}
// Editor UI classes (freshness: CodeLens, tree view): plain records of what they were given.
class Range {
  constructor(sl, sc, el, ec) {
    Object.assign(this, { start: { line: sl, character: sc }, end: { line: el, character: ec } });
  }
}
class CodeLens {
  constructor(range, command) {
    Object.assign(this, { range, command });
  }
}
class TreeItem {
  constructor(label, collapsibleState) {
    Object.assign(this, { label, collapsibleState });
  }
}
class CancellationTokenSource {
  constructor() {
    const em = new EventEmitter();
    this._em = em;
    this.token = { isCancellationRequested: false, onCancellationRequested: em.event };
  }
  cancel() {
    this.token.isCancellationRequested = true;
    this._em.fire();
  }
  dispose() {}
}

/** Any unknown member: a callable no-op returning a Disposable, usable with `new` too. */
function noop() {
  return new Disposable(() => undefined);
}
/**
 * vscode.l10n.t as VS Code runs it with no translation bundle (English): the message with {0}, {1}
 * replaced by the positional arguments, or {name} by a record's keys; an unknown index stays.
 */
function l10nT(first, ...rest) {
  const message = typeof first === 'string' ? first : first.message;
  const args = typeof first === 'string' ? (rest.length === 1 && rest[0] && typeof rest[0] === 'object' ? rest[0] : rest) : first.args ?? [];
  return message.replace(/{([^}]+)}/g, (whole, key) => (Object.prototype.hasOwnProperty.call(args, key) ? String(args[key]) : whole));
}

function tolerant(target) {
  return new Proxy(target, {
    get(t, k) {
      if (k in t) return t[k];
      if (typeof k === 'symbol' || k === 'then') return undefined;
      return noop;
    },
  });
}

function createFake(opts = {}) {
  const state = {
    settings: { ...(opts.settings || {}) },
    trusted: opts.trusted !== false,
    folders: (opts.folders || []).map((f, index) => ({ uri: Uri.file(f), name: path.basename(f), index })),
    emitters: new Map(),
    commands: new Map(),
    participants: new Map(),
    tools: new Map(),
    statusItems: [],
    log: [],
    messages: [],
    activeTextEditor: undefined,
    textDocuments: [],
    contentProviders: new Map(),
    quickPicks: [],
    codeLensProviders: [],
    treeProviders: new Map(),
  };
  const ev = (name) => {
    if (!state.emitters.has(name)) state.emitters.set(name, new EventEmitter());
    return state.emitters.get(name).event;
  };
  const logChannel = (name) => {
    const rec = (level) => (msg, ...rest) => state.log.push({ level, msg: [msg, ...rest].map(String).join(' ') });
    return tolerant({ name, trace: rec('trace'), debug: rec('debug'), info: rec('info'), warn: rec('warn'), error: rec('error'), append: rec('info'), appendLine: rec('info'), show: () => undefined, hide: () => undefined, clear: () => undefined, dispose: () => undefined, logLevel: 2, onDidChangeLogLevel: ev('log.level') });
  };
  const configuration = (section) => ({
    get(key, def) {
      const full = section ? `${section}.${key}` : key;
      return Object.prototype.hasOwnProperty.call(state.settings, full) ? state.settings[full] : def;
    },
    has(key) {
      return Object.prototype.hasOwnProperty.call(state.settings, section ? `${section}.${key}` : key);
    },
    inspect: () => undefined,
    update: async (key, value) => {
      state.settings[section ? `${section}.${key}` : key] = value;
    },
  });
  const messageBox = (level) => async (message, ...items) => {
    state.messages.push({ level, message });
    return undefined;
  };

  const vscode = {
    Disposable,
    EventEmitter,
    Uri,
    MarkdownString,
    ThemeColor,
    ThemeIcon,
    CancellationTokenSource,
    Range,
    CodeLens,
    TreeItem,
    LanguageModelTextPart,
    LanguageModelToolResult,
    LanguageModelChatMessage,
    LanguageModelChatMessageRole: { User: 1, Assistant: 2 },
    ChatRequestTurn,
    ChatResponseTurn,
    ChatResponseMarkdownPart,
    StatusBarAlignment: { Left: 1, Right: 2 },
    ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
    ViewColumn: { Active: -1, Beside: -2, One: 1 },
    ExtensionMode: { Production: 1, Development: 2, Test: 3 },
    LogLevel: { Off: 0, Trace: 1, Debug: 2, Info: 3, Warning: 4, Error: 5 },
    ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
    version: '1.139.1-fake',
    l10n: { t: l10nT, bundle: undefined, uri: undefined },
    env: tolerant({ sessionId: opts.sessionId || `fake-session-${process.pid}-${Date.now()}`, machineId: 'fake-machine', appName: 'Fake VS Code', uiKind: 1, language: 'en', openExternal: async () => true, asExternalUri: async (u) => u }),
    window: tolerant({
      createOutputChannel: (name) => logChannel(name),
      createStatusBarItem: () => {
        const item = { text: '', tooltip: '', command: undefined, name: '', show() { this.visible = true; }, hide() { this.visible = false; }, dispose() {} };
        state.statusItems.push(item);
        return item;
      },
      showInformationMessage: messageBox('info'),
      showWarningMessage: messageBox('warn'),
      showErrorMessage: messageBox('error'),
      setStatusBarMessage: () => new Disposable(() => undefined),
      withProgress: async (_o, task) => task({ report: () => undefined }, new CancellationTokenSource().token),
      registerWebviewViewProvider: () => new Disposable(() => undefined),
      // A quick pick a test drives: set value and selectedItems, then fire('accept').
      createQuickPick: () => {
        const handlers = { value: [], accept: [], hide: [] };
        const qp = {
          value: '', items: [], selectedItems: [], activeItems: [], busy: false, placeholder: '', title: undefined, matchOnDescription: false, matchOnDetail: false, visible: false,
          onDidChangeValue: (fn) => (handlers.value.push(fn), new Disposable(() => undefined)),
          onDidAccept: (fn) => (handlers.accept.push(fn), new Disposable(() => undefined)),
          onDidHide: (fn) => (handlers.hide.push(fn), new Disposable(() => undefined)),
          onDidChangeSelection: () => new Disposable(() => undefined),
          onDidChangeActive: () => new Disposable(() => undefined),
          onDidTriggerItemButton: () => new Disposable(() => undefined),
          show() { this.visible = true; },
          hide() { if (this.visible) { this.visible = false; for (const h of handlers.hide) h(); } },
          dispose() {},
          fire: async (name, v) => { for (const h of handlers[name]) await h(v); },
        };
        state.quickPicks.push(qp);
        return qp;
      },
      registerTreeDataProvider: (id, provider) => {
        state.treeProviders.set(id, provider);
        return new Disposable(() => state.treeProviders.delete(id));
      },
      get activeTextEditor() {
        return state.activeTextEditor;
      },
      onDidChangeActiveTextEditor: ev('window.onDidChangeActiveTextEditor'),
      onDidStartTerminalShellExecution: ev('window.onDidStartTerminalShellExecution'),
      onDidEndTerminalShellExecution: ev('window.onDidEndTerminalShellExecution'),
      onDidChangeWindowState: ev('window.onDidChangeWindowState'),
      terminals: [],
    }),
    workspace: tolerant({
      getConfiguration: configuration,
      get workspaceFolders() {
        return state.folders.length ? state.folders : undefined;
      },
      get isTrusted() {
        return state.trusted;
      },
      get textDocuments() {
        return state.textDocuments;
      },
      onDidGrantWorkspaceTrust: ev('workspace.onDidGrantWorkspaceTrust'),
      onDidChangeConfiguration: ev('workspace.onDidChangeConfiguration'),
      onDidChangeWorkspaceFolders: ev('workspace.onDidChangeWorkspaceFolders'),
      onDidOpenTextDocument: ev('workspace.onDidOpenTextDocument'),
      onDidCloseTextDocument: ev('workspace.onDidCloseTextDocument'),
      onDidSaveTextDocument: ev('workspace.onDidSaveTextDocument'),
      onDidChangeTextDocument: ev('workspace.onDidChangeTextDocument'),
      onDidCreateFiles: ev('workspace.onDidCreateFiles'),
      onDidDeleteFiles: ev('workspace.onDidDeleteFiles'),
      onDidRenameFiles: ev('workspace.onDidRenameFiles'),
      registerTextDocumentContentProvider: (scheme, provider) => {
        state.contentProviders.set(scheme, provider);
        return new Disposable(() => state.contentProviders.delete(scheme));
      },
      asRelativePath: (p) => (typeof p === 'string' ? p : p.fsPath),
      fs: tolerant({}),
    }),
    commands: tolerant({
      registerCommand: (id, fn) => {
        state.commands.set(id, fn);
        return new Disposable(() => state.commands.delete(id));
      },
      executeCommand: async (id, ...args) => (state.commands.has(id) ? state.commands.get(id)(...args) : undefined),
      getCommands: async () => [...state.commands.keys()],
    }),
    chat: tolerant({
      createChatParticipant: (id, handler) => {
        const p = { id, requestHandler: handler, iconPath: undefined, followupProvider: undefined, onDidReceiveFeedback: ev(`chat.${id}.feedback`), dispose: () => state.participants.delete(id) };
        state.participants.set(id, p);
        return p;
      },
    }),
    lm: tolerant({
      registerTool: (name, tool) => {
        state.tools.set(name, tool);
        return new Disposable(() => state.tools.delete(name));
      },
      selectChatModels: async () => [],
      onDidChangeChatModels: ev('lm.onDidChangeChatModels'),
      get tools() {
        return [...state.tools.keys()].map((name) => ({ name, description: '', inputSchema: {}, tags: [] }));
      },
    }),
    languages: tolerant({
      registerCodeLensProvider: (selector, provider) => {
        state.codeLensProviders.push(provider);
        return new Disposable(() => state.codeLensProviders.splice(state.codeLensProviders.indexOf(provider), 1));
      },
    }),
    tasks: tolerant({ onDidEndTaskProcess: ev('tasks.onDidEndTaskProcess'), onDidStartTaskProcess: ev('tasks.onDidStartTaskProcess') }),
    debug: tolerant({ onDidTerminateDebugSession: ev('debug.onDidTerminateDebugSession'), onDidStartDebugSession: ev('debug.onDidStartDebugSession') }),
    extensions: tolerant({ all: [], getExtension: () => undefined }),
  };
  return { vscode: tolerant(vscode), state };
}

let current;

/** Makes `require('vscode')` return a fresh fake. */
function install(opts) {
  current = createFake(opts);
  if (!Module.__fakeVscodeHooked) {
    const load = Module._load;
    Module._load = function (request, ...rest) {
      if (request === 'vscode') return current.vscode;
      return load.call(this, request, ...rest);
    };
    Module.__fakeVscodeHooked = true;
  }
  return current;
}

/** A minimal ExtensionContext. */
function context(extensionPath) {
  const mem = (store = new Map()) => ({ get: (k, d) => (store.has(k) ? store.get(k) : d), update: async (k, v) => void store.set(k, v), keys: () => [...store.keys()], setKeysForSync: () => undefined });
  const secrets = new Map();
  const secretEvents = new EventEmitter();
  return {
    subscriptions: [],
    extensionPath,
    extensionUri: Uri.file(extensionPath),
    asAbsolutePath: (p) => path.join(extensionPath, p),
    globalState: mem(),
    workspaceState: mem(),
    secrets: {
      get: async (k) => secrets.get(k),
      store: async (k, v) => {
        secrets.set(k, v);
        secretEvents.fire({ key: k });
      },
      delete: async (k) => {
        secrets.delete(k);
        secretEvents.fire({ key: k });
      },
      onDidChange: secretEvents.event,
    },
    storageUri: undefined,
    globalStorageUri: Uri.file(path.join(extensionPath, '.fake-global-storage')),
    logUri: Uri.file(path.join(extensionPath, '.fake-logs')),
    extensionMode: 3,
    environmentVariableCollection: tolerant({}),
  };
}

/** Fires a recorded event by its dotted name, e.g. 'workspace.onDidSaveTextDocument'. */
function fire(name, value) {
  const em = current.state.emitters.get(name);
  return em ? em.fire(value) : [];
}

/** A TextDocument-like object for a file. */
function document(file, text) {
  return { uri: Uri.file(file), fileName: file, getText: () => text, languageId: 'plaintext', version: 1, isDirty: false, lineCount: text.split('\n').length };
}

module.exports = {
  l10nT,
  install,
  context,
  fire,
  document,
  get state() {
    return current && current.state;
  },
  get vscode() {
    return current && current.vscode;
  },
  classes: { Uri, Disposable, EventEmitter, CancellationTokenSource, ChatRequestTurn, ChatResponseTurn, ChatResponseMarkdownPart, MarkdownString, LanguageModelTextPart },
};
