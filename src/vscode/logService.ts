/**
 * The workspace event log: opened (and created) on first use, never at activation; read-only in an
 * untrusted workspace; closed when `scroll.log.path` or `scroll.redaction.enabled` changes or the
 * workspace becomes trusted (the next use opens it again with the new settings). `onDidChange`
 * fires when it opens, closes or something was appended (the panel and the document tabs refresh);
 * `onDidClose` when the open log is closed (whoever kept it, e.g. a kernel's `ms`, must let go).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { EventLog } from '../core/log/eventLog';
import { prepareLogFolder } from '../core/logFolder';
import { errorText, msSince, out } from './output';
import type { Settings } from './settings';

/* eslint-disable @typescript-eslint/no-require-imports -- loaded on first use, not at activation */
const eventLogModule = () => require('../core/log/eventLog') as typeof import('../core/log/eventLog');
const maintenanceModule = () => require('../core/log/maintenance') as typeof import('../core/log/maintenance');
/* eslint-enable @typescript-eslint/no-require-imports */

export class LogService implements vscode.Disposable {
  private instance: EventLog | undefined;
  private openedPath: string | undefined;
  /** The background rebuild of an index built by an older tokenizer, while it runs. */
  private reindex: { log: EventLog; done: Promise<void>; stop: AbortController } | undefined;
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires with why the log was closed. */
  private readonly closed = new vscode.EventEmitter<string>();
  private readonly subscriptions: vscode.Disposable[];

  readonly onDidChange = this.changed.event;
  /** The log that was open is closed (the next `log()` opens the one the settings name now). */
  readonly onDidClose = this.closed.event;

  /** `storageDir`: the editor's storage for this workspace, which keeps a copy of the log's head (seq + hash) outside the log's folder. */
  constructor(
    private readonly settings: Settings,
    private readonly storageDir?: string,
  ) {
    this.subscriptions = [
      this.changed,
      this.closed,
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('scroll.log.path') || e.affectsConfiguration('scroll.redaction.enabled')) this.close('its settings changed');
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.close('the workspace is trusted now (reopened for writing on next use)')),
    ];
  }

  /** The workspace log, opened (and created) on first use. Untrusted workspaces get it read-only. */
  log(): EventLog {
    const cfg = this.settings.config;
    if (this.instance && this.openedPath === cfg.logPath) return this.instance;
    this.close('scroll.log.path changed');
    const readonly = !this.settings.trusted;
    if (readonly && !fs.existsSync(cfg.logPath)) {
      throw new Error(`This workspace has no Scroll history yet (${cfg.logPath}); it is created when the workspace is trusted and @scroll runs.`);
    }
    const t0 = performance.now();
    let log: EventLog;
    try {
      if (!readonly) prepareLogFolder(path.dirname(cfg.logPath)); // `.scroll/` gets a .gitignore of `*`
      log = eventLogModule().EventLog.open({
        path: cfg.logPath,
        workspace: this.settings.workspace,
        redact: cfg.redact,
        readonly,
        headMirrors: this.headMirrors(cfg.logPath),
        onWarning: (m) => out.warn(`log: ${m}`),
        // Never on this thread: a 10M-token log takes seconds; see reindexInBackground.
        reindexStale: 'later',
      });
    } catch (e) {
      out.error(`log ${cfg.logPath} could not be opened${readonly ? ' (read-only)' : ''}: ${errorText(e)}`);
      throw e;
    }
    this.instance = log;
    this.openedPath = cfg.logPath;
    out.info(
      `log opened: ${cfg.logPath} (${log.driver}${readonly ? ', read-only: the workspace is not trusted' : ''}; ` +
        `events up to seq ${log.maxSeq()}; redaction ${cfg.redact ? 'on' : 'off'}; ${msSince(t0)})`,
    );
    if (log.recovery) {
      out.warn(`log: ${log.recovery.message}`);
      void vscode.window.showWarningMessage(`Scroll: ${log.recovery.message}`);
    } else if (log.recoveredFrom) {
      out.warn(`log: the file was damaged and moved aside to ${log.recoveredFrom}`);
      void vscode.window.showWarningMessage(`Scroll: the log was damaged and moved aside to ${log.recoveredFrom}.`);
    }
    if (log.repaired) {
      out.warn(`log: ${log.repaired.message}`);
      void vscode.window.showWarningMessage(`Scroll: ${log.repaired.message}`);
    }
    if (log.indexStale) this.reindexInBackground(log);
    this.changed.fire();
    return log;
  }

  /** True while the index of the open log is being rebuilt (searches answer from the previous index meanwhile). */
  get indexRebuilding(): boolean {
    return this.reindex !== undefined && this.reindex.log === this.instance;
  }

  /** Resolves when the background rebuild in progress (if any) has ended. */
  async indexRebuilt(): Promise<void> {
    await this.reindex?.done;
  }

  /**
   * Rebuilds an index built by an older tokenizer on the maintenance worker, with progress shown:
   * the open returned already, searches meanwhile read the previous index (the worker's rebuild is
   * one transaction, invisible to this connection until it commits).
   */
  private reindexInBackground(log: EventLog): void {
    const stop = new AbortController();
    const t0 = performance.now();
    out.info('log: the search index was built by an older Scroll: rebuilding it from the log on a worker thread (searches use the previous index until it is done)');
    const done = Promise.resolve(
      vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: 'Scroll: rebuilding the search index (searches use the previous index meanwhile)', cancellable: false },
        async (progress) => {
          let shown = 0;
          const n = await maintenanceModule().rebuildIndexInBackground(log, {
            onlyIfStale: true,
            signal: stop.signal,
            onProgress: (d, total) => {
              const pct = total ? Math.floor((100 * d) / total) : 100;
              if (pct > shown) progress.report({ increment: pct - shown, message: `${d} of ${total} events` });
              shown = pct;
            },
            onWarning: (m) => out.warn(`log: ${m}`),
          });
          out.info(n >= 0 ? `log: search index rebuilt: ${n} events (${msSince(t0)})` : 'log: the search index was rebuilt by another window meanwhile');
        },
      ),
    )
      .catch((e) => {
        if (!stop.signal.aborted) out.warn(`log: the search index could not be rebuilt now (${errorText(e)}); searches use the previous one, and the next open tries again`);
      })
      .finally(() => {
        if (this.reindex?.done === done) this.reindex = undefined;
        this.changed.fire();
      });
    this.reindex = { log, done, stop };
  }

  /**
   * Where the editor keeps its copy of the log's head: a chain inside the file can be recomputed by
   * whoever can write the file, so a copy outside the log's folder makes a rewritten or cut tail visible.
   */
  headMirrors(logPath: string): string[] {
    if (!this.storageDir) return [];
    const key = createHash('sha256').update(path.resolve(logPath)).digest('hex').slice(0, 16);
    return [path.join(this.storageDir, 'heads', `${key}.head.json`)];
  }

  /** The log if it was opened already or exists on disk; undefined when there is no history yet. */
  existingLog(): EventLog | undefined {
    if (this.instance) return this.log();
    return fs.existsSync(this.settings.config.logPath) ? this.log() : undefined;
  }

  get isOpen(): boolean {
    return this.instance !== undefined;
  }

  /** Something was appended (the panel and the document tabs refresh on it). */
  notifyChanged(): void {
    this.changed.fire();
  }

  private close(why: string): void {
    if (!this.instance) return;
    if (this.reindex?.log === this.instance) this.reindex.stop.abort(); // rolls back; the next open tries again
    this.instance.close();
    out.info(`log closed: ${this.openedPath} (${why})`);
    this.instance = undefined;
    this.openedPath = undefined;
    this.closed.fire(why);
    this.changed.fire();
  }

  dispose(): void {
    this.close('Scroll is shutting down');
    for (const s of this.subscriptions) s.dispose();
  }
}
