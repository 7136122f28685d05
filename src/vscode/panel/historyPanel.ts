/**
 * The history panel's host: one `WebviewPanel` (view type `scroll.history`), restored after a
 * reload by a `WebviewPanelSerializer`, answering the front end's requests through
 * `PanelRequestHandler`. The front end keeps its own UI state (`getState/setState`), so the panel
 * does not need `retainContextWhenHidden`.
 */
import * as vscode from 'vscode';
import { PANEL_VIEW_TYPE, PROTOCOL_VERSION, type HostMessage, type PanelPush } from '../../shared/panelProtocol';
import { EventLogPanelSource, type PanelLog } from './eventLogSource';
import { panelHtml } from './panelHtml';
import { PanelRequestHandler } from './panelRequestHandler';

/** What the panel needs from the rest of the extension. */
export interface HistoryPanelServices {
  /** The workspace event log (opened on first use). Throws with a clear message when there is none. */
  getLog(): PanelLog;
  /** The chat session currently in use, if any; the Sessions tab marks it (the scope stays the reader's choice). */
  currentSession(): string | undefined;
}

export interface RevealOptions {
  session?: string;
  query?: string;
  seq?: number;
}

export interface HistoryPanelController extends vscode.Disposable {
  /** Opens the panel (or brings it forward) and optionally scopes/searches/expands. */
  show(options?: RevealOptions): void;
  /** True while a panel exists (for tests). */
  readonly isOpen: boolean;
}

const LOG_POLL_MS = 2000;

class HistoryPanelHost implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private source: EventLogPanelSource | undefined;
  private sourceLog: PanelLog | undefined;
  private handler: PanelRequestHandler | undefined;
  private lastMaxSeq = -1;
  private poll: ReturnType<typeof setInterval> | undefined;
  private pendingReveal: RevealOptions | undefined;
  private ready = false;

  constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly extensionUri: vscode.Uri,
    private readonly services: HistoryPanelServices,
    private readonly onDisposed: () => void,
  ) {
    panel.webview.options = webviewOptions(extensionUri);
    panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'history.svg');
    const webview = panel.webview;
    webview.html = panelHtml({
      cspSource: webview.cspSource,
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'panel.css')).toString(),
    });
    this.disposables.push(
      webview.onDidReceiveMessage((m) => void this.onMessage(m)),
      panel.onDidChangeViewState(() => this.updatePolling()),
      panel.onDidDispose(() => this.dispose()),
    );
  }

  reveal(options?: RevealOptions): void {
    this.panel.reveal(undefined, false);
    if (!options) return;
    if (this.ready) this.post({ type: 'reveal', ...options });
    else this.pendingReveal = options;
  }

  private post(m: HostMessage): void {
    void this.panel.webview.postMessage(m);
  }

  /** Opens the data source on first use; `getLog` may throw (no workspace) and is retried later. */
  private ensureHandler(): PanelRequestHandler {
    const log = this.services.getLog();
    if (!this.handler || this.sourceLog !== log) {
      this.source?.close();
      this.source = EventLogPanelSource.open(log);
      this.sourceLog = log;
      this.handler = new PanelRequestHandler(this.source, {
        openUri: async (uri) => {
          await vscode.commands.executeCommand('vscode.open', vscode.Uri.parse(uri), {
            preview: true,
            viewColumn: vscode.ViewColumn.Beside,
          });
        },
      });
    }
    return this.handler;
  }

  private async onMessage(raw: unknown): Promise<void> {
    if (raw && typeof raw === 'object' && (raw as { type?: unknown }).type === 'ready') {
      this.ready = true;
      const init: PanelPush = { type: 'init', protocol: PROTOCOL_VERSION, currentSession: this.services.currentSession() ?? null, logPath: null };
      try {
        this.ensureHandler();
        init.logPath = this.sourceLog?.path ?? null; // not stats(): that counts every event
        this.lastMaxSeq = this.sourceLog?.maxSeq() ?? -1;
      } catch (e) {
        init.error = e instanceof Error ? e.message : String(e);
      }
      this.post(init);
      if (this.pendingReveal) {
        this.post({ type: 'reveal', ...this.pendingReveal });
        this.pendingReveal = undefined;
      }
      this.updatePolling();
      return;
    }
    let handler: PanelRequestHandler;
    try {
      handler = this.ensureHandler();
    } catch (e) {
      const id = raw && typeof raw === 'object' && typeof (raw as { id?: unknown }).id === 'number' ? (raw as { id: number }).id : -1;
      this.post({ type: 'response', id, ok: false, error: e instanceof Error ? e.message : String(e) });
      return;
    }
    const answer = await handler.handleMessage(raw);
    if (answer) this.post(answer);
  }

  /** While visible, tell the front end when the log grew so a live search can refresh. */
  private updatePolling(): void {
    const want = this.panel.visible && this.ready;
    if (want && !this.poll) {
      this.poll = setInterval(() => {
        try {
          const max = this.sourceLog?.maxSeq();
          if (max !== undefined && max !== this.lastMaxSeq) {
            this.lastMaxSeq = max;
            this.handler?.invalidate();
            this.post({ type: 'logChanged', maxSeq: max });
          }
        } catch {
          // The log was closed under us (workspace change); the next request reopens it.
        }
      }, LOG_POLL_MS);
    } else if (!want && this.poll) {
      clearInterval(this.poll);
      this.poll = undefined;
    }
  }

  dispose(): void {
    if (this.poll) clearInterval(this.poll);
    this.poll = undefined;
    this.source?.close();
    this.source = undefined;
    this.handler = undefined;
    while (this.disposables.length) this.disposables.pop()?.dispose();
    this.onDisposed();
  }
}

export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return {
    enableScripts: true,
    enableCommandUris: false,
    // Only the bundle and its stylesheet/icons: nothing of the workspace is loadable.
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')],
  };
}

/**
 * Registers the panel's serializer (so a reload restores it) and returns a controller the
 * extension's commands call. Call once from `activate()`.
 */
export function registerHistoryPanel(context: vscode.ExtensionContext, services: HistoryPanelServices): HistoryPanelController {
  let host: HistoryPanelHost | undefined;
  const attach = (panel: vscode.WebviewPanel): HistoryPanelHost => {
    host = new HistoryPanelHost(panel, context.extensionUri, services, () => {
      if (host?.panel === panel) host = undefined;
    });
    return host;
  };
  const serializer = vscode.window.registerWebviewPanelSerializer(PANEL_VIEW_TYPE, {
    async deserializeWebviewPanel(panel: vscode.WebviewPanel) {
      // The front end restores its own state from getState(); we only re-attach the host.
      host?.panel.dispose();
      attach(panel);
    },
  });
  const controller: HistoryPanelController = {
    show(options?: RevealOptions) {
      if (!host) {
        const panel = vscode.window.createWebviewPanel(
          PANEL_VIEW_TYPE,
          'Scroll History',
          { viewColumn: vscode.ViewColumn.Active, preserveFocus: false },
          webviewOptions(context.extensionUri),
        );
        attach(panel);
      }
      host!.reveal(options);
    },
    get isOpen() {
      return host !== undefined;
    },
    dispose() {
      host?.panel.dispose();
      serializer.dispose();
    },
  };
  context.subscriptions.push(controller);
  return controller;
}
