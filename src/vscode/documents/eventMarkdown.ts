/**
 * Markdown views of logged events: editor tabs, exports, chat answers. Pure (no `vscode` import)
 * so it is unit-tested in plain Node. Content is always exact and complete: it is placed in a
 * fence longer than any backtick run it contains, so nothing in it can end the block early.
 */
import type { SearchHit } from '../../core/types';
import type { ReadEvent } from '../../core/log/eventLog';
import { previewOnlyNote } from '../../core/log/previewOnly';
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

export function eventHeader(e: ReadEvent): string {
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
  const note = previewOnlyNote(e);
  if (note) rows.push(['content', note]);
  const lines = rows.map(([k, v]) => `- **${k}:** ${inline(v)}`);
  lines.push(`- **size:** ${e.bytes} bytes, about ${e.tokens} tokens`); // our own words: no escaping
  return lines.join('\n');
}

/** One event, header then exact content. */
export function renderEvent(e: ReadEvent): string {
  const meta = e.meta && Object.keys(e.meta).length ? `\n\n<details><summary>meta</summary>\n\n${fenced(JSON.stringify(e.meta, null, 2), 'json')}\n\n</details>` : '';
  return `# Event ${e.seq} · ${inline(e.kind)}\n\n${eventHeader(e)}${meta}\n\n${fenced(e.content, fenceLanguage(e))}\n`;
}

export function renderMissingEvent(seq: number, maxSeq: number): string {
  const where = maxSeq > 0 ? `The log holds seq 1..${maxSeq}.` : 'The log is empty.';
  return `# Event ${seq} not found\n\nThere is no event with seq ${seq} in this workspace's Scroll log. ${where}\n`;
}

/** Several events as one document (a range, or an evicted segment). */
export function renderEvents(title: string, events: ReadEvent[], intro = ''): string {
  const parts = [`# ${title}\n`];
  if (intro) parts.push(intro + '\n');
  if (!events.length) parts.push('_No events in this range._\n');
  for (const e of events) {
    parts.push(`## seq ${e.seq} · ${inline(e.kind)} · ${inline(e.role)}${e.name ? ` · ${inline(e.name)}` : ''}\n\n${eventHeader(e)}\n\n${fenced(e.content, fenceLanguage(e))}\n`);
  }
  return parts.join('\n');
}

/** A kind as words: `user_message` → "user message". */
export function kindWords(kind: string): string {
  return kind.replace(/_/g, ' ');
}

/**
 * A logged time, short: "just now", "12 min ago", "5 h ago", "3 d ago" within a week, then "Nov 20"
 * (this year) or "2025-11-20". A time that does not parse is shown as logged, cut to the minute.
 */
export function compactTime(ts: string, now = Date.now()): string {
  const t = Date.parse(ts);
  if (!Number.isFinite(t)) return ts.slice(0, 16);
  const ago = now - t;
  const min = 60_000;
  if (ago >= 0 && ago < min) return 'just now';
  if (ago >= 0 && ago < 60 * min) return `${Math.floor(ago / min)} min ago`;
  if (ago >= 0 && ago < 24 * 60 * min) return `${Math.floor(ago / (60 * min))} h ago`;
  if (ago >= 0 && ago < 7 * 24 * 60 * min) return `${Math.floor(ago / (24 * 60 * min))} d ago`;
  const d = new Date(t);
  const sameYear = d.getUTCFullYear() === new Date(now).getUTCFullYear();
  return sameYear ? `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}` : d.toISOString().slice(0, 10);
}
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * Search hits for the chat (readable in a narrow chat view): each hit's matching text first, then one
 * short line — the seq link, the kind, a compact time, and the session when the hits span several.
 */
export function renderHits(query: string, hits: SearchHit[], link: (seq: number) => string, note?: string, now = Date.now()): string {
  if (!hits.length) return `No events match **${inline(query)}**.${note ? ` ${note}` : ''}\n`;
  const manySessions = new Set(hits.map((h) => h.session)).size > 1;
  const blocks = hits.map((h) => {
    const meta = [`[seq ${h.seq}](${link(h.seq)})`, inline(kindWords(h.kind)), inline(compactTime(String(h.ts ?? ''), now))];
    if (manySessions) meta.push(inline(h.session));
    if (h.broadened) meta.push('broadened');
    return `${snippetText(h) || '_(no text)_'}  \n_${meta.join(' · ')}_`;
  });
  return `${hits.length} hit${hits.length === 1 ? '' : 's'} for **${inline(query)}**${note ? ` (${note})` : ''}:\n\n${blocks.join('\n\n')}\n`;
}

/** Characters of one event's text shown in chat; the editor tab shows all of it. */
export const CHAT_EVENT_CHARS = 1500;

/**
 * Events for the chat (`/expand`): each event's text first, as wrapping text (escaped, line breaks and
 * indentation kept, never a code block that cannot wrap), then one short metadata line.
 */
export function renderEventsForChat(events: ReadEvent[], now = Date.now(), maxChars = CHAT_EVENT_CHARS): string {
  return events
    .map((e) => {
      const cut = e.content.length > maxChars;
      const note = previewOnlyNote(e);
      const text = (note ? `_${inline(note)}_\n\n` : '') + chatText(cut ? e.content.slice(0, maxChars) : e.content);
      const meta = [`seq ${e.seq}`, inline(kindWords(e.kind)), ...(e.name ? [inline(e.name)] : []), inline(compactTime(e.ts, now)), inline(e.session)];
      const more = cut ? `  \n_…${e.content.length - maxChars} more characters in the editor tab_` : '';
      return `${text || '_(no text)_'}${more}\n\n_**${meta.slice(0, 2).join(' · ')}** · ${meta.slice(2).join(' · ')}_`;
    })
    .join('\n\n---\n\n') + '\n';
}

/**
 * Logged text as Markdown that shows it literally and wraps: every line escaped, a line that could
 * start a block (heading, list, quote, rule, table) neutralised, leading spaces kept as no-break spaces.
 */
export function chatText(content: string): string {
  const lines = content.replace(/\r\n?/g, '\n').replace(/\n+$/, '').split('\n');
  return lines
    .map((line) => {
      const lead = /^[ \t]*/.exec(line)![0];
      const indent = lead.replace(/\t/g, '    ').replace(/ /g, '\u00a0');
      let body = escapeMarkdown(line.slice(lead.length)).replace(/&/g, '\\&').replace(/\|/g, '\\|');
      body = body.replace(/^(\d+)([.)])/, '$1\\$2');
      return indent + body;
    })
    .map((l) => (l === '' ? '\u00a0' : l))
    .join('  \n');
}

/** Search snippet as display text: the « » markers become bold, everything else is escaped. */
export function snippetText(h: Pick<SearchHit, 'snippet' | 'headline'>): string {
  const raw = (h.snippet || h.headline || '').replace(/\s+/g, ' ').trim();
  return escapeMarkdown(raw).replace(/«/g, '**').replace(/»/g, '**');
}
