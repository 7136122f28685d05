// A stand-in for the `vscode` module, for the activation bench (bench/activation.bench.mjs): the
// editor API an extension touches at activation, answering at once, with working event emitters,
// URIs, settings (the manifest's defaults, as the editor gives them) and disposables, and a record
// of what was registered. Anything it does not model is reported (`missing`) instead of being
// answered with a guess: when the extension starts using more of the API at activation, the bench
// names what to add here.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

/** `stub.vscode`: the module; `stub.context()`: a fresh ExtensionContext; `stub.record`: what was done. */
function createVscodeStub({ extensionRoot, workspaceFolder, storageDir, manifest }) {
  const record = { calls: 0, missing: new Set(), commands: [], tools: [], participants: [], chatProviders: [], channels: [], statusItems: [] };

  /** A namespace object: its functions count as editor API calls; unknown names are recorded. */
  function namespace(name, members) {
    const wrapped = new Map();
    return new Proxy(members, {
      get(target, key, receiver) {
        if (typeof key !== 'string') return Reflect.get(target, key, receiver);
        if (!(key in target)) {
          if (key !== 'then' && key !== 'toJSON' && key !== '__esModule') record.missing.add(`${name}.${key}`);
          return undefined;
        }
        const v = Reflect.get(target, key, receiver);
        if (typeof v !== 'function' || /^[A-Z]/.test(key)) return v;
        if (!wrapped.has(key)) wrapped.set(key, function (...args) { record.calls++; return v.apply(this, args); });
        return wrapped.get(key);
      },
    });
  }

  // ---- types
  class Disposable {
    constructor(fn) { this._fn = fn; }
    static from(...items) { return new Disposable(() => items.forEach((d) => d?.dispose?.())); }
    dispose() { const fn = this._fn; this._fn = undefined; fn?.(); }
  }
  class EventEmitter {
    constructor() {
      this._listeners = new Set();
      this.event = (listener, thisArg, disposables) => {
        const l = thisArg ? listener.bind(thisArg) : listener;
        this._listeners.add(l);
        const d = new Disposable(() => this._listeners.delete(l));
        if (Array.isArray(disposables)) disposables.push(d);
        return d;
      };
    }
    fire(data) { for (const l of [...this._listeners]) l(data); }
    dispose() { this._listeners.clear(); }
  }
  class Uri {
    constructor(scheme, authority, p, query, fragment) {
      Object.assign(this, { scheme, authority: authority ?? '', path: p || '/', query: query ?? '', fragment: fragment ?? '' });
    }
    get fsPath() { return this.path; }
    with(c) { return new Uri(c.scheme ?? this.scheme, c.authority ?? this.authority, c.path ?? this.path, c.query ?? this.query, c.fragment ?? this.fragment); }
    toString() {
      return `${this.scheme}:${this.authority || this.scheme === 'file' ? `//${this.authority}` : ''}${this.path}${this.query ? `?${this.query}` : ''}${this.fragment ? `#${this.fragment}` : ''}`;
    }
    toJSON() { return { scheme: this.scheme, authority: this.authority, path: this.path, query: this.query, fragment: this.fragment }; }
    static file(p) { return new Uri('file', '', path.resolve(p)); }
    static parse(s) {
      const m = /^([a-zA-Z][\w+.-]*):(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/.exec(s);
      if (!m) throw new Error(`Uri.parse: not a URI: ${s}`);
      return new Uri(m[1], m[2], decodeURIComponent(m[3]), m[4], m[5]);
    }
    static from(c) { return new Uri(c.scheme, c.authority, c.path, c.query, c.fragment); }
    static joinPath(base, ...segments) { return base.with({ path: path.posix.join(base.path, ...segments) }); }
  }
  class MarkdownString {
    constructor(value = '', supportThemeIcons = false) { Object.assign(this, { value, supportThemeIcons, isTrusted: false }); }
    appendText(t) { this.value += t; return this; }
    appendMarkdown(t) { this.value += t; return this; }
    appendCodeblock(code, lang = '') { this.value += `\n\`\`\`${lang}\n${code}\n\`\`\`\n`; return this; }
  }
  class ThemeIcon { constructor(id, color) { Object.assign(this, { id, color }); } }
  class ThemeColor { constructor(id) { this.id = id; } }
  class Position { constructor(line, character) { Object.assign(this, { line, character }); } }
  class Range {
    constructor(a, b, c, d) {
      [this.start, this.end] = typeof a === 'number' ? [new Position(a, b), new Position(c, d)] : [a, b];
    }
  }
  class WorkspaceEdit { constructor() { this.edits = []; } replace(uri, range, text) { this.edits.push({ uri, range, text }); } insert(uri, pos, text) { this.edits.push({ uri, pos, text }); } set(uri, edits) { this.edits.push({ uri, edits }); } }
  class CancellationTokenSource {
    constructor() {
      const emitter = new EventEmitter();
      this.token = { isCancellationRequested: false, onCancellationRequested: emitter.event };
      this._emitter = emitter;
    }
    cancel() { if (!this.token.isCancellationRequested) { this.token.isCancellationRequested = true; this._emitter.fire(); } }
    dispose() { this._emitter.dispose(); }
  }
  class CancellationError extends Error {}
  class LanguageModelTextPart { constructor(value) { this.value = value; } }
  class LanguageModelToolCallPart { constructor(callId, name, input) { Object.assign(this, { callId, name, input }); } }
  class LanguageModelToolResultPart { constructor(callId, content) { Object.assign(this, { callId, content }); } }
  class LanguageModelToolResult { constructor(content) { this.content = content; } }
  class LanguageModelError extends Error {
    constructor(message, code) { super(message); this.code = code ?? 'Unknown'; }
    static NotFound(m) { return new LanguageModelError(m, 'NotFound'); }
    static NoPermissions(m) { return new LanguageModelError(m, 'NoPermissions'); }
    static Blocked(m) { return new LanguageModelError(m, 'Blocked'); }
  }
  const LanguageModelChatMessageRole = { User: 1, Assistant: 2 };
  class LanguageModelChatMessage {
    constructor(role, content, name) { Object.assign(this, { role, content: typeof content === 'string' ? [new LanguageModelTextPart(content)] : content, name }); }
    static User(content, name) { return new LanguageModelChatMessage(LanguageModelChatMessageRole.User, content, name); }
    static Assistant(content, name) { return new LanguageModelChatMessage(LanguageModelChatMessageRole.Assistant, content, name); }
  }
  class ChatResponseTurn { constructor(response, result, participant, command) { Object.assign(this, { response, result, participant, command }); } }
  class ChatRequestTurn { constructor(prompt, command, references, participant, toolReferences) { Object.assign(this, { prompt, command, references, participant, toolReferences }); } }

  const event = () => new EventEmitter().event;
  const resolved = (v) => () => Promise.resolve(v);
  const disposable = () => new Disposable(() => {});

  // ---- settings: the manifest's defaults, as the editor answers when nothing is set
  const defaults = {};
  const sections = manifest.contributes?.configuration;
  for (const s of Array.isArray(sections) ? sections : sections ? [sections] : []) {
    for (const [k, v] of Object.entries(s.properties ?? {})) defaults[k] = v.default;
  }
  const configuration = (section) => {
    const full = (key) => (section ? `${section}.${key}` : key);
    return namespace('WorkspaceConfiguration', {
      get: (key, dflt) => (full(key) in defaults ? defaults[full(key)] : dflt),
      has: (key) => full(key) in defaults,
      inspect: (key) => ({ key: full(key), defaultValue: defaults[full(key)] }),
      update: resolved(undefined),
    });
  };

  const ws = { uri: Uri.file(workspaceFolder), name: path.basename(workspaceFolder), index: 0 };
  const fsApi = namespace('workspace.fs', {
    stat: async (u) => { const s = fs.statSync(u.fsPath); return { type: s.isDirectory() ? 2 : 1, ctime: s.ctimeMs, mtime: s.mtimeMs, size: s.size }; },
    readFile: async (u) => fs.readFileSync(u.fsPath),
    writeFile: async (u, data) => fs.writeFileSync(u.fsPath, data),
    createDirectory: async (u) => { fs.mkdirSync(u.fsPath, { recursive: true }); },
    readDirectory: async (u) => fs.readdirSync(u.fsPath, { withFileTypes: true }).map((d) => [d.name, d.isDirectory() ? 2 : 1]),
    delete: async (u) => fs.rmSync(u.fsPath, { recursive: true, force: true }),
  });
  const workspace = namespace('workspace', {
    workspaceFolders: [ws],
    name: ws.name,
    workspaceFile: undefined,
    isTrusted: true,
    textDocuments: [],
    notebookDocuments: [],
    fs: fsApi,
    getConfiguration: configuration,
    getWorkspaceFolder: (u) => (u.fsPath.startsWith(ws.uri.fsPath) ? ws : undefined),
    asRelativePath: (p) => path.relative(ws.uri.fsPath, typeof p === 'string' ? p : p.fsPath),
    onDidChangeConfiguration: event(),
    onDidGrantWorkspaceTrust: event(),
    onDidChangeWorkspaceFolders: event(),
    onDidOpenTextDocument: event(),
    onDidCloseTextDocument: event(),
    onDidChangeTextDocument: event(),
    onDidSaveTextDocument: event(),
    onDidOpenNotebookDocument: event(),
    onDidCloseNotebookDocument: event(),
    onDidChangeNotebookDocument: event(),
    registerTextDocumentContentProvider: disposable,
    registerFileSystemProvider: disposable,
    openTextDocument: resolved(undefined),
    openNotebookDocument: resolved(undefined),
    applyEdit: resolved(true),
    findFiles: resolved([]),
  });

  const LogLevel = { Off: 0, Trace: 1, Debug: 2, Info: 3, Warning: 4, Error: 5 };
  const outputChannel = (name, options) => {
    const lines = [];
    record.channels.push({ name, log: Boolean(options?.log), lines });
    const at = (level) => (message, ...args) => lines.push(`[${level}] ${message}${args.length ? ` ${args.map(String).join(' ')}` : ''}`);
    return namespace(`OutputChannel(${name})`, {
      name, logLevel: LogLevel.Info, onDidChangeLogLevel: event(),
      trace: at('trace'), debug: at('debug'), info: at('info'), warn: at('warning'), error: at('error'),
      append: (t) => lines.push(t), appendLine: (t) => lines.push(t), replace: (t) => lines.splice(0, lines.length, t),
      clear: () => lines.splice(0), show: () => {}, hide: () => {}, dispose: () => {},
    });
  };
  const statusBarItem = (idOrAlignment, alignment, priority) => {
    const item = { id: typeof idOrAlignment === 'string' ? idOrAlignment : undefined, alignment: typeof idOrAlignment === 'string' ? alignment : idOrAlignment,
      priority, text: '', name: undefined, tooltip: undefined, command: undefined, color: undefined, backgroundColor: undefined, accessibilityInformation: undefined,
      visible: false, show() { this.visible = true; }, hide() { this.visible = false; }, dispose() { this.visible = false; } };
    record.statusItems.push(item);
    return item;
  };
  const webviewPanel = (viewType, title) => {
    const disposeEmitter = new EventEmitter();
    return {
      viewType, title, visible: true, active: true, viewColumn: 1, onDidDispose: disposeEmitter.event, onDidChangeViewState: event(),
      webview: { html: '', options: {}, cspSource: 'vscode-resource:', onDidReceiveMessage: event(), postMessage: resolved(true), asWebviewUri: (u) => u },
      reveal() {}, dispose() { disposeEmitter.fire(); },
    };
  };
  const window = namespace('window', {
    activeTextEditor: undefined,
    visibleTextEditors: [],
    activeNotebookEditor: undefined,
    visibleNotebookEditors: [],
    state: { focused: true, active: true },
    onDidChangeActiveTextEditor: event(),
    onDidChangeVisibleTextEditors: event(),
    onDidChangeActiveNotebookEditor: event(),
    onDidChangeWindowState: event(),
    createOutputChannel: outputChannel,
    createStatusBarItem: statusBarItem,
    createWebviewPanel: webviewPanel,
    createQuickPick: () => ({ items: [], value: '', onDidAccept: event(), onDidChangeValue: event(), onDidHide: event(), onDidChangeSelection: event(), show() {}, hide() {}, dispose() {} }),
    registerWebviewPanelSerializer: disposable,
    registerTreeDataProvider: disposable,
    registerUriHandler: disposable,
    showInformationMessage: resolved(undefined),
    showWarningMessage: resolved(undefined),
    showErrorMessage: resolved(undefined),
    showQuickPick: resolved(undefined),
    showInputBox: resolved(undefined),
    showSaveDialog: resolved(undefined),
    showOpenDialog: resolved(undefined),
    showTextDocument: resolved(undefined),
    showNotebookDocument: resolved(undefined),
    withProgress: (options, task) => Promise.resolve(task({ report() {} }, new CancellationTokenSource().token)),
  });
  const commands = namespace('commands', {
    registerCommand: (id) => { record.commands.push(id); return disposable(); },
    registerTextEditorCommand: (id) => { record.commands.push(id); return disposable(); },
    executeCommand: resolved(undefined),
    getCommands: resolved([]),
  });
  const extensions = namespace('extensions', { all: [], getExtension: () => undefined, onDidChange: event() });
  const lm = namespace('lm', {
    tools: [],
    registerTool: (name) => { record.tools.push(name); return disposable(); },
    registerLanguageModelChatProvider: (vendor) => { record.chatProviders.push(vendor); return disposable(); },
    registerMcpServerDefinitionProvider: (id) => { (record.mcpProviders ??= []).push(id); return disposable(); },
    selectChatModels: resolved([]),
    onDidChangeChatModels: event(),
    invokeTool: () => Promise.reject(new Error('vscode stub: lm.invokeTool is not modelled')),
  });
  const chat = namespace('chat', {
    createChatParticipant: (id, requestHandler) => {
      record.participants.push(id);
      return { id, requestHandler, iconPath: undefined, followupProvider: undefined, onDidReceiveFeedback: event(), dispose() {} };
    },
  });
  const env = namespace('env', {
    appName: 'Visual Studio Code (bench stub)', appHost: 'desktop', appRoot: extensionRoot, remoteName: undefined, uiKind: 1, language: 'en',
    machineId: 'bench', sessionId: 'bench', uriScheme: 'vscode', shell: '/bin/sh', logLevel: LogLevel.Info, onDidChangeLogLevel: event(),
    isTelemetryEnabled: false, onDidChangeTelemetryEnabled: event(),
    clipboard: { readText: resolved(''), writeText: resolved(undefined) }, openExternal: resolved(true), asExternalUri: (u) => Promise.resolve(u),
  });

  const api = {
    version: manifest.engines?.vscode?.replace(/^[^\d]*/, '') ?? '1.0.0',
    workspace, window, commands, extensions, lm, chat, env,
    Disposable, EventEmitter, Uri, MarkdownString, ThemeIcon, ThemeColor, Position, Range, WorkspaceEdit, CancellationTokenSource, CancellationError,
    LanguageModelTextPart, LanguageModelToolCallPart, LanguageModelToolResultPart, LanguageModelToolResult, LanguageModelError,
    LanguageModelChatMessage, LanguageModelChatMessageRole, ChatResponseTurn, ChatRequestTurn,
    LanguageModelChatToolMode: { Auto: 1, Required: 2 },
    StatusBarAlignment: { Left: 1, Right: 2 },
    ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
    ViewColumn: { Active: -1, Beside: -2, One: 1, Two: 2, Three: 3 },
    ConfigurationTarget: { Global: 1, Workspace: 2, WorkspaceFolder: 3 },
    NotebookCellKind: { Markup: 1, Code: 2 },
    FileType: { Unknown: 0, File: 1, Directory: 2, SymbolicLink: 64 },
    ExtensionMode: { Production: 1, Development: 2, Test: 3 },
    UIKind: { Desktop: 1, Web: 2 },
    LogLevel,
  };
  // The bundle reads the module through esbuild's __toESM, which copies its own names and leaves
  // every other name to the prototype: a name the stub lacks reaches this trap and is recorded.
  const unknown = new Proxy(Object.prototype, {
    get(target, key, receiver) {
      if (typeof key === 'string' && !(key in target) && key !== 'then' && key !== '__esModule' && key !== 'default') record.missing.add(`vscode.${key}`);
      return Reflect.get(target, key, receiver);
    },
  });
  const vscode = Object.assign(Object.create(unknown), api);

  const memento = (name) => {
    const m = new Map();
    return namespace(name, { get: (k, d) => (m.has(k) ? m.get(k) : d), update: async (k, v) => { m.set(k, v); }, keys: () => [...m.keys()], setKeysForSync: () => {} });
  };
  const extensionUri = Uri.file(extensionRoot);
  const id = `${manifest.publisher}.${manifest.name}`;
  /** A fresh ExtensionContext, as the editor passes to activate(). */
  const context = () => {
    const storage = (p) => path.join(storageDir, p);
    return namespace('ExtensionContext', {
      subscriptions: [],
      extensionPath: extensionRoot,
      extensionUri,
      extension: namespace('Extension', { id, packageJSON: manifest, extensionPath: extensionRoot, extensionUri, isActive: true, exports: undefined, extensionKind: 1 }),
      extensionMode: api.ExtensionMode.Production,
      globalStorageUri: Uri.file(storage('global')), globalStoragePath: storage('global'),
      storageUri: Uri.file(storage('workspace')), storagePath: storage('workspace'),
      logUri: Uri.file(storage('log')), logPath: storage('log'),
      workspaceState: memento('workspaceState'), globalState: memento('globalState'),
      secrets: namespace('secrets', { get: resolved(undefined), store: resolved(undefined), delete: resolved(undefined), onDidChange: event() }),
      environmentVariableCollection: namespace('environmentVariableCollection', { persistent: true, replace() {}, append() {}, prepend() {}, get() {}, delete() {}, clear() {} }),
      asAbsolutePath: (p) => path.join(extensionRoot, p),
    });
  };
  return { vscode, context, record };
}

module.exports = { createVscodeStub };
