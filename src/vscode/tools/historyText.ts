/** Plain-text answers of the history tools (for models). Pure: no `vscode`. */
import type { EventLog } from '../../core/log/eventLog';
import { previewOnlyNote } from '../../core/log/previewOnly';
import type { SearchOptions } from '../../core/types';
import { forEditor } from '../maintenance/editorHint';
import type { SeqSpec } from '../documents/eventMarkdown';

const MAX_EXPAND_EVENTS = 50;

export function searchHistoryText(log: Pick<EventLog, 'search'>, input: Record<string, unknown>): string {
  const query = typeof input.query === 'string' ? input.query.trim() : '';
  if (!query) throw new Error('query is required');
  const k = typeof input.k === 'number' && input.k > 0 ? Math.min(Math.floor(input.k), 100) : 10;
  const opts: SearchOptions = { k, snippet: true };
  if (typeof input.kind === 'string' && input.kind) opts.kind = input.kind;
  if (typeof input.session === 'string' && input.session) opts.session = input.session;
  if (typeof input.source === 'string' && input.source) opts.source = input.source;
  const r = log.search(query, opts);
  if (r.message && !r.hits.length) return `No search run: ${forEditor(r.message)}`;
  if (!r.hits.length) return `No events match "${query}".`;
  const lines = r.hits.map((h) => {
    const snippet = (h.snippet || h.headline || '').replace(/\s+/g, ' ').trim();
    return `seq ${h.seq} · ${h.kind} · ${h.role}${h.name ? ` · ${h.name}` : ''} · ${h.session} · ${h.ts}${h.broadened ? ' · broadened' : ''}\n  ${snippet}`;
  });
  const broadened = r.broadened ? ' (no exact match for all terms: broadened to any term)' : '';
  return `${r.hits.length} hit(s) for "${query}"${broadened}. Expand a seq to read it in full.\n${lines.join('\n')}`;
}

/** Events in full, up to `capChars` in all; the rest is named so the caller can ask again. */
export function expandHistory(log: Pick<EventLog, 'get' | 'range' | 'maxSeq'>, spec: SeqSpec, capChars: number): string {
  const events = 'seq' in spec
    ? [log.get(spec.seq, { keepPreview: true })].filter((e) => e !== undefined)
    : log.range(spec.from, Math.min(spec.to, spec.from + MAX_EXPAND_EVENTS - 1), { keepPreview: true });
  if (!events.length) {
    const what = 'seq' in spec ? `seq ${spec.seq}` : `seq ${spec.from}..${spec.to}`;
    return `No event at ${what}. The log holds seq 1..${log.maxSeq()}.`;
  }
  const out: string[] = [];
  let used = 0;
  for (const e of events) {
    const note = previewOnlyNote(e);
    const head = `=== seq ${e.seq} · ${e.kind} · ${e.role}${e.name ? ` · ${e.name}` : ''} · session ${e.session} · ${e.ts}${e.headline ? ` · ${e.headline}` : ''}${note ? `\n[${note}]` : ''}`;
    const room = capChars - used - head.length;
    if (room <= 200 && out.length) {
      out.push(`… stopped before seq ${e.seq} to stay within the output limit: expand from ${e.seq} on.`);
      break;
    }
    const content = e.content.length > room ? `${e.content.slice(0, Math.max(room, 200))}\n… [${e.content.length - Math.max(room, 200)} more characters: expand seq ${e.seq} alone]` : e.content;
    out.push(`${head}\n${content}`);
    used += head.length + content.length;
  }
  if ('from' in spec && spec.to > spec.from + MAX_EXPAND_EVENTS - 1) out.push(`… at most ${MAX_EXPAND_EVENTS} events at a time: expand ${spec.from + MAX_EXPAND_EVENTS}..${spec.to} next.`);
  return out.join('\n');
}
