/**
 * `read_events` in pages: a seq, a list of seqs or a range, with full content (payloads resolved),
 * at most `maxChars` characters of content per call. What did not fit is named by a cursor, an
 * opaque string the next call hands back, so a 5 MB tool output arrives in pages and a long range
 * in several calls. A cursor holds the selection and where the page stopped (an event and an offset
 * in its content), nothing else: it stays valid as the log grows (events are never rewritten, but a
 * purge can shorten one: then the cursor is refused with a clear message).
 */
import { InvalidInputError } from '../errors';
import type { EventLog, ReadEvent } from '../log/eventLog';
import { scrollUriString } from '../../shared/scrollUri';
import { readSeqSpec } from '../../shared/seqSpec';
import { sessionSource } from './sessionSource';
import { previewOnlyNote } from '../log/previewOnly';

/** Most seqs one `seqs` list may name. */
export const MAX_LISTED_SEQS = 200;
/** Widest range (in seqs) one call may ask for: wider ones are read in parts. */
export const MAX_RANGE_SPAN = 1000;
/** Content characters per page: default, and the bounds a caller may choose between. */
export const DEFAULT_PAGE_CHARS = 50_000;
export const MIN_PAGE_CHARS = 1_000;
export const MAX_PAGE_CHARS = 500_000;
/** Events per page at most (many tiny events still make a bounded answer). */
export const MAX_PAGE_EVENTS = 100;
/** What an event's fields other than content count against the page (roughly their JSON). */
const EVENT_OVERHEAD_CHARS = 300;
/** The least of an event's content a page that already holds events starts it with. */
const MIN_SLICE_CHARS = 500;

export type Selection = { kind: 'seqs'; seqs: number[] } | { kind: 'range'; from: number; to: number };

interface Cursor {
  v: 1;
  sel: Selection;
  /** `seqs`: index into the list; `range`: the seq to continue at. */
  at: number;
  /** Offset (UTF-16 code units) in that event's content. */
  offset: number;
}

export interface PageEvent {
  seq: number;
  uri: string;
  session: string;
  source: string;
  kind: string;
  role: string;
  name: string | null;
  ts: string;
  step: number | null;
  tool_call_id: string | null;
  parent_seq: number | null;
  headline: string | null;
  /** Handle of the payload file holding the full content, when it was large. */
  payload: string | null;
  bytes: number;
  tokens: number;
  /** Length of the full content in characters (UTF-16 code units, as `content_offset`). */
  chars: number;
  /** Where `content` starts in the full content. */
  content_offset: number;
  content: string;
  /** True when `content` reaches the end of the event's content. */
  complete: boolean;
  /** Only on the page that starts the event. */
  meta?: Record<string, unknown>;
  payload_error?: string;
}

export interface EventPage {
  events: PageEvent[];
  /** Present when there is more: pass it as `cursor` to read on. */
  next_cursor?: string;
}

export interface PageRequest {
  seq?: number;
  seqs?: number[];
  range?: string;
  cursor?: string;
  max_chars?: number;
}

/** The selection a request names, checked (exactly one of seq, seqs, range, cursor). */
export function selectionOf(req: PageRequest): { sel: Selection; at: number; offset: number; fromCursor: boolean } {
  const given = (['seq', 'seqs', 'range', 'cursor'] as const).filter((k) => req[k] !== undefined);
  if (given.length !== 1) {
    throw new InvalidInputError(
      given.length === 0
        ? 'read_events needs one of seq (one event), seqs (a list), range ("A..B") or cursor (from an earlier page)'
        : `read_events takes one of seq, seqs, range or cursor, not ${given.join(' and ')}`,
    );
  }
  if (req.cursor !== undefined) return { ...decodeCursor(req.cursor), fromCursor: true };
  if (req.seq !== undefined) return { sel: { kind: 'seqs', seqs: [checkSeq(req.seq, 'seq')] }, at: 0, offset: 0, fromCursor: false };
  if (req.seqs !== undefined) {
    if (!Array.isArray(req.seqs) || req.seqs.length === 0) throw new InvalidInputError('seqs must be a non-empty list of seqs');
    if (req.seqs.length > MAX_LISTED_SEQS) throw new InvalidInputError(`seqs lists ${req.seqs.length} seqs; at most ${MAX_LISTED_SEQS} per call (use range for a run of seqs)`);
    return { sel: { kind: 'seqs', seqs: req.seqs.map((s) => checkSeq(s, 'seqs')) }, at: 0, offset: 0, fromCursor: false };
  }
  const r = readSeqSpec(req.range);
  if (!r.ok) throw new InvalidInputError(r.reason === 'range' ? `range ${JSON.stringify(req.range)}: a seq is beyond 2^53 − 1` : `range must be "A..B" (e.g. "40..45"; also "40-45", "40 to 45"), got ${JSON.stringify(req.range)}`);
  if (r.to < r.from) throw new InvalidInputError(`range ${r.from}..${r.to} is empty (the end is before the start)`);
  if (r.from < 1) throw new InvalidInputError('seqs start at 1');
  if (r.to - r.from + 1 > MAX_RANGE_SPAN) {
    throw new InvalidInputError(`range ${r.from}..${r.to} is too large (${r.to - r.from + 1} seqs); at most ${MAX_RANGE_SPAN} per call: read it in parts, e.g. ${r.from}..${r.from + MAX_RANGE_SPAN - 1}`);
  }
  return { sel: { kind: 'range', from: r.from, to: r.to }, at: r.from, offset: 0, fromCursor: false };
}

function checkSeq(s: unknown, field: string): number {
  if (typeof s !== 'number' || !Number.isSafeInteger(s) || s < 1) throw new InvalidInputError(`${field}: a seq is a positive integer (got ${JSON.stringify(s)})`);
  return s;
}

export function pageChars(maxChars: number | undefined): number {
  if (maxChars === undefined) return DEFAULT_PAGE_CHARS;
  if (!Number.isSafeInteger(maxChars) || maxChars < MIN_PAGE_CHARS || maxChars > MAX_PAGE_CHARS) {
    throw new InvalidInputError(`max_chars must be an integer from ${MIN_PAGE_CHARS} to ${MAX_PAGE_CHARS} (got ${maxChars})`);
  }
  return maxChars;
}

/** One page of events. Unknown seqs (a seq or a list) and a range holding no event are errors. */
export function readEventPage(log: EventLog, req: PageRequest): EventPage {
  const budgetChars = pageChars(req.max_chars);
  const { sel, at, offset, fromCursor } = selectionOf(req);
  const seqs = pageSeqs(log, sel, at, fromCursor);
  const events: PageEvent[] = [];
  let budget = budgetChars;
  let start = offset;
  for (let i = 0; i < seqs.length; i++) {
    const seq = seqs[i];
    const e = log.get(seq, { keepPreview: true });
    if (!e) throw new InvalidInputError(`no event with seq ${seq} (the log holds ${holds(log)})`);
    if (start > e.content.length) throw new InvalidInputError(`the cursor points past the end of event ${seq} (its content changed since: read it again from its seq)`);
    const room = budget - (start === 0 ? EVENT_OVERHEAD_CHARS + metaChars(e) : EVENT_OVERHEAD_CHARS);
    // A page that has events already does not start another with a sliver of it.
    if (events.length > 0 && room < Math.min(e.content.length - start, MIN_SLICE_CHARS)) {
      return { events, next_cursor: encodeCursor(continueAt(sel, seqs, i, at), start) };
    }
    let end = Math.min(e.content.length, start + Math.max(1, room));
    // Never split a surrogate pair between pages.
    if (end < e.content.length && end > start + 1 && isHighSurrogate(e.content.charCodeAt(end - 1))) end--;
    events.push(pageEvent(e, start, end));
    budget -= end - start + EVENT_OVERHEAD_CHARS;
    if (end < e.content.length) return { events, next_cursor: encodeCursor(continueAt(sel, seqs, i, at), end) };
    start = 0;
    const more = i + 1 < seqs.length || hasMore(log, sel, seq, at + seqs.length);
    if (!more) return { events };
    if (budget <= 0 || events.length >= MAX_PAGE_EVENTS) return { events, next_cursor: encodeCursor(continueAt(sel, seqs, i + 1, at), 0) };
  }
  return { events };

  function continueAt(s: Selection, list: number[], i: number, base: number): { sel: Selection; at: number } {
    if (s.kind === 'seqs') return { sel: s, at: base + i };
    return { sel: s, at: i < list.length ? list[i] : list[list.length - 1] + 1 };
  }
}

/** The seqs this page may read, in order: at most MAX_PAGE_EVENTS. */
function pageSeqs(log: EventLog, sel: Selection, at: number, fromCursor: boolean): number[] {
  if (sel.kind === 'seqs') {
    const rest = sel.seqs.slice(at, at + MAX_PAGE_EVENTS);
    if (!fromCursor) {
      const found = existingSeqs(log, sel.seqs);
      const missing = sel.seqs.filter((s) => !found.has(s));
      if (missing.length) {
        const list = missing.slice(0, 10).join(', ') + (missing.length > 10 ? ', …' : '');
        throw new InvalidInputError(`no event with seq ${list} (the log holds ${holds(log)})`);
      }
    }
    return rest;
  }
  const seqs = seqsBetween(log, at, sel.to, MAX_PAGE_EVENTS);
  if (seqs.length === 0 && !fromCursor) throw new InvalidInputError(`no events in ${sel.from}..${sel.to} (the log holds ${holds(log)})`);
  return seqs;
}

function hasMore(log: EventLog, sel: Selection, lastSeq: number, nextIndex: number): boolean {
  if (sel.kind === 'seqs') return nextIndex < sel.seqs.length;
  return seqsBetween(log, lastSeq + 1, sel.to, 1).length > 0;
}

function seqsBetween(log: EventLog, from: number, to: number, limit: number): number[] {
  if (from > to) return [];
  return (log.database.prepare('SELECT seq FROM events WHERE seq BETWEEN ? AND ? ORDER BY seq LIMIT ?').all(from, to, limit) as { seq: number }[]).map((r) => Number(r.seq));
}

function existingSeqs(log: EventLog, seqs: number[]): Set<number> {
  const unique = [...new Set(seqs)];
  const rows = log.database.prepare(`SELECT seq FROM events WHERE seq IN (${unique.map(() => '?').join(',')})`).all(...unique) as { seq: number }[];
  return new Set(rows.map((r) => Number(r.seq)));
}

function holds(log: EventLog): string {
  const max = log.maxSeq();
  return max ? `1..${max}` : 'no events';
}

function metaChars(e: ReadEvent): number {
  return JSON.stringify(e.meta ?? {}).length;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

export function pageEvent(e: ReadEvent, start: number, end: number): PageEvent {
  const out: PageEvent = {
    seq: e.seq,
    uri: scrollUriString({ kind: 'event', seq: e.seq }),
    session: e.session,
    source: typeof e.meta?.source === 'string' ? e.meta.source : sessionSource(e.session),
    kind: e.kind,
    role: e.role,
    name: e.name,
    ts: e.ts,
    step: e.step,
    tool_call_id: e.toolCallId,
    parent_seq: e.parentSeq,
    headline: e.headline,
    payload: e.payload,
    bytes: e.bytes,
    tokens: e.tokens,
    chars: e.content.length,
    content_offset: start,
    content: e.content.slice(start, end),
    complete: end >= e.content.length,
  };
  if (start === 0) out.meta = e.meta;
  const note = previewOnlyNote(e);
  if (note) out.payload_error = note;
  return out;
}

const CURSOR_PREFIX = 'rc1.';

function encodeCursor(pos: { sel: Selection; at: number }, offset: number): string {
  const c: Cursor = { v: 1, sel: pos.sel, at: pos.at, offset };
  return CURSOR_PREFIX + Buffer.from(JSON.stringify(c), 'utf8').toString('base64url');
}

function decodeCursor(text: unknown): Cursor {
  const bad = (why: string) => new InvalidInputError(`cursor is not one read_events returned (${why}): pass next_cursor exactly as it came`);
  if (typeof text !== 'string' || !text.startsWith(CURSOR_PREFIX)) throw bad('wrong prefix');
  let c: unknown;
  try {
    c = JSON.parse(Buffer.from(text.slice(CURSOR_PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    throw bad('unreadable');
  }
  const o = c as Partial<Cursor> | null;
  const int = (x: unknown, min: number) => typeof x === 'number' && Number.isSafeInteger(x) && x >= min;
  if (!o || o.v !== 1 || !int(o.at, 0) || !int(o.offset, 0) || !o.sel || typeof o.sel !== 'object') throw bad('malformed');
  const s = o.sel as Selection;
  if (s.kind === 'seqs') {
    if (!Array.isArray(s.seqs) || s.seqs.length === 0 || s.seqs.length > MAX_LISTED_SEQS || !s.seqs.every((x) => int(x, 1)) || o.at! >= s.seqs.length) throw bad('malformed');
    return { v: 1, sel: { kind: 'seqs', seqs: s.seqs }, at: o.at!, offset: o.offset! };
  }
  if (s.kind === 'range') {
    if (!int(s.from, 1) || !int(s.to, s.from) || s.to - s.from + 1 > MAX_RANGE_SPAN || o.at! < s.from || o.at! > s.to + 1) throw bad('malformed');
    return { v: 1, sel: { kind: 'range', from: s.from, to: s.to }, at: o.at!, offset: o.offset! };
  }
  throw bad('malformed');
}
