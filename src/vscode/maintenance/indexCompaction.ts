/**
 * Keeps the search index compact in the background. The editor writes the log one small
 * transaction at a time, and each leaves an FTS5 segment: a few hundred events make ten or more,
 * and every search reads each of them (at 10M tokens a median search costs about a quarter less on
 * one segment). When the log has been quiet for a while and the index has more than a few
 * segments, it is merged on the maintenance worker, in steps short enough that an append waits
 * for one step at most. Never on the extension host's thread; never in an untrusted workspace
 * (it writes); never opens a log nobody is using.
 * `scroll.compactSearchIndex` (internal, not in the palette) runs it now and returns the result.
 */
import * as vscode from 'vscode';
import { COMPACT_ABOVE_SEGMENTS, type CompactResult } from '../../core/log/compactIndex';
import { NoWorkerError, compactIndexInBackground } from '../../core/log/maintenance';
import type { EventLog } from '../../core/log/eventLog';
import type { ScrollServices } from '../services';

/** How often the conditions are looked at; how long the log must have been quiet; how far apart runs are. */
const CHECK_EVERY_MS = 60_000;
const QUIET_MS = 30_000;
const MIN_GAP_MS = 10 * 60_000;

export function registerIndexCompaction(context: vscode.ExtensionContext, services: ScrollServices): void {
  const compactor = new IndexCompactor(services);
  context.subscriptions.push(compactor, vscode.commands.registerCommand('scroll.compactSearchIndex', () => compactor.compactNow()));
}

class IndexCompactor implements vscode.Disposable {
  private lastChange = Date.now();
  private lastRun = 0;
  private running: Promise<CompactResult | undefined> | undefined;
  /** Set when no worker can run here: compaction would have to hold the host's thread, so it is off. */
  private unavailable = false;
  private readonly stop = new AbortController();
  private readonly timer: ReturnType<typeof setInterval>;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly services: ScrollServices) {
    this.subscription = services.onDidChange(() => {
      this.lastChange = Date.now();
    });
    this.timer = setInterval(() => void this.whenDue(), CHECK_EVERY_MS);
  }

  private async whenDue(): Promise<void> {
    const now = Date.now();
    if (this.running || this.unavailable || !this.services.logIsOpen) return;
    if (now - this.lastChange < QUIET_MS || now - this.lastRun < MIN_GAP_MS) return;
    const log = this.writableLog();
    try {
      if (!log || log.indexSegments() <= COMPACT_ABOVE_SEGMENTS) return;
    } catch {
      return; // the index cannot be read now; searches will say so
    }
    await this.compactNow();
  }

  /** The workspace log when this window may write to it; undefined otherwise (or when it cannot be opened). */
  private writableLog(): EventLog | undefined {
    if (!this.services.trusted) return undefined;
    try {
      const log = this.services.existingLog();
      return log && !log.readonly ? log : undefined;
    } catch {
      return undefined;
    }
  }

  /** Compacts now (one run at a time); undefined when it cannot run here or was stopped. */
  compactNow(): Promise<CompactResult | undefined> {
    if (this.running) return this.running;
    const log = this.writableLog();
    if (!log) return Promise.resolve(undefined);
    this.lastRun = Date.now();
    this.running = compactIndexInBackground(log, { signal: this.stop.signal, workerOnly: true })
      .catch((e: unknown) => {
        if (e instanceof NoWorkerError) this.unavailable = true;
        // Background upkeep: a failure costs search speed only; the next run tries again.
        return undefined;
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  dispose(): void {
    this.stop.abort(); // a run in progress ends after its current step
    clearInterval(this.timer);
    this.subscription.dispose();
  }
}
