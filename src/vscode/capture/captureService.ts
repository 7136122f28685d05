/**
 * Capture in the editor: while a trusted window is open, the transcripts of other agents (Claude Code,
 * Codex, Copilot Chat, Cline/Roo/Kilo, Gemini CLI) whose working directory is one of the workspace's
 * folders are imported into the workspace log (src/core/capture) and followed, so what a source
 * appends reaches the log within seconds.
 * - Lazy: nothing happens during activation; the first look is a timer after it, so a large `~/.claude`
 *   never slows activation.
 * - Asked first: sources found that `scroll.capture.sources` does not name are listed in a notification
 *   ("Capture" / "Not now" / "Never"); only sources set to true are read. Setting one to false stops
 *   following it; what was captured stays in the log.
 * - Following: `fs.watch` on the located folders (outside the workspace, where the editor's own file
 *   watcher does not reliably reach; the folders with the newest files first) triggers a look soon
 *   after a change; a poll every few seconds catches what a watcher misses (new folders, network
 *   file systems). Each look hands `importFiles` the files changed since this window imported them
 *   (changedFiles.ts); it appends each record once. Files unchanged for a while are stat'ed on every
 *   tenth look or when their folder's watcher fires, so an idle window with thousands of other
 *   projects' sessions costs little (bench/capturePoll.bench.mjs).
 * - Untrusted workspaces: off (started when the workspace is trusted).
 * The "Scroll" output channel gets what capture does: sources, counts, paths; never content.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ImportSummary } from '../../core/capture/importer';
import type { CaptureSource } from '../../core/capture/types';
import type { LogService } from '../logService';
import { errorText, out } from '../output';
import type { ScrollServices } from '../services';
import { byRecentChange, ChangedFiles } from './changedFiles';
import { cwdForWorkspace, locateForWorkspace, type Located } from './captureLocate';
import { answered, askMessage, planCapture, readCaptureSetting, sourceLabel, type CaptureSetting } from './capturePlan';

/* eslint-disable @typescript-eslint/no-require-imports -- loaded on first capture, not at activation */
const captureModule = () => require('../../core/capture') as typeof import('../../core/capture');
/* eslint-enable @typescript-eslint/no-require-imports */

/** After activation, before the first look at the sources. */
const START_DELAY_MS = 2000;
/** Between two looks at the followed sources when no watcher fired (the "within 5 s" bound). */
const POLL_MS = 3000;
/** After a watcher fires, before the look (a writer's burst of appends becomes one import). */
const DEBOUNCE_MS = 250;
/** One look in this many stats every located file; the others skip files unchanged for a while (changedFiles.ts). */
const FULL_LOOK_EVERY = 10;
/** At most this many folders watched (each is an inotify watch); the poll covers the rest. */
const MAX_WATCHED_DIRS = 256;
const SETTING = 'capture.sources';

/**
 * The home folder the sources live under. `SCROLL_TEST_CAPTURE_HOME` is test-only: the host-test
 * harness points it at a fake home (scripts/host/run-host-tests.mjs) so tests never read the
 * machine's real transcripts.
 */
function captureHome(): string {
  return process.env.SCROLL_TEST_CAPTURE_HOME || os.homedir();
}

export function registerCapture(context: vscode.ExtensionContext, services: Pick<ScrollServices, 'logs'>): void {
  context.subscriptions.push(new CaptureService(context, services.logs));
}

class CaptureService implements vscode.Disposable {
  private readonly home = captureHome();
  private readonly workspaceStorage: string | undefined;
  private readonly globalStorage: string;
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly following = new Set<CaptureSource>();
  private readonly watchers = new Map<string, fs.FSWatcher>();
  /** Sources asked about in this window (not asked again until the next window). */
  private readonly asked = new Set<CaptureSource>();
  /** Per source, the files that record no working directory, last reported (logged when it changes). */
  private readonly noCwdReported = new Map<CaptureSource, number>();
  /** Skip reasons already told in the output log (source and reason). */
  private readonly skipReported = new Set<string>();
  /** Per source, the files found to record no working directory (each look imports only changed files). */
  private readonly noCwdFiles = new Map<CaptureSource, Set<string>>();
  /** The files each look hands to the importer: those changed since this window imported them. */
  private readonly changes = new ChangedFiles();
  private lastLog: object | undefined;
  private generation = 0;
  private looks = 0;
  /** Folders whose watcher fired since the last look. */
  private fired = new Set<string>();
  private startTimer: NodeJS.Timeout | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private soonTimer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private disposed = false;

  constructor(context: vscode.ExtensionContext, private readonly logs: LogService) {
    this.workspaceStorage = context.storageUri ? path.dirname(context.storageUri.fsPath) : undefined;
    this.globalStorage = path.dirname(context.globalStorageUri.fsPath);
    this.subscriptions.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(`scroll.${SETTING}`)) this.lookSoon();
      }),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.lookSoon()),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.scheduleStart()),
    );
    if (vscode.workspace.isTrusted) this.scheduleStart();
    else out.info('capture: off (the workspace is not trusted)');
  }

  private scheduleStart(): void {
    if (this.startTimer || this.disposed) return;
    this.startTimer = setTimeout(() => this.lookSoon(0), START_DELAY_MS);
  }

  /** A look at the sources soon; looks never overlap (one that is asked for while one runs follows it). */
  private lookSoon(delay = DEBOUNCE_MS): void {
    if (this.disposed || !this.startTimer) return; // before the start, the start's look covers it
    if (this.soonTimer) return;
    this.soonTimer = setTimeout(() => {
      this.soonTimer = undefined;
      void this.look();
    }, delay);
  }

  private async look(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.lookOnce().catch((e) => out.error(`capture: ${errorText(e)}`));
    try {
      await this.running;
    } finally {
      this.running = undefined;
    }
    if (this.again && !this.disposed) {
      this.again = false;
      this.lookSoon();
    }
  }

  private setting(): CaptureSetting {
    return readCaptureSetting(vscode.workspace.getConfiguration('scroll').get(SETTING));
  }

  private async lookOnce(): Promise<void> {
    if (this.disposed || !vscode.workspace.isTrusted) return;
    const scope = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
    const located = new Map<CaptureSource, Located>();
    const capture = captureModule();
    if (scope.length) {
      for (const source of Object.keys(capture.SOURCES) as CaptureSource[]) {
        try {
          located.set(source, locateForWorkspace(source, { home: this.home, scope, workspaceStorage: this.workspaceStorage, globalStorage: this.globalStorage }));
        } catch (e) {
          out.warn(`capture: ${source}: its files could not be listed: ${errorText(e)}`);
        }
      }
    }
    const found = Object.fromEntries([...located].map(([s, l]) => [s, l.files.length])) as Partial<Record<CaptureSource, number>>;
    const plan = planCapture(this.setting(), found);

    for (const source of [...this.following]) {
      if (plan.capture.includes(source)) continue;
      this.following.delete(source);
      out.info(`capture: ${source}: stopped (scroll.capture.sources${scope.length ? '' : '; no workspace folder'}); what was captured stays in the history`);
    }
    for (const source of plan.capture) {
      if (this.following.has(source)) continue;
      this.following.add(source);
      out.info(`capture: ${source}: following ${found[source] ?? 0} file(s) for ${scope.length} workspace folder(s)`);
    }
    const toAsk = plan.ask.filter((s) => !this.asked.has(s));
    if (toAsk.length) void this.ask(toAsk, found);

    const log = this.logs.log();
    this.changes.setContext(`${scope.join('\n')}\n${log.path}\n${this.logGeneration(log)}`);
    // Every few looks (and the first) a full one; between them cold files are stat'ed only when their folder's watcher fired.
    const look = { full: this.looks++ % FULL_LOOK_EVERY === 0, fired: this.fired };
    this.fired = new Set();
    const changes = new Map([...this.following].map((s) => [s, this.changes.changes(s, located.get(s)?.files ?? [], look)]));
    const newestIn = new Map([...changes.values()].flatMap((c) => [...c.newestIn]));
    this.watch(byRecentChange([...new Set([...this.following].flatMap((s) => located.get(s)?.dirs ?? []))], newestIn));
    if (this.following.size) this.pollTimer ??= setInterval(() => this.lookSoon(0), POLL_MS);
    else if (this.pollTimer) {
      clearInterval(this.pollTimer);
      this.pollTimer = undefined;
    }

    for (const source of this.following) {
      if (this.disposed) return;
      const spec = capture.SOURCES[source];
      const change = changes.get(source);
      if (!spec || !change?.changed.length) continue;
      const cwdOf = (p: string) => cwdForWorkspace(source, p, { scope, workspaceStorage: this.workspaceStorage, sourceCwdOf: spec.cwdOf });
      let summary: ImportSummary;
      try {
        summary = await capture.importFiles(log, spec.reader, change.changed, { scope, cwdOf });
      } catch (e) {
        out.error(`capture: ${source}: import failed: ${errorText(e)}`);
        continue;
      }
      this.changes.imported(source, change.stamps, summary.incomplete.map((p) => p.path));
      const noCwd = this.noCwdFiles.get(source) ?? new Set<string>();
      for (const f of change.changed) noCwd.delete(f);
      for (const f of summary.noCwd) noCwd.add(f);
      this.noCwdFiles.set(source, noCwd);
      this.report(source, summary, noCwd.size);
    }
  }

  /** A number that changes when the service hands out another log object (reopened after a repair). */
  private logGeneration(log: object): number {
    if (log !== this.lastLog) {
      this.lastLog = log;
      this.generation++;
    }
    return this.generation;
  }

  private report(source: CaptureSource, s: ImportSummary, noCwdFiles: number): void {
    if (s.appended) {
      out.info(`capture: ${source}: ${s.appended} event(s) appended (${s.sessions} session(s), ${s.files - s.unchanged} changed file(s) of ${s.files}, ${s.present} already present)`);
      this.logs.notifyChanged();
    }
    if (s.problems.length) {
      // Where, not what: a parser's message can quote the record.
      const where = s.problems.slice(0, 5).map((p) => (p.line !== undefined ? `${p.path}:${p.line}` : p.path));
      out.warn(`capture: ${source}: skipped ${s.problems.length} malformed record(s) or file(s): ${where.join(', ')}${s.problems.length > 5 ? ', …' : ''}`);
    }
    for (const x of s.skipped) {
      // Once per window and reason: Scroll's own chat files change with every @scroll turn.
      if (this.skipReported.has(`${source}\n${x.reason}`)) continue;
      this.skipReported.add(`${source}\n${x.reason}`);
      out.info(`capture: ${source}: skipped ${x.records} record(s): ${x.reason}`);
    }
    if (noCwdFiles !== (this.noCwdReported.get(source) ?? 0)) {
      this.noCwdReported.set(source, noCwdFiles);
      if (noCwdFiles) out.info(`capture: ${source}: ${noCwdFiles} file(s) record no working directory and are not captured (import them with \`scroll import ${source} --path …\`)`);
    }
  }

  private async ask(sources: CaptureSource[], found: Partial<Record<CaptureSource, number>>): Promise<void> {
    for (const s of sources) this.asked.add(s);
    out.info(`capture: asking whether to capture ${sources.map((s) => `${s} (${found[s]} file(s))`).join(', ')}`);
    const answer = await vscode.window.showInformationMessage(askMessage(sources, found), 'Capture', 'Not now', 'Never');
    out.info(`capture: answer for ${sources.join(', ')}: ${answer ?? 'dismissed'}`);
    if (answer !== 'Capture' && answer !== 'Never') return; // "Not now": asked again in the next window
    // The user's setting: consent is the person's, and the scope check keeps each workspace to its own sessions.
    const config = vscode.workspace.getConfiguration('scroll');
    const current = readCaptureSetting(config.inspect(SETTING)?.globalValue);
    try {
      await config.update(SETTING, answered(current, sources, answer === 'Capture'), vscode.ConfigurationTarget.Global);
    } catch (e) {
      out.error(`capture: could not write scroll.${SETTING}: ${errorText(e)}`);
      return;
    }
    if (answer === 'Never') {
      void vscode.window.showInformationMessage(`Scroll will not capture ${sources.map(sourceLabel).join(', ')}. Change it in the setting scroll.capture.sources.`);
    }
  }

  /** Watches the first `dirs` (up to the cap): new folders get a watcher, folders no longer wanted lose theirs. */
  private watch(ordered: readonly string[]): void {
    const dirs = new Set(ordered.slice(0, MAX_WATCHED_DIRS));
    for (const [dir, w] of this.watchers) {
      if (!dirs.has(dir)) {
        w.close();
        this.watchers.delete(dir);
      }
    }
    for (const dir of dirs) {
      if (this.watchers.size >= MAX_WATCHED_DIRS) break;
      if (this.watchers.has(dir)) continue;
      try {
        const w = fs.watch(dir, { persistent: false }, () => {
          this.fired.add(dir);
          this.lookSoon();
        });
        w.on('error', () => {
          w.close();
          this.watchers.delete(dir); // the poll covers it; the next look may watch it again
        });
        this.watchers.set(dir, w);
      } catch {
        // gone or not watchable: the poll covers it
      }
    }
  }

  dispose(): void {
    this.disposed = true;
    for (const t of [this.startTimer, this.soonTimer]) if (t) clearTimeout(t);
    if (this.pollTimer) clearInterval(this.pollTimer);
    for (const w of this.watchers.values()) w.close();
    this.watchers.clear();
    for (const s of this.subscriptions) s.dispose();
  }
}
