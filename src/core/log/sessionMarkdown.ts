/**
 * A session as Markdown: the one export format, written by the editor's "Scroll: Export Session" and
 * by `scroll export --format md`. Pure. Logged content is text, never markup: every event's content
 * sits in a fence longer than any backtick run it holds, and logged one-line fields are escaped.
 */
import type { LogEvent } from '../types';
import type { ReadEvent } from './eventLog';
import { previewOnlyNote } from './previewOnly';

export function fenceFor(content: string): string {
  let longest = 0;
  for (const m of content.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

export function fenced(content: string, language = ''): string {
  const fence = fenceFor(content);
  const body = content.endsWith('\n') ? content : content + '\n';
  return `${fence}${language}\n${body}${fence}`;
}

/** Escapes what could turn logged text into markup or links; leaves ordinary punctuation readable. */
export function escapeMarkdown(text: string): string {
  // `_` and `~` inside words make no markup in CommonMark; escaping them only clutters the raw tab.
  return text.replace(/([\\`*\[\]<>])/g, '\\$1').replace(/(^|\s)([_~]+)(?=\S)/g, (_m, pre: string, marks: string) => pre + marks.replace(/./g, '\\$&')).replace(/^([#+\-=])/, '\\$1');
}

/** One logged field on one line, as text. */
export function inline(text: string): string {
  return escapeMarkdown(text.replace(/\s+/g, ' '));
}

/** A language id for content whose type is not recorded: JSON, Python, shell, diff, Markdown or text. */
export function guessLanguage(content: string, hint?: { kind?: string; name?: string | null }): string {
  if (hint?.kind === 'kernel_exec') return 'python';
  const t = content.trim();
  if ((t.startsWith('{') && t.endsWith('}')) || (t.startsWith('[') && t.endsWith(']'))) {
    try {
      JSON.parse(t);
      return 'json';
    } catch {
      /* not JSON after all */
    }
  }
  if (/^(diff --git|--- a\/|@@ -\d)/m.test(t)) return 'diff';
  if (/^#!.*\b(ba|z)?sh\b/.test(t)) return 'shellscript';
  if (/^#!.*python/.test(t) || /^(def |class |import |from \S+ import )/m.test(t)) return 'python';
  if (/^#{1,6} \S/m.test(t) && /\n/.test(t)) return 'markdown';
  return 'plaintext';
}

/** The info string of an event's fence. */
export function fenceLanguage(e: Pick<LogEvent, 'content' | 'kind' | 'name'>): string {
  const lang = guessLanguage(e.content, e);
  return lang === 'plaintext' || lang === 'markdown' ? 'text' : lang === 'shellscript' ? 'sh' : lang;
}

export interface ExportSpan {
  events: number;
  firstSeq: number;
  lastSeq: number;
  firstTs: string;
  lastTs: string;
}

/**
 * The export's heading: one session's, or (session undefined) the whole log's. `span` undefined: no events.
 * No export time: the same events always export to the same bytes.
 */
export function exportHeader(session: string | undefined, span: ExportSpan | undefined): string {
  const title = session === undefined ? '# Scroll log: every session' : `# Scroll session ${inline(session)}`;
  const range = span ? `seq ${span.firstSeq}..${span.lastSeq}, ${inline(span.firstTs)} – ${inline(span.lastTs)}` : 'no events';
  const count = span?.events ?? 0;
  return `${title}\n\n${count} event${count === 1 ? '' : 's'} (${range}).\n\n`;
}

/** One event of an export. `withSession`: name its session (an export of the whole log). */
export function exportEvent(e: ReadEvent, opts: { withSession?: boolean } = {}): string {
  const who = e.kind === 'user_message' ? 'User' : e.kind === 'model_turn' ? 'Assistant' : `${inline(e.kind)}${e.name ? ` · ${inline(e.name)}` : ''}`;
  const line = [inline(e.ts), inline(e.role)];
  if (opts.withSession) line.push(`session ${inline(e.session)}`);
  if (e.headline) line.push(inline(e.headline));
  const note = previewOnlyNote(e);
  return `### ${who} — seq ${e.seq}\n\n_${line.join(' · ')}_\n\n${note ? `> ${inline(note)}\n\n` : ''}${fenced(e.content, fenceLanguage(e))}\n\n`;
}

/** A session's events, in order, complete. */
export function renderSessionExport(session: string, events: ReadEvent[]): string {
  const first = events[0];
  const last = events[events.length - 1];
  const span = first ? { events: events.length, firstSeq: first.seq, lastSeq: last.seq, firstTs: first.ts, lastTs: last.ts } : undefined;
  return exportHeader(session, span) + events.map((e) => exportEvent(e)).join('');
}
