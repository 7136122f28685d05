/**
 * "Scroll: Remove Unreferenced Payload Files" (`scroll.collectGarbage`): the editor's way to what
 * `scroll gc` does — remove payload files no event references (in this log or a moved-aside damaged
 * one) and temp files left by interrupted writes, once older than the grace period (1 hour), and say
 * what it freed. Trusted workspaces only (it deletes files). Never changes the log itself.
 *
 * No worker thread: unlike the check, gc hashes nothing. Its work is reading the events' payload
 * column a few thousand rows at a time and one directory read and stat per file, and
 * `collectGarbage` yields to the event loop between those steps, so the extension host stays
 * responsive. It can be cancelled between two steps (what was removed so far stays removed).
 *
 * Registration (src/extension.ts): `registerGcCommand(context, services);`
 */
import * as vscode from 'vscode';
import type { EventLog } from '../../core/log/eventLog';
import { collectGarbage, formatBytes, formatDuration, type GcOptions, type GcResult } from '../../core/log/payloadGc';
import type { ScrollServices } from '../services';

export const COLLECT_GARBAGE_COMMAND = 'scroll.collectGarbage';
const REMOVE_YOUNG = 'Remove Them Too';
const FAILED = 'removing unreferenced payload files failed:';

export function registerGcCommand(context: vscode.ExtensionContext, services: ScrollServices): void {
  context.subscriptions.push(
    vscode.commands.registerCommand(COLLECT_GARBAGE_COMMAND, (opts?: { graceMs?: number; quiet?: boolean }) => removeUnreferenced(services, opts ?? {})),
  );
}

/** Runs gc; returns its result (undefined when it did not run) for callers and tests. */
async function removeUnreferenced(services: ScrollServices, opts: { graceMs?: number; quiet?: boolean }): Promise<GcResult | undefined> {
  if (!services.trusted) {
    void vscode.window.showWarningMessage('Scroll: removing unreferenced payload files deletes files in the log folder; trust this workspace first.');
    return undefined;
  }
  let log: EventLog | undefined;
  try {
    log = services.existingLog();
  } catch (e) {
    void vscode.window.showErrorMessage(`Scroll: ${FAILED} ${(e as Error).message}`);
    return undefined;
  }
  if (!log) {
    if (!opts.quiet) void vscode.window.showInformationMessage('Scroll: this workspace has no history yet.');
    return undefined;
  }
  const result = await run(log, { graceMs: opts.graceMs });
  if (!result || opts.quiet) return result;
  const choice = await show(result);
  if (choice === REMOVE_YOUNG) {
    const sure = await vscode.window.showWarningMessage(
      'Remove the unreferenced files written in the last hour too? Do this only when nothing else is writing to this log ' +
        '(another window, a `scroll ingest` in a terminal): a write in progress would lose its payload file.',
      { modal: true },
      'Remove',
    );
    if (sure === 'Remove') {
      const again = await run(log, { graceMs: 0 });
      if (again) await show(again);
      return again;
    }
  }
  return result;
}

async function run(log: EventLog, opts: Pick<GcOptions, 'graceMs'>): Promise<GcResult | undefined> {
  try {
    return await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Scroll: removing unreferenced payload files…', cancellable: true },
      (progress, token) => {
        const controller = new AbortController();
        if (token.isCancellationRequested) controller.abort();
        else token.onCancellationRequested(() => controller.abort());
        let shown = 0; // percent reported so far (report() takes increments)
        return collectGarbage(log, {
          ...opts,
          signal: controller.signal,
          onProgress: ({ phase, done, total }) => {
            if (phase !== 'files' || total === 0) {
              progress.report({ message: phase === 'files' ? 'files' : `reading ${phase}` });
              return;
            }
            const pct = Math.floor((100 * done) / total);
            if (pct > shown) progress.report({ increment: pct - shown, message: `${done} of ${total}` });
            shown = Math.max(shown, pct);
          },
        });
      },
    );
  } catch (e) {
    void vscode.window.showErrorMessage(`Scroll: ${FAILED} ${(e as Error).message}`);
    return undefined;
  }
}

function show(r: GcResult): Thenable<string | undefined> {
  const parts = [`freed ${r.freed.payloads} payload file(s) and ${r.freed.temps} temp file(s), ${formatBytes(r.freed.bytes)}.`];
  if (r.stopped) parts.push('Cancelled before the end.');
  if (r.kept.young.files) parts.push(`Kept ${r.kept.young.files} unreferenced file(s) (${formatBytes(r.kept.young.bytes)}) written less than ${formatDuration(r.graceMs)} ago: a write may be in progress.`);
  if (r.kept.forMovedAsideLogs.files) {
    const unreadable = r.movedAside.filter((m) => m.read !== 'all').map((m) => m.path);
    parts.push(`Kept ${r.kept.forMovedAsideLogs.files} file(s) that a damaged log moved aside may reference (${unreadable.join(', ')} cannot be read in full).`);
  }
  if (r.failures.length) parts.push(`${r.failures.length} file(s) could not be removed: ${r.failures.slice(0, 3).join('; ')}`);
  const message = `Scroll: ${parts.join(' ')}`;
  const actions = r.kept.young.files && r.graceMs > 0 ? [REMOVE_YOUNG] : [];
  return r.failures.length ? vscode.window.showWarningMessage(message, ...actions) : vscode.window.showInformationMessage(message, ...actions);
}
