/**
 * "Scroll: Purge Text from History…" (`scroll.purgeHistory`): the one sanctioned rewrite of the log,
 * for a secret that got in anyway. The user names the events and the text (exact, or a regular
 * expression); core replaces it in the events, their payloads and the search index, recomputes the
 * chain from the first purged seq and appends a `purge` event that records what and when (hashes,
 * never the text). Trusted workspaces only; never an LM tool — no agent can reach it.
 */
import * as vscode from 'vscode';
import type { EventLog } from '../../core/log/eventLog';
import { CancelledError } from '../../core/errors';
import { purgeInBackground } from '../../core/log/maintenance';
import { readSeqSpec } from '../../shared/seqSpec';
import { errorText, out } from '../output';
import type { ScrollServices } from '../services';

export const PURGE_COMMAND = 'scroll.purgeHistory';
const FAILED = 'the purge did not run:';

export function registerPurgeCommand(context: vscode.ExtensionContext, services: Pick<ScrollServices, 'settings' | 'logs'>): void {
  context.subscriptions.push(vscode.commands.registerCommand(PURGE_COMMAND, () => purgeFromHistory(services)));
}

/** Seqs from "12", "12, 15", "40..45" (each part one seq or one range). */
export function parsePurgeSeqs(text: string): number[] {
  const seqs = new Set<number>();
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const spec = readSeqSpec(part);
    if (!spec.ok) throw new Error(`"${part}" is not a seq or a range (write 12, or 40..45)`);
    const [a, b] = [Math.min(spec.from, spec.to), Math.max(spec.from, spec.to)];
    if (b - a > 100_000) throw new Error(`"${part}" names more than 100,000 events; purge a narrower range`);
    for (let s = a; s <= b; s++) seqs.add(s);
  }
  if (!seqs.size) throw new Error('name at least one event (a seq like 12, or a range like 40..45)');
  return [...seqs].sort((x, y) => x - y);
}

/** The seq of the `scroll:/event/<seq>.md` tab in front, as the default of the seq box. */
function seqOfActiveTab(): string {
  const uri = vscode.window.activeTextEditor?.document.uri;
  const m = uri?.scheme === 'scroll' ? /^\/event\/(\d+)/.exec(uri.path) : null;
  return m ? m[1] : '';
}

async function purgeFromHistory(services: Pick<ScrollServices, 'settings' | 'logs'>): Promise<number | undefined> {
  if (!services.settings.trusted) {
    void vscode.window.showWarningMessage('Scroll: purging rewrites the log file; trust this workspace first.');
    return undefined;
  }
  let log: EventLog | undefined;
  try {
    log = services.logs.existingLog();
  } catch (e) {
    void vscode.window.showErrorMessage(`Scroll: ${FAILED} ${(e as Error).message}`);
    return undefined;
  }
  if (!log) {
    void vscode.window.showInformationMessage('Scroll: this workspace has no history yet.');
    return undefined;
  }
  const maxSeq = log.maxSeq();
  const seqText = await vscode.window.showInputBox({
    title: 'Purge text from history (1/3): which events?',
    prompt: `Seqs or ranges, comma-separated (the log holds seq 1..${maxSeq}). Search the history first to find them.`,
    value: seqOfActiveTab(),
    ignoreFocusOut: true,
    validateInput: (v) => {
      try {
        const seqs = parsePurgeSeqs(v);
        const beyond = seqs.find((s) => s < 1 || s > maxSeq);
        return beyond === undefined ? undefined : `seq ${beyond} is not in the log (1..${maxSeq})`;
      } catch (e) {
        return (e as Error).message;
      }
    },
  });
  if (seqText === undefined) return undefined;
  const seqs = parsePurgeSeqs(seqText);
  const how = await vscode.window.showQuickPick(
    [
      { label: 'Exact text', description: 'replace every occurrence of the text', regex: false },
      { label: 'Regular expression', description: 'replace every match', regex: true },
    ],
    { title: 'Purge text from history (2/3): match how?', ignoreFocusOut: true },
  );
  if (!how) return undefined;
  const text = await vscode.window.showInputBox({
    title: `Purge text from history (3/3): the ${how.regex ? 'regular expression' : 'text'} to remove`,
    prompt: 'It is replaced by [PURGED]; the log records a hash of it, never the text.',
    password: !how.regex,
    ignoreFocusOut: true,
    validateInput: (v) => {
      if (!v) return 'enter the text to remove';
      if (how.regex) {
        try {
          new RegExp(v);
        } catch (e) {
          return `not a regular expression: ${(e as Error).message}`;
        }
      }
      return undefined;
    },
  });
  if (!text) return undefined;
  const where = seqs.length === 1 ? `event ${seqs[0]}` : `${seqs.length} events (seq ${seqs[0]}..${seqs[seqs.length - 1]})`;
  const yes = 'Purge';
  const answer = await vscode.window.showWarningMessage(
    `Replace every ${how.regex ? 'match' : 'occurrence'} in ${where}, their payload files and the search index with [PURGED]?`,
    { modal: true, detail: 'This rewrites the log (the one rewrite Scroll allows) and records a purge event. It cannot be undone.' },
    yes,
  );
  if (answer !== yes) return undefined;
  try {
    const r = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Scroll: purging…', cancellable: true },
      (_p, token) => {
        const controller = new AbortController();
        token.onCancellationRequested(() => controller.abort());
        return purgeInBackground(log, how.regex ? { seqs, patterns: [text] } : { seqs, texts: [text] }, { signal: controller.signal });
      },
    );
    services.logs.notifyChanged();
    out.info(`purge: ${r.replacements} replacement(s) in ${r.events.length} event(s); recorded as seq ${r.seq}; ${r.payloadsRemoved.length} old payload file(s) removed`);
    for (const w of r.warnings) out.warn(`purge: ${w}`);
    const none = r.replacements === 0 ? ' Nothing matched.' : '';
    void vscode.window.showInformationMessage(`Scroll: purged ${r.replacements} occurrence(s) in ${r.events.length} event(s), recorded as event ${r.seq}.${none}`);
    return r.seq;
  } catch (e) {
    if (e instanceof CancelledError) {
      void vscode.window.showInformationMessage(`Scroll: ${e.message}.`);
    } else {
      out.error(`purge failed: ${errorText(e)}`);
      void vscode.window.showErrorMessage(`Scroll: ${FAILED} ${(e as Error).message}`);
    }
    return undefined;
  }
}
