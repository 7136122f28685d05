/**
 * "Scroll: Check History Integrity" and "Scroll: Rebuild Search Index": the editor's way to what
 * `scroll check` and `scroll reindex` do, so a user told "the search index may be damaged" can
 * repair it without a terminal. Checking reads only (allowed in untrusted workspaces); rebuilding
 * writes the derived index, never an event, and needs a trusted workspace. Both run on a worker
 * thread (core/log/maintenance.ts): on a large log they take seconds, which on the extension
 * host's thread would freeze the editor's extensions and the chat. Both can be cancelled.
 */
import * as vscode from 'vscode';
import type { EventLog } from '../../core/log/eventLog';
import { CancelledError } from '../../core/errors';
import { rebuildIndexInBackground, verifyInBackground } from '../../core/log/maintenance';
import type { LogVerification } from '../../core/log/verify';
import { REBUILD_INDEX_TITLE, forEditor } from './editorHint';
import { errorText, msSince, out } from '../output';
import type { ScrollServices } from '../services';

/** What the integrity commands need of Scroll's services. */
export type IntegrityServices = Pick<ScrollServices, 'settings' | 'logs'>;

const REBUILD = REBUILD_INDEX_TITLE;
// Toasts stay short (a long one is cut off mid-sentence); the full findings open with "Details".
const DETAILS = 'Details';
const CHECK_FAILED = 'the history check could not run:';
const REBUILD_FAILED = 'rebuilding the search index failed; the events are untouched.';

export function registerIntegrityCommands(context: vscode.ExtensionContext, services: IntegrityServices): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('scroll.checkHistory', (opts?: { quiet?: boolean }) => checkHistory(services, opts?.quiet === true)),
    vscode.commands.registerCommand('scroll.rebuildSearchIndex', () => rebuildSearchIndex(services)),
  );
}

/**
 * The workspace log, or undefined after saying why there is none: no history yet, or a log that
 * cannot be opened at all (said as an error instead of a bare "command failed").
 */
function openedLog(services: IntegrityServices, quiet: boolean, failure: string): EventLog | undefined {
  let log: EventLog | undefined;
  try {
    log = services.logs.existingLog();
  } catch (e) {
    void vscode.window.showErrorMessage(`Scroll: ${failure} ${(e as Error).message}`);
    return undefined;
  }
  if (!log && !quiet) void vscode.window.showInformationMessage('Scroll: this workspace has no history yet.');
  return log;
}

/** The check's findings, and where it ran (the extension host's thread only when no worker could). */
type CheckResult = LogVerification & { ranOn?: 'worker' | 'this thread' };

/** Runs the full check; returns its findings (undefined when there is no history) for callers and tests. */
async function checkHistory(services: IntegrityServices, quiet: boolean): Promise<CheckResult | undefined> {
  const log = openedLog(services, quiet, CHECK_FAILED);
  if (!log) return undefined;
  let result: CheckResult;
  let ranOn: CheckResult['ranOn'];
  const t0 = performance.now();
  try {
    const found = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Scroll: checking the history (every page, the search index, every payload file)…', cancellable: true },
      (_progress, token) => verifyInBackground(log, { signal: abortOn(token), onStarted: (where) => (ranOn = where) }),
    );
    result = { ...found, ranOn };
  } catch (e) {
    if (e instanceof CancelledError) {
      out.info(`history check cancelled after ${msSince(t0)}`);
      void vscode.window.showInformationMessage(`Scroll: ${e.message}.`);
    } else {
      out.error(`history check could not run (${msSince(t0)}): ${errorText(e)}`);
      void vscode.window.showErrorMessage(`Scroll: ${CHECK_FAILED} ${(e as Error).message}`);
    }
    return undefined;
  }
  logCheck(log, result, msSince(t0));
  if (quiet) return result;
  const showReport = async () =>
    vscode.window.showTextDocument(await vscode.workspace.openTextDocument({ language: 'markdown', content: report(log.path, result, log.maxSeq()) }));
  if (result.ok) {
    void vscode.window.showInformationMessage(`Scroll: the history is intact (seq 1–${log.maxSeq()}).`, DETAILS).then((c) => (c === DETAILS ? showReport() : undefined));
    return result;
  }
  const actions = result.database.length === 0 && result.index.length > 0 && services.settings.trusted ? [REBUILD, DETAILS] : [DETAILS];
  const choice = await vscode.window.showWarningMessage(`Scroll: the history check found problems in ${damagedParts(result)}.`, ...actions);
  if (choice === REBUILD) await rebuildSearchIndex(services);
  else if (choice === DETAILS) await showReport();
  return result;
}

/** Which parts the check found damaged, in a few words for the toast. */
export function damagedParts(r: LogVerification): string {
  const parts: string[] = [];
  if (r.database.length) parts.push('the database pages');
  if (r.index.length) parts.push('the search index');
  if (r.payloads.missing.length || r.payloads.damaged.length) parts.push('payload files');
  if (r.chain && !r.chain.ok) parts.push('the history chain');
  if (!parts.length) return 'the log';
  return parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

/** Refills the search index from the events; returns the number of events indexed, or undefined. */
async function rebuildSearchIndex(services: IntegrityServices): Promise<number | undefined> {
  if (!services.settings.trusted) {
    void vscode.window.showWarningMessage('Scroll: rebuilding the search index writes to the log file; trust this workspace first.');
    return undefined;
  }
  const log = openedLog(services, false, REBUILD_FAILED);
  if (!log) return undefined;
  const warnings: string[] = [];
  let events: number;
  const t0 = performance.now();
  try {
    events = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Scroll: rebuilding the search index from the events…', cancellable: true },
      (progress, token) => {
        let shown = 0; // percent reported so far (report() takes increments)
        return rebuildIndexInBackground(log, {
          signal: abortOn(token),
          onWarning: (m) => warnings.push(m),
          onProgress: (done, total) => {
            const pct = total > 0 ? Math.floor((100 * done) / total) : 100;
            if (pct > shown) progress.report({ increment: pct - shown, message: `${done} of ${total} events` });
            shown = Math.max(shown, pct);
          },
        });
      },
    );
  } catch (e) {
    if (e instanceof CancelledError) {
      out.info(`search index rebuild cancelled after ${msSince(t0)} (rolled back)`);
      void vscode.window.showInformationMessage(`Scroll: ${e.message}.`);
    } else {
      out.error(`search index rebuild failed (${msSince(t0)}): ${errorText(e)}`);
      void vscode.window.showErrorMessage(`Scroll: ${REBUILD_FAILED} ${(e as Error).message}`);
    }
    return undefined;
  }
  out.info(`search index rebuilt from ${events} events of ${log.path} in ${msSince(t0)}${warnings.length ? `; ${warnings.length} indexed from their preview only (payload file missing or damaged)` : ''}`);
  const note = warnings.length ? ` ${warnings.length} event(s) were indexed from their preview only (payload file missing or damaged).` : '';
  void vscode.window.showInformationMessage(`Scroll: the search index was rebuilt from ${events} events.${note}`);
  return events;
}

/** The check's findings in the output channel: counts and seqs, warnings when anything is wrong. */
function logCheck(log: EventLog, r: CheckResult, took: string): void {
  const where = `${log.path}, up to seq ${log.maxSeq()}, on ${r.ranOn ?? 'the worker'}, ${took}`;
  if (r.ok) {
    out.info(`history check: intact (${where}; ${r.payloads.checked} payload file(s) verified${r.hygiene ? `; ${r.hygiene.orphans.files} unreferenced payload file(s), ${r.hygiene.temps.files} temp file(s)` : ''})`);
    return;
  }
  out.warn(
    `history check found problems (${where}): ${r.database.length} in the database pages, ${r.index.length} in the search index, ` +
      `payload files missing for ${r.payloads.missing.length} event(s)${r.payloads.missing.length ? ` (seq ${r.payloads.missing.slice(0, 20).join(', ')})` : ''}, ` +
      `damaged for ${r.payloads.damaged.length}${r.payloads.damaged.length ? ` (seq ${r.payloads.damaged.slice(0, 20).join(', ')})` : ''}`,
  );
  for (const line of [...r.database, ...r.index, ...(r.chain?.problems ?? [])].slice(0, 30)) out.warn(`history check: ${line}`);
}

/** The progress notification's Cancel button as the AbortSignal core understands. */
function abortOn(token: vscode.CancellationToken): AbortSignal {
  const controller = new AbortController();
  if (token.isCancellationRequested) controller.abort();
  else token.onCancellationRequested(() => controller.abort());
  return controller.signal;
}

function editorAdvice(r: LogVerification): string {
  return forEditor(r.advice);
}

function report(path: string, r: LogVerification, maxSeq: number): string {
  const list = (xs: Array<string | number>, none: string) => (xs.length ? xs.map((x) => `- ${x}`).join('\n') : none);
  const verdict = r.ok
    ? `**Intact**: events up to seq ${maxSeq}, the search index, and ${r.payloads.checked} payload file(s) verified.`
    : `**Problems found** in ${damagedParts(r)}: see below and "What to do".`;
  return [
    `# Scroll history check`,
    ``,
    `Log: \`${path}\``,
    ``,
    verdict,
    ``,
    `## Database pages`,
    list(r.database, 'ok'),
    ``,
    `## Search index`,
    list(r.index, 'ok'),
    ``,
    `## Payload files (${r.payloads.checked} checked)`,
    r.payloads.missing.length ? `Missing for events: ${r.payloads.missing.join(', ')}` : 'none missing',
    ``,
    r.payloads.damaged.length ? `Damaged for events: ${r.payloads.damaged.join(', ')}` : 'none damaged',
    ``,
    `## History chain`,
    ...chainReport(r),
    ``,
    `## Unreferenced files`,
    ...hygieneReport(r),
    ``,
    `## What to do`,
    editorAdvice(r),
    ``,
  ].join('\n');
}

/** The hash chain's findings: the first bad seq, holes, triggers, the head copies, the log's own records. */
function chainReport(r: LogVerification): string[] {
  const c = r.chain;
  if (!c) return ['not checked'];
  if (!c.chained) return ['no chain yet (an older log: it starts when the log is next opened for writing)'];
  const lines = [c.ok ? `intact: ${c.events} events chained from seq ${c.chainStart ?? '—'} to the head at seq ${c.head?.seq ?? '—'}` : `**damaged from seq ${c.firstBad ?? '?'}**`];
  for (const p of c.problems.slice(0, 50)) lines.push(`- ${escapeText(p)}`);
  if (c.holes.declared.length) lines.push(`- holes declared by recovery events: ${c.holes.declared.map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`)).join(', ')}`);
  for (const h of c.heads) if (h.message) lines.push(`- head copy: ${escapeText(h.message)}`);
  if (c.recorded.length) {
    lines.push('', "The log's own records:");
    for (const e of c.recorded.slice(-20)) lines.push(`- seq ${e.seq} · ${escapeText(e.kind)}: ${escapeText(e.summary)}`);
  }
  return lines;
}

/** Orphan payload files and stray temp files: a warning, not damage ("Scroll: Remove Unreferenced Payload Files" frees them). */
function hygieneReport(r: LogVerification): string[] {
  const h = r.hygiene;
  if (!h) return ['none'];
  const mb = (n: number) => `${(n / (1024 * 1024)).toFixed(1)} MB`;
  return [
    `- ${h.orphans.files} payload file(s) no event references (${mb(h.orphans.bytes)}; ${h.orphans.young} written in the last hour)`,
    `- ${h.temps.files} stray temp file(s)`,
    ...(h.keptForMovedAsideLogs.files ? [`- ${h.keptForMovedAsideLogs.files} kept for moved-aside logs that could not be read in full`] : []),
    '',
    '"Scroll: Remove Unreferenced Payload Files" (or `scroll gc`) removes them once they are older than the grace period.',
  ];
}

/** A finding's words as Markdown text (they name paths and seqs; nothing in them is markup). */
function escapeText(t: string): string {
  return t.replace(/([\\`*\[\]<>_])/g, '\\$1');
}
