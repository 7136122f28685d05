/**
 * Query side, part 2: `searchEvents(db, query, opts)` over the FTS5 index `events_fts`
 * (rowid = events.seq). `kernel/scroll_search.py` runs the same SQL with the same term processing,
 * so both return the same seqs in the same order (checked by test/vectors/search-vectors.json).
 *
 * Semantics (identical in Python):
 *  1. parse the query (query.ts); prune stop words, and words found in more than half of the
 *     events searched (the whole log via `events_vocab`, or the seq span a session/seq filter
 *     bounds, counted in the index), unless that would prune every term;
 *  2. AND of all terms, weighted bm25 (BM25_WEIGHTS), the best max(offset + k, MIN_CANDIDATES);
 *  3. "almost nothing": when the AND query has fewer than min(k, BROADEN_BELOW) hits and there is
 *     more than one term, the OR of the terms adds candidates, marked `broadened`;
 *  4. context: every candidate's score also lifts its neighbours in the same session (±1 by
 *     CONTEXT_NEAR, ±2 by CONTEXT_FAR of its score); the best CONTEXT_OF of the first
 *     MIN_CANDIDATES candidates and their neighbours that pass the filters are ranked, neighbours
 *     that match nothing themselves as `broadened` hits (the answer is often next to the match: the
 *     tool result after the call, the reply after the question). Tuned on LoCoMo: R@10 0.64 → 0.73;
 *     when the query is a question whose form asks for a kind of answer (a time for "when", a
 *     number for "how many": answerType.ts), each ranked event whose text holds one × (1 +
 *     ANSWER_TYPE_SHARE);
 *  5. order: one list by score (the head's context scores, bm25 for the matches beyond it), ties
 *     newest seq first; each hit says why it is listed (`match`: every term, some terms, or next to
 *     a match). The head does not depend on `offset`, so `offset`/k page through one fixed list:
 *     no page repeats or skips a hit. Filters restrict every step;
 *  6. when the words kept after pruning match nothing, every word is searched after all.
 *
 * Around a ranked page, `countMatches` (how many events the list would hold) and `snippetsFor`
 * (snippets of any events for the same search) use the same terms, filters, SQL and broadening rule,
 * so a caller (the history panel) never re-parses a query or writes FTS SQL of its own.
 */
import type { SearchHit, SearchOptions, SearchResult } from '../types';
import { parseQuery, type DateWindow, type ParsedQuery, type QueryTerm } from './query';
import { holdsAnswerType, type AnswerType } from './answerType';
import { makeSnippet } from './snippet';
import { stemKey } from './tokens';
import { isCorruptionError } from '../db/sqliteErrors';
import { ANSWER_TYPE_SHARE, BM25_WEIGHTS, BROADEN_BELOW, COMMON_SHARE, CONTEXT_FAR, CONTEXT_NEAR, CONTEXT_OF, DATE_SHARE, DEFAULT_K, MAX_K, MAX_OFFSET, MIN_CANDIDATES, PROXIMITY_SHARE, SEGMENT_SHARE, SELF_SHARE, SITTING_WINDOW } from './constants';
import { nearPairShare, termPrefixes } from './proximity';

/** Said when SQLite reports damage during a search: the index is derived, the log can rebuild it. */
export const DAMAGED_INDEX_HINT = 'the search index may be damaged: `scroll reindex` rebuilds it from the log';

/** The part of the `Database` contract (src/core/db) search needs. */
export interface SearchDatabase {
  prepare(sql: string): { get(...p: unknown[]): any; all(...p: unknown[]): any[] };
  /** Uncommitted writes may still roll back: nothing read then is cached (see sessionIds). */
  readonly inTransaction?: boolean;
}


const RANK = `bm25(events_fts, ${BM25_WEIGHTS.map((w) => w.toFixed(1)).join(', ')})`;

const statementsByDb = new WeakMap<object, Map<string, ReturnType<SearchDatabase['prepare']>>>();
/** Prepared statements, reused per connection (preparing costs more than a small FTS query). */
function cached(db: SearchDatabase, sql: string): ReturnType<SearchDatabase['prepare']> {
  let m = statementsByDb.get(db);
  if (!m) statementsByDb.set(db, (m = new Map()));
  let st = m.get(sql);
  if (!st) {
    if (m.size > 200) m.clear();
    st = db.prepare(sql);
    m.set(sql, st);
  }
  return st;
}

interface CorpusStats {
  maxSeq: number;
  total: number;
  /** Whole-log document frequency of a stem and the event count when it was read. */
  df: Map<string, { n: number; total: number }>;
  /** Per seq span "lo:hi": events in the span and per-term counts inside it. */
  spans: Map<string, { total: number; df: Map<string, number> }>;
}
const statsByDb = new WeakMap<object, CorpusStats>();
const MAX_CACHED_SPANS = 32;

/**
 * Event count and document frequencies, cached per connection. The log is append-only, so the
 * count is brought up to date by counting only the new seqs, and a cached frequency stays good
 * enough to decide "more than half" while the events added since cannot change the answer.
 */
function corpusStats(db: SearchDatabase): CorpusStats {
  const maxSeq: number = cached(db, 'SELECT coalesce(max(seq), 0) AS m FROM events').get().m;
  let st = statsByDb.get(db);
  if (st && st.maxSeq === maxSeq) return st;
  const total =
    st && st.maxSeq < maxSeq
      ? st.total + cached(db, 'SELECT count(*) AS n FROM events WHERE seq > ?').get(st.maxSeq).n
      : cached(db, 'SELECT count(*) AS n FROM events').get().n;
  st = { maxSeq, total, df: st && st.df.size < 50_000 ? st.df : new Map(), spans: new Map() };
  statsByDb.set(db, st);
  return st;
}

/** Drops the counts cached for this connection (the index was rebuilt; it may have been damaged before). */
export function forgetCorpusStats(db: object): void {
  statsByDb.delete(db);
}

interface ScopeStats {
  total: number;
  /** True when the term is in more than COMMON_SHARE of the events in scope. */
  isCommon(stem: string, fts: string): boolean;
  /** How many events in scope hold the stem (read fresh: said to the user when a word is pruned). */
  eventsWith(stem: string, fts: string): number;
}

/**
 * Frequencies in the searched scope. Without a seq bound (no session/seq filter) that is the whole
 * log, read from `events_vocab`; with one, the events whose seq lies in the bounded span, counted
 * in the index itself. (Inside one conversation a speaker's name is in half the turns: useless to
 * rank them even though it is rare in the whole log.)
 */
function scopeStats(db: SearchDatabase, plan: Plan): ScopeStats {
  const st = corpusStats(db);
  const readWholeLog = (stem: string): number => {
    const row = cached(db, 'SELECT doc FROM events_vocab WHERE term = ?').get(stem);
    const n = row ? Number(row.doc) : 0;
    st.df.set(stem, { n, total: st.total });
    return n;
  };
  /**
   * At most how many events of the whole log hold the stem now. A frequency read earlier stays
   * cached while the log grows: since it was read it grew by at most the events added (append-only).
   */
  const wholeLogAtMost = (stem: string): number => {
    const seen = st.df.get(stem);
    return seen ? seen.n + (st.total - seen.total) : readWholeLog(stem);
  };
  if (plan.lo === null && plan.hi === null) {
    return {
      total: st.total,
      isCommon(stem) {
        const threshold = st.total * COMMON_SHARE;
        const seen = st.df.get(stem);
        if (seen) {
          if (seen.n > threshold) return true;
          if (wholeLogAtMost(stem) <= threshold) return false;
        }
        return readWholeLog(stem) > threshold;
      },
      eventsWith: (stem) => readWholeLog(stem),
    };
  }
  const lo = plan.lo ?? 0;
  const hi = plan.hi ?? st.maxSeq;
  const key = `${lo}:${hi}`;
  let span = st.spans.get(key);
  if (!span) {
    if (st.spans.size >= MAX_CACHED_SPANS) st.spans.clear();
    span = { total: cached(db, 'SELECT count(*) AS n FROM events WHERE seq BETWEEN ? AND ?').get(lo, hi).n as number, df: new Map() };
    st.spans.set(key, span);
  }
  const s = span;
  return {
    total: s.total,
    isCommon(stem, fts) {
      const threshold = s.total * COMMON_SHARE;
      let n = s.df.get(stem);
      if (n === undefined) {
        // Most query words are rare in the whole log, which answers "no" for any span without
        // counting inside it; that frequency, unlike the span's, stays cached as the log grows.
        if (wholeLogAtMost(stem) <= threshold) return false;
        n = Number(cached(db, 'SELECT count(*) AS n FROM events_fts WHERE events_fts MATCH ? AND rowid BETWEEN ? AND ?').get(fts, lo, hi).n);
        s.df.set(stem, n);
      }
      return n > threshold;
    },
    eventsWith(stem, fts) {
      return s.df.get(stem) ?? Number(cached(db, 'SELECT count(*) AS n FROM events_fts WHERE events_fts MATCH ? AND rowid BETWEEN ? AND ?').get(fts, lo, hi).n);
    },
  };
}

function asList(v: string | string[] | undefined): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  const xs = (Array.isArray(v) ? v : [v]).filter((x) => typeof x === 'string');
  return xs.length ? xs : undefined;
}

function clampInt(v: unknown, dflt: number, min: number, max: number): number {
  const n = typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : dflt;
  return Math.min(max, Math.max(min, n));
}

interface Plan {
  /** FTS5 rowid bounds (seq range, narrowed by the session's first/last seq). */
  lo: number | null;
  hi: number | null;
  /** The session filter, if any. */
  session?: string;
  /** The kind filter, if any. */
  kinds?: string[];
  /** True when only kind and session filter the events: each is a probe of its (x, seq) index. */
  indexOnly: boolean;
  /** True when a filter other than session/seq applies (kind, role, name, time). */
  rowFilters: boolean;
  /** Conditions on `events e`, with parameters. */
  where: string[];
  params: unknown[];
  /** True when the range is provably empty. */
  empty: boolean;
}

function planFilters(db: SearchDatabase, opts: SearchOptions): Plan {
  const plan: Plan = { lo: null, hi: null, rowFilters: false, indexOnly: false, where: [], params: [], empty: false };
  if (typeof opts.seqFrom === 'number' && Number.isFinite(opts.seqFrom)) plan.lo = Math.ceil(opts.seqFrom);
  if (typeof opts.seqTo === 'number' && Number.isFinite(opts.seqTo)) plan.hi = Math.floor(opts.seqTo);
  const kinds = asList(opts.kind);
  if (kinds) {
    plan.kinds = kinds;
    plan.where.push(`e.kind IN (${kinds.map(() => '?').join(', ')})`);
    plan.params.push(...kinds);
  }
  const roles = asList(opts.role);
  if (roles) {
    plan.where.push(`e.role IN (${roles.map(() => '?').join(', ')})`);
    plan.params.push(...roles);
  }
  if (typeof opts.session === 'string') {
    plan.session = opts.session;
    plan.where.push('e.session = ?');
    plan.params.push(opts.session);
    // The session's first and last seq bound the FTS scan itself (two index probes).
    const b = cached(
      db,
      'SELECT (SELECT seq FROM events WHERE session = ? ORDER BY seq LIMIT 1) AS lo, ' +
        '(SELECT seq FROM events WHERE session = ? ORDER BY seq DESC LIMIT 1) AS hi',
    ).get(opts.session, opts.session);
    if (b.lo === null || b.lo === undefined) plan.empty = true;
    else {
      plan.lo = plan.lo === null ? b.lo : Math.max(plan.lo, b.lo);
      plan.hi = plan.hi === null ? b.hi : Math.min(plan.hi, b.hi);
    }
  }
  if (typeof opts.name === 'string') {
    plan.where.push('e.name = ?');
    plan.params.push(opts.name);
  }
  if (typeof opts.tsFrom === 'string') {
    plan.where.push('e.ts >= ?');
    plan.params.push(opts.tsFrom);
  }
  if (typeof opts.tsTo === 'string') {
    plan.where.push('e.ts <= ?');
    plan.params.push(opts.tsTo);
  }
  if (typeof opts.source === 'string') {
    plan.where.push("json_extract(e.meta, '$.source') = ?");
    plan.params.push(opts.source);
  }
  plan.rowFilters = plan.where.length > (plan.session === undefined ? 0 : 1);
  plan.indexOnly = plan.where.length === (plan.session === undefined ? 0 : 1) + (plan.kinds ? 1 : 0);
  if (plan.lo !== null && plan.hi !== null && plan.lo > plan.hi) plan.empty = true;
  return plan;
}

interface Ranked {
  seq: number;
  score: number;
  broadened: boolean;
  match: NonNullable<SearchHit['match']>;
}

/**
 * Session of every event, by seq, per connection: the context step needs the session of ~100
 * neighbours per search, and reading them from the event rows costs a quarter of a median search
 * at 10M tokens. Loaded once from the (session, seq) index, then only the seqs appended since.
 * Never filled inside an open transaction (its rows could still roll back and their seqs be
 * reused). Int32 ids: 4 bytes per event.
 */
interface SessionIds {
  /** Searches seen on this connection; the map is built from the second on (a one-shot CLI search never pays for it). */
  searches: number;
  upTo: number;
  ids: Int32Array;
  /** Day of each event's ts (days since 1970-01-01 UTC; -1 unknown): a session's day is a segment. */
  days: Int32Array;
  names: string[];
  byName: Map<string, number>;
}
const sessionIdsByDb = new WeakMap<object, SessionIds>();
/** Above this many events the map is not kept (memory), and rows are read per search instead. */
const MAX_MAPPED_EVENTS = 4_000_000;

function sessionIds(db: SearchDatabase, maxSeq: number): SessionIds | undefined {
  if (db.inTransaction || maxSeq > MAX_MAPPED_EVENTS) return undefined;
  let m = sessionIdsByDb.get(db);
  if (m && m.upTo > maxSeq) m = undefined; // the log was replaced under this connection
  if (!m) {
    m = { searches: 0, upTo: 0, ids: new Int32Array(0), days: new Int32Array(0), names: [], byName: new Map() };
    sessionIdsByDb.set(db, m);
  }
  if (++m.searches < 2) return undefined;
  if (m.upTo === maxSeq) return m;
  let ids = m.ids;
  let days = m.days;
  if (maxSeq + 1 > ids.length) {
    const size = Math.max(maxSeq + 1, Math.ceil(ids.length * 1.5));
    ids = new Int32Array(size).fill(-1);
    ids.set(m.ids);
    days = new Int32Array(size).fill(-1);
    days.set(m.days);
  }
  const idOf = (session: string): number => {
    let id = m!.byName.get(session);
    if (id === undefined) {
      id = m!.names.length;
      m!.names.push(session);
      m!.byName.set(session, id);
    }
    return id;
  };
  if (m.upTo === 0) {
    // First load, from the covering (session, seq) index, without a JS object per event: a session
    // whose seqs form one unbroken run is filled as a range; only sessions that interleave with
    // others (two windows appending at once) are read seq by seq.
    const runs = cached(
      db,
      'SELECT session, min(seq) AS lo, max(seq) AS hi, count(*) AS n FROM events WHERE seq <= ? GROUP BY session',
    ).all(maxSeq);
    const interleaved: string[] = [];
    for (const r of runs) {
      const lo = Number(r.lo);
      const hi = Number(r.hi);
      if (Number(r.n) === hi - lo + 1) ids.fill(idOf(r.session), lo, hi + 1);
      else interleaved.push(r.session);
    }
    const seqsOf = cached(db, 'SELECT seq FROM events WHERE session = ? AND seq <= ?');
    for (const session of interleaved) {
      const id = idOf(session);
      for (const r of seqsOf.all(session, maxSeq)) ids[Number(r.seq)] = id;
    }
    // Days the same way, from the covering (ts, seq) index: a day whose events are one run of seqs
    // is filled as a range, the others seq by seq.
    const dayRuns = cached(
      db,
      'SELECT substr(ts, 1, 10) AS d, min(seq) AS lo, max(seq) AS hi, count(*) AS n FROM events INDEXED BY events_ts WHERE seq <= ? GROUP BY d',
    ).all(maxSeq);
    const seqsOn = cached(db, 'SELECT seq FROM events INDEXED BY events_ts WHERE ts >= ? AND ts < ? AND seq <= ?');
    for (const r of dayRuns) {
      const day = dayNumber(r.d);
      const lo = Number(r.lo);
      const hi = Number(r.hi);
      if (Number(r.n) === hi - lo + 1) days.fill(day, lo, hi + 1);
      else for (const x of seqsOn.all(r.d, r.d + '\uffff', maxSeq)) days[Number(x.seq)] = day;
    }
  } else {
    for (const r of cached(db, 'SELECT seq, session, ts FROM events WHERE seq > ? AND seq <= ?').all(m.upTo, maxSeq)) {
      ids[Number(r.seq)] = idOf(r.session);
      days[Number(r.seq)] = dayNumber(r.ts);
    }
  }
  m.ids = ids;
  m.days = days;
  m.upTo = maxSeq;
  return m;
}

/** Where an event is: its session and the day of its ts (a segment; its sittings are the runs of SITTING_WINDOW seqs around each event). */
interface Place {
  session: string;
  day: number;
  /** Same number: same session and day (-1: no day, a segment of its own). */
  segment: number;
}

/** Segment number from a session number and a day (days fit 16 bits until 2149). */
const segmentOf = (sessionNo: number, day: number) => (day < 0 ? -1 : sessionNo * 65_536 + (day & 0xffff));

/** Day number (days since 1970-01-01 UTC) of an ISO timestamp or date; -1 when it does not parse. */
export function dayNumber(ts: unknown): number {
  const t = String(ts ?? '');
  const ms = Date.UTC(Number(t.slice(0, 4)), Number(t.slice(5, 7)) - 1, Number(t.slice(8, 10)));
  return /^\d{4}-\d{2}-\d{2}/.test(t) && Number.isFinite(ms) ? Math.floor(ms / 86_400_000) : -1;
}

/** seq → place for the given seqs that pass the plan's filters (absent: filtered out or no event). */
function contextPlaces(db: SearchDatabase, seqs: number[], plan: Plan): Map<number, Place> {
  const place = new Map<number, Place>();
  if (!plan.rowFilters) {
    const m = sessionIds(db, corpusStats(db).maxSeq);
    if (m) {
      for (const seq of seqs) {
        const id = seq <= m.upTo ? m.ids[seq] : -1;
        if (id < 0) continue;
        const name = m.names[id];
        const day = m.days[seq];
        if (plan.session === undefined || name === plan.session) place.set(seq, { session: name, day, segment: segmentOf(id, day) });
      }
      return place;
    }
  }
  const filter = plan.where.length ? ` AND ${plan.where.join(' AND ')}` : '';
  const sessionNo = new Map<string, number>();
  for (let i = 0; i < seqs.length; i += 500) {
    const chunk = seqs.slice(i, i + 500);
    const sql = `SELECT e.seq AS seq, e.session AS session, e.ts AS ts FROM events e WHERE e.seq IN (${chunk.map(() => '?').join(', ')})${filter}`;
    for (const row of cached(db, sql).all(...chunk, ...plan.params)) {
      let no = sessionNo.get(row.session);
      if (no === undefined) sessionNo.set(row.session, (no = sessionNo.size));
      const day = dayNumber(row.ts);
      place.set(Number(row.seq), { session: row.session, day, segment: segmentOf(no, day) });
    }
  }
  return place;
}

/**
 * Re-ranks every candidate and adds the neighbours (±1, ±2 in the same session and day, passing
 * the filters) of the best CONTEXT_OF. Each scores its own bm25 (0 for a neighbour that is not a
 * candidate; a candidate's × (1 + PROXIMITY_SHARE × its share of adjacent query terms that stand
 * within PROXIMITY_WINDOW characters: proximity.ts), plus CONTEXT_NEAR/CONTEXT_FAR of its best neighbour
 * 1/2 events away, plus SEGMENT_SHARE of the best candidate of its sitting (the same session on the
 * same day, at most SITTING_WINDOW seqs away: session-then-turn ranking; every candidate is placed,
 * and counts in its own sitting), plus DATE_SHARE of the best candidate's score when its day
 * is in the query's date window; the whole × (1 + ANSWER_TYPE_SHARE) when the event's text holds an
 * expression of the kind of answer the question asks for (answerType.ts), and × (1 + SELF_SHARE)
 * when it is a user_message and the query asks about what the user said (selfReference.ts). OR-only matches and
 * neighbours are `broadened`.
 */
function withContext(db: SearchDatabase, matched: Map<number, { score: number; precise: boolean }>, plan: Plan, window: DateWindow | undefined, lifts: Lifts = {}, terms: readonly QueryTerm[] = []): Ranked[] {
  if (matched.size === 0) return [];
  // Each event's stored text is read once, for whichever lifts below need it.
  const texts = new Map<number, string>();
  const textsOf = (seqs: readonly number[]) => {
    eachStoredText(db, seqs.filter((s) => !texts.has(s)), (seq, text) => texts.set(seq, text));
    return texts;
  };
  if (terms.length > 1 && PROXIMITY_SHARE > 0) {
    // Term proximity (proximity.ts): a candidate whose adjacent query words stand together is
    // lifted before its neighbours and its sitting read its score.
    const tp = termPrefixes(terms);
    const candidates = [...matched.keys()];
    textsOf(candidates);
    for (const seq of candidates) {
      const text = texts.get(seq);
      const share = text === undefined ? 0 : nearPairShare(text, tp);
      if (share > 0) {
        const m = matched.get(seq)!;
        matched.set(seq, { score: m.score * (1 + PROXIMITY_SHARE * share), precise: m.precise });
      }
    }
  }
  // Only the best CONTEXT_OF candidates and their neighbours are looked up around: each
  // looked-up neighbour costs a row read, and deeper pages follow plain bm25 order.
  const best = [...matched.entries()]
    .sort((a, b) => (a[1].precise !== b[1].precise ? (a[1].precise ? -1 : 1) : b[1].score - a[1].score || b[0] - a[0]))
    .slice(0, CONTEXT_OF)
    .map((e) => e[0]);
  const around = new Set<number>(matched.keys());
  for (const seq of best) {
    for (let d = -2; d <= 2; d++) {
      const x = seq + d;
      if (x < 1 || (plan.lo !== null && x < plan.lo) || (plan.hi !== null && x > plan.hi)) continue;
      around.add(x);
    }
  }
  const seqs = [...around].sort((a, b) => a - b);
  const place = contextPlaces(db, seqs, plan);
  // The placed candidates of a known day, by seq: each event's sitting is read from them.
  const dated: { seq: number; score: number; segment: number }[] = [];
  let top = 0;
  for (const [seq, m] of matched) {
    const p = place.get(seq);
    if (!p) continue;
    if (p.segment >= 0) dated.push({ seq, score: m.score, segment: p.segment });
    if (m.score > top) top = m.score;
  }
  dated.sort((a, b) => a.seq - b.seq);
  let from = 0; // `seqs` ascend, so the window's start only moves on
  const bestOfSitting = (seq: number, segment: number): number => {
    while (from < dated.length && dated[from].seq < seq - SITTING_WINDOW) from++;
    let best = 0;
    for (let i = from; i < dated.length && dated[i].seq <= seq + SITTING_WINDOW; i++) {
      if (dated[i].segment === segment && dated[i].score > best) best = dated[i].score;
    }
    return best;
  };
  // A neighbour counts in the same session on the same day (a day without ts: the same session).
  const sameSitting = (p: Place, q: Place | undefined) => q !== undefined && q.session === p.session && q.day === p.day;
  const scoreAt = (x: number, p: Place): number => {
    const m = matched.get(x);
    return m !== undefined && sameSitting(p, place.get(x)) ? m.score : 0;
  };
  const near = (seq: number, d: number, p: Place): number => Math.max(scoreAt(seq - d, p), scoreAt(seq + d, p));
  const out: Ranked[] = [];
  for (const seq of seqs) {
    const p = place.get(seq);
    if (p === undefined) continue; // filtered out
    const own = matched.get(seq);
    let score = (own ? own.score : 0) + CONTEXT_NEAR * near(seq, 1, p) + CONTEXT_FAR * near(seq, 2, p);
    score += SEGMENT_SHARE * (p.segment >= 0 ? bestOfSitting(seq, p.segment) : 0);
    if (window && p.day >= window.from && p.day < window.to) score += DATE_SHARE * top;
    if (score <= 0) continue;
    const precise = own !== undefined && own.precise;
    out.push({ seq, score, broadened: !precise, match: precise ? 'every' : own ? 'some' : 'context' });
  }
  const answer = lifts.answer;
  if (answer !== undefined && ANSWER_TYPE_SHARE > 0) {
    // Answer-type matching: of the events ranked here, those holding an expression of the kind
    // the question asks for (a time for "when", a number for "how many") score × (1 + share).
    const typed = eventsHolding(textsOf(out.map((r) => r.seq)), answer);
    for (const r of out) if (typed.has(r.seq)) r.score *= 1 + ANSWER_TYPE_SHARE;
  }
  if (lifts.aboutUser && SELF_SHARE > 0) {
    // A question about what the user said ("what did I name my cat"): the user's own messages.
    const own = seqsPassingFilters(db, out.map((r) => r.seq), { kind: 'user_message' });
    for (const r of out) if (own.has(r.seq)) r.score *= 1 + SELF_SHARE;
  }
  out.sort(byScore);
  return out;
}

/** Of the events whose stored text is given, those holding an expression of the kind `answer` (answerType.ts). */
function eventsHolding(texts: ReadonlyMap<number, string>, answer: AnswerType): Set<number> {
  const out = new Set<number>();
  for (const [seq, text] of texts) if (holdsAnswerType(text, answer)) out.add(seq);
  return out;
}

/** Calls `visit` with the stored text (the content, or a payload's preview) of each of `seqs` that exists, 500 rows a query. */
function eachStoredText(db: SearchDatabase, seqs: readonly number[], visit: (seq: number, text: string) => void): void {
  for (let i = 0; i < seqs.length; i += 500) {
    const chunk = seqs.slice(i, i + 500);
    for (const r of cached(db, `SELECT seq, content FROM events WHERE seq IN (${chunk.map(() => '?').join(', ')})`).all(...chunk)) {
      visit(Number(r.seq), String(r.content ?? ''));
    }
  }
}

/** What the query's form lifts among the ranked events: answer types, and the user's messages. */
type Lifts = Pick<ParsedQuery, 'answer' | 'aboutUser'>;

/** Best first; ties newest seq first. */
const byScore = (a: Ranked, b: Ranked) => b.score - a.score || b.seq - a.seq;

/**
 * FROM and WHERE of one FTS5 expression under the plan's filters, with its parameters: the one
 * statement shape that ranks (`rankedSeqs`) and counts (`countMatches`). FTS5 is always the outer
 * loop (CROSS JOIN).
 */
function matchClause(match: string, plan: Plan): { sql: string; params: unknown[] } {
  const conds = ['events_fts MATCH ?'];
  const params: unknown[] = [match];
  if (plan.lo !== null) {
    conds.push('f.rowid >= ?');
    params.push(plan.lo);
  }
  if (plan.hi !== null) {
    conds.push('f.rowid <= ?');
    params.push(plan.hi);
  }
  if (plan.where.length === 0) return { sql: `FROM events_fts f WHERE ${conds.join(' AND ')}`, params };
  if (plan.indexOnly) {
    // Every match is checked before ranking. Kind and session are read from their (kind, seq) and
    // (session, seq) indexes, a few dense pages, instead of from each matching event's row, which
    // lies on its own page among the contents (fewer pages read; bench/search.bench.mjs, figures in
    // docs/PERFORMANCE.md).
    if (plan.kinds) {
      conds.push(`EXISTS (SELECT 1 FROM events k INDEXED BY events_kind_seq WHERE k.kind IN (${plan.kinds.map(() => '?').join(', ')}) AND k.seq = f.rowid)`);
      params.push(...plan.kinds);
    }
    if (plan.session !== undefined) {
      conds.push('EXISTS (SELECT 1 FROM events s INDEXED BY events_session_seq WHERE s.session = ? AND s.seq = f.rowid)');
      params.push(plan.session);
    }
    return { sql: `FROM events_fts f WHERE ${conds.join(' AND ')}`, params };
  }
  return {
    sql: `FROM events_fts f CROSS JOIN events e ON e.seq = f.rowid WHERE ${conds.join(' AND ')} AND ${plan.where.join(' AND ')}`,
    params: [...params, ...plan.params],
  };
}

/** Ranked seqs for one FTS5 expression, filtered. */
function rankedSeqs(db: SearchDatabase, match: string, plan: Plan, limit: number): { seq: number; r: number }[] {
  const c = matchClause(match, plan);
  return cached(db, `SELECT f.rowid AS seq, ${RANK} AS r ${c.sql} ORDER BY r, f.rowid DESC LIMIT ?`).all(...c.params, limit);
}

/** The "almost nothing" rule: the OR of the terms adds candidates (step 3 above). */
function broadens(termCount: number, preciseMatches: number, k: number): boolean {
  return termCount > 1 && preciseMatches < Math.min(k, BROADEN_BELOW);
}

/** The distinct stems that mark a match in the snippets of these terms. */
function snippetKeysOf(terms: readonly QueryTerm[]): string[] {
  return [...new Set(terms.flatMap((t) => t.keys))];
}

/**
 * The terms a search of `query` used: `terms` are its result's `terms` (after stop words and
 * pruning), read back from the query so that later work matches exactly what the search matched.
 */
function termsUsed(query: string, terms: readonly string[]): QueryTerm[] {
  const used = new Set(terms);
  return parseQuery(query).terms.filter((t) => used.has(t.text));
}

/**
 * How many events a search matches in all, not just the page it ranked: counted, not ranked, so
 * it costs a fraction of a search. `result` is a search of the same query and filters (its terms
 * are what it used after pruning). The events counted are those that match every term or — when
 * the search broadens, as it does when fewer than min(k, BROADEN_BELOW) match them all — any term.
 * Context hits the search adds next to matches are not counted: a long list ends with the last match.
 */
export function countMatches(db: SearchDatabase, query: string, opts: SearchOptions, result: Pick<SearchResult, 'terms'>): number {
  const terms = termsUsed(query, result.terms);
  if (!terms.length) return 0;
  const plan = planFilters(db, opts);
  if (plan.empty) return 0;
  const count = (match: string) => {
    const c = matchClause(match, plan);
    return Number(cached(db, `SELECT count(*) AS n ${c.sql}`).get(...c.params).n);
  };
  const all = count(terms.map((t) => t.fts).join(' AND '));
  return broadens(terms.length, all, clampInt(opts.k, DEFAULT_K, 1, MAX_K)) ? count(terms.map((t) => t.fts).join(' OR ')) : all;
}

/**
 * Snippets of the given events for a search of `query` (matched words in « »), cut from the stored
 * text (the full content, or a payload's stored preview) exactly as the search cuts them; `terms`
 * are the terms the search used (its result's `terms`). Keyed by seq; unknown seqs are absent.
 */
export function snippetsFor(db: SearchDatabase, seqs: readonly number[], query: string, terms: readonly string[]): Map<number, string> {
  const out = new Map<number, string>();
  if (!seqs.length) return out;
  const keys = snippetKeysOf(termsUsed(query, terms));
  eachStoredText(db, seqs, (seq, text) => out.set(seq, makeSnippet(text, keys)));
  return out;
}

/**
 * Of `seqs`, the events a search with these filters may list (the hook of rankings made outside
 * this module, hybrid.ts: the same filters, planned once, here).
 */
export function seqsPassingFilters(db: SearchDatabase, seqs: readonly number[], opts: SearchOptions): Set<number> {
  const out = new Set<number>();
  const plan = planFilters(db, opts);
  if (plan.empty || seqs.length === 0) return out;
  const where = [...plan.where];
  const params = [...plan.params];
  if (plan.lo !== null) (where.push('e.seq >= ?'), params.push(plan.lo));
  if (plan.hi !== null) (where.push('e.seq <= ?'), params.push(plan.hi));
  const filter = where.length ? ` AND ${where.join(' AND ')}` : '';
  for (let i = 0; i < seqs.length; i += 500) {
    const chunk = seqs.slice(i, i + 500);
    const sql = `SELECT e.seq AS seq FROM events e WHERE e.seq IN (${chunk.map(() => '?').join(', ')})${filter}`;
    for (const r of cached(db, sql).all(...chunk, ...params)) out.add(Number(r.seq));
  }
  return out;
}

/** A search the database could not answer: a message (with a way out when the index is damaged), no throw. */
function failed(result: SearchResult, err: unknown): SearchResult {
  result.message = `search failed: ${err instanceof Error ? err.message : String(err)}`;
  if (isCorruptionError(err)) result.message += ` (${DAMAGED_INDEX_HINT})`;
  return result;
}

/** Why a query has no terms: said plainly (a query of emoji is not "no words" to its writer). */
export function nothingToSearch(query: string): string {
  return /\S/u.test(query)
    ? 'nothing to search: the query has no letters or digits (emoji, symbols and punctuation are not indexed)'
    : 'nothing to search: the query is empty';
}

export function searchEvents(db: SearchDatabase, query: string, opts: SearchOptions = {}): SearchResult {
  const k = clampInt(opts.k, DEFAULT_K, 1, MAX_K);
  const offset = clampInt(opts.offset, 0, 0, MAX_OFFSET);
  const parsed = parseQuery(query);
  const pruned = [...parsed.stopped];
  if (parsed.terms.length === 0) {
    return { hits: [], broadened: false, terms: [], pruned, message: nothingToSearch(typeof query === 'string' ? query : String(query ?? '')) };
  }

  const plan = planFilters(db, opts);
  // Prune words that occur in more than half of the events searched (they select nothing there).
  let terms: QueryTerm[] = parsed.terms;
  let ignored: NonNullable<SearchResult['ignored']> = [];
  let failure: unknown;
  if (terms.length > 1 && !plan.empty) {
    try {
      const scope = scopeStats(db, plan);
      if (scope.total > 0) {
        const common = terms.map((t) => t.type === 'word' && scope.isCommon(stemKey(t.text), t.fts));
        const kept = terms.filter((_, i) => !common[i]);
        if (kept.length > 0 && kept.length < terms.length) {
          ignored = terms.filter((_, i) => common[i]).map((t) => ({ word: t.text, events: scope.eventsWith(stemKey(t.text), t.fts), of: scope.total }));
          terms = kept;
        }
      }
    } catch (err) {
      failure = err; // the index could not be read: reported below like a failed query
    }
  }
  const result: SearchResult = { hits: [], broadened: false, terms: terms.map((t) => t.text), pruned };
  if (parsed.message) result.message = parsed.message;
  if (failure !== undefined) return failed(result, failure);
  if (plan.empty) return finish(result, ignored);

  let page: Ranked[];
  try {
    let ranked = rankPage(db, terms, plan, k, offset, parsed.window, parsed);
    if (ranked.matches === 0 && ignored.length > 0) {
      // The words kept match nothing: the common words were not useless after all ("pool size"
      // where no event says "size"). Search every word instead of answering "no hits".
      terms = parsed.terms;
      ignored = [];
      result.terms = terms.map((t) => t.text);
      ranked = rankPage(db, terms, plan, k, offset, parsed.window, parsed);
    }
    page = ranked.page;
  } catch (err) {
    // Every term is quoted, so this is not a syntax error in user text: report, do not throw.
    return failed(finish(result, ignored), err);
  }
  finish(result, ignored);
  result.broadened = page.some((r) => r.broadened);
  if (page.length === 0) return result;

  const rows = new Map<number, any>();
  const cols = opts.snippet === false ? 'seq, session, kind, role, name, ts, headline' : 'seq, session, kind, role, name, ts, headline, content';
  for (const row of cached(db, `SELECT ${cols} FROM events WHERE seq IN (${page.map(() => '?').join(', ')})`).all(...page.map((r) => r.seq))) {
    rows.set(Number(row.seq), row);
  }
  const keys = snippetKeysOf(terms);
  for (const r of page) {
    const row = rows.get(Number(r.seq));
    if (!row) continue; // indexed but not in events: only after a torn rebuild; skip rather than invent
    result.hits.push(hitFromRow(row, r.score, opts.snippet === false ? '' : makeSnippet(row.content ?? '', keys), r.broadened, r.match));
  }
  return result;
}

/** A hit from its event's row (seq, session, kind, role, name, ts, headline), as every ranking lists it. */
export function hitFromRow(row: any, score: number, snippet: string, broadened: boolean, match: SearchHit['match']): SearchHit {
  return {
    seq: Number(row.seq),
    score,
    kind: row.kind,
    role: row.role,
    session: row.session,
    ts: row.ts,
    name: row.name ?? null,
    headline: row.headline ?? null,
    snippet,
    broadened,
    match,
  };
}

/** The pruned common words go into `pruned` (with the stop words) and, with their counts, `ignored`. */
function finish(result: SearchResult, ignored: NonNullable<SearchResult['ignored']>): SearchResult {
  if (ignored.length) {
    result.pruned.push(...ignored.map((w) => w.word));
    result.ignored = ignored;
  }
  return result;
}

/**
 * One page of the fixed ranked list of `terms` (steps 2-5 above), and how many events the first
 * candidate queries matched (0: nothing matches any term).
 */
function rankPage(db: SearchDatabase, terms: QueryTerm[], plan: Plan, k: number, offset: number, window: DateWindow | undefined, lifts: Lifts = {}): { page: Ranked[]; matches: number } {
  const andQuery = terms.map((t) => t.fts).join(' AND ');
  const orQuery = terms.map((t) => t.fts).join(' OR ');
  const want = offset + k;
  // One FTS5 scan per expression: each ranks every match whatever its LIMIT, so the rows a page
  // can need beyond the candidates (`want` past a head of at most every candidate of both queries
  // plus CONTEXT_OF neighbourhoods of 4) are fetched with them; the candidates are its first
  // MIN_CANDIDATES (the order is total, so the same rows a smaller LIMIT returns).
  const reach = want + 2 * MIN_CANDIDATES + 4 * CONTEXT_OF;
  // A query that returned fewer rows than it asked for returned every match: asking again with
  // a larger limit (below) would only repeat the same FTS5 scan.
  const ranks = (match: string, all: { seq: number; r: number }[], limit: number) =>
    all.length < reach || limit <= all.length ? all.slice(0, limit) : rankedSeqs(db, match, plan, limit);
  const matched = new Map<number, { score: number; precise: boolean }>();
  const andAll = rankedSeqs(db, andQuery, plan, reach);
  const andFirst = andAll.slice(0, MIN_CANDIDATES);
  for (const r of andFirst) matched.set(r.seq, { score: -r.r, precise: true });
  const broaden = broadens(terms.length, matched.size, k);
  let orAll: { seq: number; r: number }[] = [];
  if (broaden) {
    orAll = rankedSeqs(db, orQuery, plan, reach);
    for (const r of orAll.slice(0, MIN_CANDIDATES)) {
      if (!matched.has(r.seq)) matched.set(r.seq, { score: -r.r, precise: false });
    }
  }
  const head = withContext(db, matched, plan, window, lifts, terms);
  // One fixed list by score, whatever the page: the head (context-ranked), the other candidates,
  // and, when the page reaches past them, the remaining matches in bm25 order (OR-only ones too
  // when the query broadens). Every match not fetched scores at most the last one fetched, and
  // at least `want` are fetched beyond the head, so the first `want` of the list are final.
  const pool = new Map<number, Ranked>(head.map((r) => [r.seq, r]));
  for (const [seq, m] of matched) {
    if (!pool.has(seq)) pool.set(seq, { seq, score: m.score, broadened: !m.precise, match: m.precise ? 'every' : 'some' });
  }
  const all = broaden ? orAll : andAll;
  if (all.length >= MIN_CANDIDATES && want > pool.size - head.length) {
    const precise = new Set(andFirst.map((r) => r.seq));
    for (const r of ranks(broaden ? orQuery : andQuery, all, want + head.length)) {
      const listed = pool.get(r.seq);
      if (listed) {
        // A neighbour listed for its context that the deeper fetch shows to be a match: say so
        // (its place stays where its context put it).
        if (listed.match === 'context') {
          const every = !broaden || precise.has(r.seq);
          listed.match = every ? 'every' : 'some';
          listed.broadened = !every;
        }
        continue;
      }
      const every = !broaden || precise.has(r.seq);
      pool.set(r.seq, { seq: r.seq, score: -r.r, broadened: !every, match: every ? 'every' : 'some' });
    }
  }
  const ranked = [...pool.values()].sort(byScore);
  return { page: ranked.slice(offset, offset + k), matches: matched.size };
}
