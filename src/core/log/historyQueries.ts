/**
 * Session-scoped reads of the event log that `EventLog`'s own API does not answer: a session's
 * eviction events, its seqs, the newest session. Functions of the log (any object with the log's
 * `database`, so `EventLog` and the agent loop's `AgentLog` both fit); the editor, the memory host
 * and the agent's rebuild use these instead of writing SQL against `log.database` themselves.
 */
import { parseMeta, type EvictionRow } from './eventMeta';
import type { SessionInfo } from '../types';

interface QueryStatement {
  all(...params: unknown[]): unknown[];
  get(...params: unknown[]): unknown;
}

/** What the queries need of a log: read access to its `events` table. */
export interface QueryableLog {
  readonly database: { prepare(sql: string): QueryStatement };
}

/** Prepared statements per database handle (a handle that is closed is never asked again). */
const statements = new WeakMap<object, Map<string, QueryStatement>>();

function stmt(log: QueryableLog, sql: string): QueryStatement {
  const db = log.database;
  let cache = statements.get(db);
  if (!cache) statements.set(db, (cache = new Map()));
  let s = cache.get(sql);
  if (!s) cache.set(sql, (s = db.prepare(sql)));
  return s;
}

const EVICTIONS = "SELECT seq, meta FROM events WHERE kind = 'eviction' ORDER BY seq";
const EVICTIONS_OF = "SELECT seq, meta FROM events WHERE kind = 'eviction' AND session = ? ORDER BY seq";
const LAST_EVICTION = "SELECT seq, meta FROM events WHERE kind = 'eviction' ORDER BY seq DESC LIMIT 1";
const LAST_EVICTION_OF = "SELECT seq, meta FROM events WHERE kind = 'eviction' AND session = ? ORDER BY seq DESC LIMIT 1";

function evictionRow(r: unknown): EvictionRow {
  const row = r as { seq: number; meta: unknown };
  return { seq: Number(row.seq), meta: parseMeta(row.meta) };
}

/** The eviction events of `session` (of the whole log when undefined), oldest first, meta parsed. */
export function evictions(log: QueryableLog, session?: string): EvictionRow[] {
  const rows = session === undefined ? stmt(log, EVICTIONS).all() : stmt(log, EVICTIONS_OF).all(session);
  return rows.map(evictionRow);
}

/** The newest eviction event of `session` (of the whole log when undefined). */
export function lastEviction(log: QueryableLog, session?: string): EvictionRow | undefined {
  const row = session === undefined ? stmt(log, LAST_EVICTION).get() : stmt(log, LAST_EVICTION_OF).get(session);
  return row ? evictionRow(row) : undefined;
}

/** Seqs of a session's events, optionally of some kinds, in order. */
export function sessionSeqs(log: QueryableLog, session: string, kinds?: readonly string[]): number[] {
  const where = kinds?.length ? ` AND kind IN (${kinds.map(() => '?').join(',')})` : '';
  return stmt(log, `SELECT seq FROM events WHERE session = ?${where} ORDER BY seq`)
    .all(session, ...(kinds ?? []))
    .map((r) => Number((r as { seq: number }).seq));
}

/** The session of the newest event in the log, when there is one. */
export function latestSession(log: QueryableLog): string | undefined {
  const row = stmt(log, 'SELECT session FROM events ORDER BY seq DESC LIMIT 1').get() as { session: unknown } | undefined;
  return row ? String(row.session) : undefined;
}

/** A session that has evicted from its working view: how often, and its newest eviction's seq. */
export interface EvictedSession {
  session: string;
  evictions: number;
  lastEvictionSeq: number;
}

/** The sessions with at least one eviction, the most recently evicting first. */
export function sessionsWithEvictions(log: QueryableLog): EvictedSession[] {
  return stmt(log, "SELECT session, COUNT(*) AS n, MAX(seq) AS last FROM events WHERE kind = 'eviction' GROUP BY session ORDER BY last DESC")
    .all()
    .map((r) => {
      const row = r as { session: unknown; n: unknown; last: unknown };
      return { session: String(row.session), evictions: Number(row.n), lastEvictionSeq: Number(row.last) };
    });
}

/**
 * Which agent wrote each of the given events when it was captured from another agent's transcript
 * (its meta.source: 'claude-code', 'codex', …); events Scroll wrote itself are absent. Keyed by seq.
 * Reads only the meta column, by primary key.
 */
export function sourcesOf(log: QueryableLog, seqs: readonly number[]): Map<number, string> {
  const out = new Map<number, string>();
  if (!seqs.length) return out;
  // One statement for any number of seqs: the list goes in as one JSON array.
  const rows = stmt(log, "SELECT seq, json_extract(meta, '$.source') AS source FROM events WHERE seq IN (SELECT value FROM json_each(?))").all(JSON.stringify(seqs));
  for (const r of rows) {
    const row = r as { seq: unknown; source: unknown };
    if (typeof row.source === 'string' && row.source) out.set(Number(row.seq), row.source);
  }
  return out;
}

/**
 * The captured sessions of the log and their sources (a session's events all carry its source; the
 * first one is read). Scroll's own sessions are absent. Walks the (session, seq) index once.
 */
export function sessionSources(log: QueryableLog): Map<string, string> {
  const rows = stmt(
    log,
    "SELECT e.session AS session, json_extract(e.meta, '$.source') AS source FROM events e JOIN (SELECT MIN(seq) AS seq FROM events GROUP BY session) f ON e.seq = f.seq",
  ).all();
  const out = new Map<string, string>();
  for (const r of rows) {
    const row = r as { session: unknown; source: unknown };
    if (typeof row.source === 'string' && row.source) out.set(String(row.session), row.source);
  }
  return out;
}

/**
 * A value derived from every event, kept per connection and extended by the events appended since
 * it was computed (`fold(value, from, to)` adds the events of seqs from+1..to): the log only grows.
 * A purge rewrites events in place (and says so with a `purge` event): then everything is read
 * again, as it is when the log holds fewer events than before (another file, or a rolled-back
 * append). Inside a transaction on this connection (rows that may still roll back) nothing read is
 * kept: a copy is extended instead.
 */
function keptPerConnection<T>(
  log: QueryableLog,
  cache: WeakMap<object, { upTo: number; value: T }>,
  inTransaction: boolean,
  fresh: () => T,
  copy: (value: T) => T,
  fold: (value: T, from: number, to: number) => void,
): T {
  const db = log.database;
  const max = Number((stmt(log, 'SELECT COALESCE(MAX(seq), 0) AS m FROM events').get() as { m: unknown }).m);
  let kept = cache.get(db);
  if (kept && (max < kept.upTo || (max > kept.upTo && stmt(log, "SELECT 1 FROM events WHERE kind = 'purge' AND seq > ? LIMIT 1").get(kept.upTo)))) kept = undefined;
  const base = kept ?? { upTo: 0, value: fresh() };
  if (max === base.upTo) return base.value;
  const into = inTransaction ? { upTo: base.upTo, value: copy(base.value) } : base;
  fold(into.value, into.upTo, max);
  into.upTo = max;
  if (!inTransaction) cache.set(db, into);
  return into.value;
}

/**
 * The seq range a kept value is extended by. Appended since: the rows themselves, by seq. The
 * first read on a connection covers the whole log: `+seq` keeps SQLite from walking the table by
 * seq, so it reads the covering index instead (schema version 5: no row, no content read), or
 * the table in a log opened read-only before its migration.
 */
function seqRange(from: number): string {
  return from === 0 ? '+seq > ? AND +seq <= ?' : 'seq > ? AND seq <= ?';
}

/** The sessions of the events in (from, to], grouped (bound: from, to). */
export function sessionsSql(from: number): string {
  return 'SELECT session, MIN(seq) AS firstSeq, MAX(seq) AS lastSeq, MIN(ts) AS firstTs, MAX(ts) AS lastTs, COUNT(*) AS events, SUM(tokens) AS tokens ' +
    `FROM events WHERE ${seqRange(from)} GROUP BY session ORDER BY MIN(seq)`;
}

/** The kinds and roles of the events in (from, to] (bound: from, to). */
export function facetsSql(from: number): string {
  return `SELECT DISTINCT kind, role FROM events WHERE ${seqRange(from)}`;
}

interface SessionSummaries {
  list: SessionInfo[];
  byName: Map<string, SessionInfo>;
}

const sessionCache = new WeakMap<object, { upTo: number; value: SessionSummaries }>();

/**
 * Every session with its first and last seq and time, event count and tokens, in order of first
 * appearance. Grouping the whole log reads its session index (`seqRange`), and the history panel
 * asks each time the log grows: kept per connection and extended by what was appended since
 * (`keptPerConnection`); an append can only extend a session or start one.
 */
export function sessionSummaries(log: QueryableLog, inTransaction: boolean): SessionInfo[] {
  const kept = keptPerConnection<SessionSummaries>(
    log,
    sessionCache,
    inTransaction,
    () => ({ list: [], byName: new Map() }),
    (v) => {
      const list = v.list.map((x) => ({ ...x }));
      return { list, byName: new Map(list.map((x) => [x.session, x])) };
    },
    (into, from, to) => {
      const rows = stmt(log, sessionsSql(from)).all(from, to) as SessionInfo[];
      for (const r of rows) {
        const tokens = Number(r.tokens ?? 0);
        const had = into.byName.get(r.session);
        if (!had) {
          const info = { session: r.session, firstSeq: Number(r.firstSeq), lastSeq: Number(r.lastSeq), firstTs: r.firstTs, lastTs: r.lastTs, events: Number(r.events), tokens };
          into.byName.set(r.session, info);
          into.list.push(info);
          continue;
        }
        had.lastSeq = Math.max(had.lastSeq, Number(r.lastSeq));
        if (r.firstTs < had.firstTs) had.firstTs = r.firstTs;
        if (r.lastTs > had.lastTs) had.lastTs = r.lastTs;
        had.events += Number(r.events);
        had.tokens += tokens;
      }
    },
  );
  return kept.list.map((x) => ({ ...x }));
}

const facetCache = new WeakMap<object, { upTo: number; value: { kinds: Set<string>; roles: Set<string> } }>();

/**
 * The kinds and roles the log holds, sorted (the history panel's filters). Listing them reads the
 * whole kind index (`seqRange`): kept per connection and extended by what was appended since
 * (`keptPerConnection`).
 */
export function eventFacets(log: QueryableLog, inTransaction: boolean): { kinds: string[]; roles: string[] } {
  const kept = keptPerConnection(
    log,
    facetCache,
    inTransaction,
    () => ({ kinds: new Set<string>(), roles: new Set<string>() }),
    (v) => ({ kinds: new Set(v.kinds), roles: new Set(v.roles) }),
    (into, from, to) => {
      for (const r of stmt(log, facetsSql(from)).all(from, to) as { kind: unknown; role: unknown }[]) {
        into.kinds.add(String(r.kind));
        into.roles.add(String(r.role));
      }
    },
  );
  const sorted = (set: Set<string>) => [...set].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { kinds: sorted(kept.kinds), roles: sorted(kept.roles) };
}
