/**
 * Read-only `scroll:` documents: events, ranges, evicted segments, payloads and a session's
 * eviction index. A missing seq renders a document that says so (never an error popup loop).
 */
import * as vscode from 'vscode';
import {
  extensionForLanguage,
  guessLanguage,
  MAX_RANGE_EVENTS,
  renderEvent,
  renderEvents,
  inline,
  renderMissingEvent,
} from './eventMarkdown';
import { renderIndexMarkdown } from './evictionBlocks';
import { titledPathFor } from './tabTitles';
import { segmentEvents, sessionIndex } from './historyQueries';
import { parseScrollPath, SCROLL_SCHEME, scrollPath, scrollUriString, type ScrollTarget } from '../../shared/scrollUri';
import type { EventLog } from '../../core/log/eventLog';
import type { ScrollServices } from '../services';

export function scrollUri(t: ScrollTarget, payloadExtension?: string): vscode.Uri {
  return vscode.Uri.from({ scheme: SCROLL_SCHEME, path: scrollPath(t, payloadExtension) });
}

/**
 * The URI a tab is opened with: titled by what it shows ("seq 24 · user message", "Evicted seq 1–18",
 * "Eviction index · <session>"), the kind and span read from the log when there is one.
 */
export function titledScrollUri(t: ScrollTarget, log?: EventLog): vscode.Uri {
  return vscode.Uri.from({ scheme: SCROLL_SCHEME, path: titledPathFor(t, log && ((seq) => log.get(seq))) });
}

/** A `scroll:` URI for a payload, its extension (so its language) picked from the content. */
export function payloadUri(handle: string, content: string): vscode.Uri {
  return scrollUri({ kind: 'payload', handle }, extensionForLanguage(guessLanguage(content)));
}

export class ScrollDocumentProvider implements vscode.TextDocumentContentProvider {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  /** Documents whose answer can change as the log grows (missing seqs, index, open ranges). */
  private readonly live = new Set<string>();

  constructor(private readonly services: ScrollServices) {}

  /** The log grew: documents that said "not found" or show an index may read differently now. */
  refresh(): void {
    for (const s of this.live) this.changed.fire(vscode.Uri.parse(s));
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const target = parseScrollPath(uri.path);
    if (!target) return `# Not a Scroll document\n\n\`${uri.toString()}\` is not a Scroll address. Use scroll:/event/<seq>.md, scroll:/range/<a>-<b>.md or scroll:/segment/<seq>.md.\n`;
    let log;
    try {
      log = this.services.existingLog();
    } catch (e) {
      return `# Scroll history unavailable\n\n${(e as Error).message}\n`;
    }
    if (!log) return `# No Scroll history yet\n\nThis workspace has no event log at ${this.services.config.logPath}.\n`;
    const key = uri.toString();
    switch (target.kind) {
      case 'event': {
        const e = log.get(target.seq, { keepPreview: true });
        if (!e) {
          this.live.add(key);
          return renderMissingEvent(target.seq, log.maxSeq());
        }
        this.live.delete(key);
        return renderEvent(e);
      }
      case 'range': {
        const { from, to } = target;
        if (from > to) return `# Empty range\n\nThe range ${from}..${to} starts after it ends.\n`;
        const last = Math.min(to, from + MAX_RANGE_EVENTS - 1);
        const events = log.range(from, last, { keepPreview: true });
        if (to >= log.maxSeq()) this.live.add(key);
        const more = last < to ? `Showing seq ${from}..${last} (the first ${MAX_RANGE_EVENTS}); open ${scrollUriString({ kind: 'range', from: last + 1, to })} for the rest.` : '';
        return renderEvents(`Events ${from}..${to}`, events, more || `${events.length} event${events.length === 1 ? '' : 's'}.`);
      }
      case 'segment': {
        const seg = segmentEvents(log, target.evictionSeq);
        if (!seg) {
          const e = log.get(target.evictionSeq);
          return e
            ? `# Not an eviction\n\nseq ${target.evictionSeq} is a ${e.kind} event, not an eviction index block.\n`
            : renderMissingEvent(target.evictionSeq, log.maxSeq());
        }
        const first = seg.events[0]?.seq;
        const lastSeq = seg.events[seg.events.length - 1]?.seq;
        const title = `Evicted segment ${first ?? ''}..${lastSeq ?? ''} (eviction seq ${target.evictionSeq})`;
        return renderEvents(title, seg.events, `Session ${inline(seg.eviction.session)}. Evicted from the working view at seq ${target.evictionSeq}; nothing was lost from the log.`);
      }
      case 'payload': {
        try {
          return log.payloads.read(target.handle);
        } catch (e) {
          return `Payload ${target.handle} cannot be shown: ${(e as Error).message}\n`;
        }
      }
      case 'index': {
        this.live.add(key);
        const index = sessionIndex(log, target.session, this.services.config.indexLevelCap);
        return renderIndexMarkdown(target.session, index, (b) =>
          b.evictionSeq
            ? titledScrollUri({ kind: 'segment', evictionSeq: b.evictionSeq }, log).toString()
            : titledScrollUri({ kind: 'range', from: b.fromSeq, to: b.toSeq }).toString(),
        );
      }
    }
  }

  dispose(): void {
    this.changed.dispose();
  }
}

export function registerScrollDocuments(context: vscode.ExtensionContext, services: ScrollServices): ScrollDocumentProvider {
  const provider = new ScrollDocumentProvider(services);
  titleLog = () => services.existingLog();
  context.subscriptions.push({ dispose: () => (titleLog = undefined) });
  context.subscriptions.push(
    provider,
    vscode.workspace.registerTextDocumentContentProvider(SCROLL_SCHEME, provider),
    services.onDidChange(() => provider.refresh()),
  );
  return provider;
}

/** The provider serving `scroll:` documents, for the titles of the tabs `openScrollDocument` opens. */
let titleLog: (() => EventLog | undefined) | undefined;

/** Opens a `scroll:` document in a (preview) editor tab titled by what it shows. */
export async function openScrollDocument(t: ScrollTarget, opts: { preview?: boolean } = {}): Promise<vscode.TextEditor> {
  let log: EventLog | undefined;
  try {
    log = titleLog?.();
  } catch {
    log = undefined; // the document itself says why the log cannot be read
  }
  const doc = await vscode.workspace.openTextDocument(titledScrollUri(t, log));
  return vscode.window.showTextDocument(doc, { preview: opts.preview ?? true });
}
