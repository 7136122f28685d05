/**
 * Markdown views of logged events: editor tabs, exports, chat answers. Pure (no `vscode` import)
 * so it is unit-tested in plain Node. Content is always exact and complete: it is placed in a
 * fence longer than any backtick run it contains, so nothing in it can end the block early.
 */
import type { LogEvent, SearchHit } from '../../core/types';
import { readSeqSpec } from '../../shared/seqSpec';
import { escapeMarkdown, fenced, fenceLanguage, inline } from '../../core/log/sessionMarkdown';

export { escapeMarkdown, fenced, fenceFor, guessLanguage, inline, renderSessionExport } from '../../core/log/sessionMarkdown';

/** A seq or an inclusive range typed by a person or a model: `42`, `40..45`, `40-45`, `#42` (every form of `readSeqSpec`). */
export type SeqSpec = { seq: number } | { from: number; to: number };

export function parseSeqSpec(text: string): SeqSpec {
  const r = readSeqSpec(text);
  if (!r.ok) {
    if (r.reason === 'range') throw new Error(`"${text}": a seq is at most ${Number.MAX_SAFE_INTEGER}`);
    throw new Error(`"${text}" is not a seq: write a number like 42 or a range like 40..45`);
  }
  if (r.single) return { seq: r.from };
  if (r.from > r.to) throw new Error(`"${text}": the range starts after it ends (write ${r.to}..${r.from})`);
  return { from: r.from, to: r.to };
}

/** Longest events shown in one range document; beyond it the document says where to continue. */
export const MAX_RANGE_EVENTS = 500;

const EXTENSIONS: Record<string, string> = {
  json: 'json', python: 'py', diff: 'diff', shellscript: 'sh', markdown: 'md', plaintext: 'txt',
};
export function extensionForLanguage(language: string): string {
  return EXTENSIONS[language] ?? 'txt';
}

export function eventHeader(e: LogEvent): string {
  const rows: [string, string][] = [
    ['seq', String(e.seq)],
    ['kind', e.kind],
    ['role', e.role],
    ['session', e.session],
    ['time', e.ts],
  ];
  if (e.name) rows.push(['name', e.name]);
  if (e.step !== null && e.step !== undefined) rows.push(['step', String(e.step)]);
  if (e.toolCallId) rows.push(['tool call', e.toolCallId]);
  if (e.parentSeq !== null && e.parentSeq !== undefined) rows.push(['parent', String(e.parentSeq)]);
  if (e.headline) rows.push(['headline', e.headline]);
  if (e.payload) rows.push(['payload', e.payload]);
  const lines = rows.map(([k, v]) => `- **${k}:** ${inline(v)}`);
  lines.push(`- **size:** ${e.bytes} bytes, about ${e.tokens} tokens`); // our own words: no escaping
  return lines.join('\n');
}

/** One event, header then exact content. */
export function renderEvent(e: LogEvent): string {
  const meta = e.meta && Object.keys(e.meta).length ? `\n\n<details><summary>meta</summary>\n\n${fenced(JSON.stringify(e.meta, null, 2), 'json')}\n\n</details>` : '';
  return `# Event ${e.seq} · ${inline(e.kind)}\n\n${eventHeader(e)}${meta}\n\n${fenced(e.content, fenceLanguage(e))}\n`;
}

export function renderMissingEvent(seq: number, maxSeq: number): string {
  const where = maxSeq > 0 ? `The log holds seq 1..${maxSeq}.` : 'The log is empty.';
  return `# Event ${seq} not found\n\nThere is no event with seq ${seq} in this workspace's Scroll log. ${where}\n`;
}

/** Several events as one document (a range, or an evicted segment). */
export function renderEvents(title: string, events: LogEvent[], intro = ''): string {
  const parts = [`# ${title}\n`];
  if (intro) parts.push(intro + '\n');
  if (!events.length) parts.push('_No events in this range._\n');
  for (const e of events) {
    parts.push(`## seq ${e.seq} · ${inline(e.kind)} · ${inline(e.role)}${e.name ? ` · ${inline(e.name)}` : ''}\n\n${eventHeader(e)}\n\n${fenced(e.content, fenceLanguage(e))}\n`);
  }
  return parts.join('\n');
}

/** One line per hit, with a link target for its seq. */
export function renderHits(query: string, hits: SearchHit[], link: (seq: number) => string, note?: string): string {
  if (!hits.length) return `No events match **${inline(query)}**.${note ? ` ${note}` : ''}\n`;
  const lines = hits.map((h) => `- [seq ${h.seq}](${link(h.seq)}) · ${inline(h.kind)} · ${inline(h.role)} · ${inline(h.session)} · ${inline(String(h.ts ?? '').slice(0, 19))}${h.broadened ? ' · _broadened_' : ''}\n  ${snippetText(h)}`);
  return `${hits.length} hit${hits.length === 1 ? '' : 's'} for **${inline(query)}**${note ? ` (${note})` : ''}:\n\n${lines.join('\n')}\n`;
}

/** Search snippet as display text: the « » markers become bold, everything else is escaped. */
export function snippetText(h: Pick<SearchHit, 'snippet' | 'headline'>): string {
  const raw = (h.snippet || h.headline || '').replace(/\s+/g, ' ').trim();
  return escapeMarkdown(raw).replace(/«/g, '**').replace(/»/g, '**');
}
