/**
 * Scroll's services, wired once at activation; each is small and opens nothing until first used:
 * - `settings`  (settings.ts)          the `scroll.*` settings, the workspace folder, trust;
 * - `logs`      (logService.ts)        the workspace event log: open on first use, closed on settings changes;
 * - `kernels`   (kernelPool.ts)        one Python kernel per chat session, and where its next cell runs (sandbox);
 * - `sessions`  (sessionState.ts)      the active chat session and its working-view figures;
 * - `consent`   (chat/cellConsent.ts)  asking before an @scroll cell that will not run sandboxed;
 * - `search`    (hybridSearch.ts)      Search History's search: BM25, or opt-in hybrid with embeddings.
 * Features take the services they use (`Pick<ScrollServices, …>`); this object holds them all.
 */
import * as vscode from 'vscode';
import type { EventLog } from '../core/log/eventLog';
import { CellConsent } from './chat/cellConsent';
import { HybridSearchService } from './hybridSearch';
import type { ScrollConfig } from './config';
import { KernelPool } from './kernel/kernelPool';
import { LogService } from './logService';
import { SessionState } from './sessionState';
import { Settings } from './settings';

export class ScrollServices implements vscode.Disposable {
  readonly settings: Settings;
  readonly logs: LogService;
  readonly kernels: KernelPool;
  readonly sessions: SessionState;
  readonly search: HybridSearchService;
  readonly consent = new CellConsent();
  /** Time activate() took, in ms (checked by the in-host tests). */
  activationMs = 0;

  private readonly changed = new vscode.EventEmitter<void>();
  private readonly disposables: vscode.Disposable[];

  /** The log, a kernel or a session's figures changed (status bar, panel, document tabs). */
  readonly onDidChange = this.changed.event;

  constructor(context: vscode.ExtensionContext) {
    this.settings = new Settings(context.globalStorageUri.fsPath);
    this.logs = new LogService(this.settings, (context.storageUri ?? context.globalStorageUri).fsPath);
    this.kernels = new KernelPool(this.settings, this.logs, context.extensionPath);
    this.sessions = new SessionState();
    this.search = new HybridSearchService(context.secrets, this.settings, this.logs);
    const fire = () => this.changed.fire();
    // Disposed in reverse: kernels stop before the log they read closes.
    this.disposables = [
      this.settings,
      this.logs,
      this.search,
      this.kernels,
      this.sessions,
      this.changed,
      this.logs.onDidChange(fire),
      this.kernels.onDidChange(fire),
      this.sessions.onDidChange(fire),
    ];
  }

  // The read side that features outside the chat use (document tabs, index compaction, payload GC).
  get config(): ScrollConfig {
    return this.settings.config;
  }

  get trusted(): boolean {
    return this.settings.trusted;
  }

  get workspace(): string | undefined {
    return this.settings.workspace;
  }

  log(): EventLog {
    return this.logs.log();
  }

  existingLog(): EventLog | undefined {
    return this.logs.existingLog();
  }

  get logIsOpen(): boolean {
    return this.logs.isOpen;
  }

  dispose(): void {
    for (const d of [...this.disposables].reverse()) d.dispose();
  }
}
