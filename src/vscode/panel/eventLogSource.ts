/**
 * The panel's data source over the workspace `EventLog`. Content, search and sessions come from the
 * log itself; the metadata queries (timeline, index, facets) select only small columns so they never
 * load a session's text or payloads.
 */
import { openDatabase, type Database, type Statement } from '../../core/db';
import { BROADEN_BELOW, makeSnippet, parseQuery } from '../../core/search';
import type { LogEvent, LogStats, SearchOptions, SearchResult, SessionInfo } from '../../core/types';
import type { OutlineRow, PanelDataSource, StepCount } from './panelDataSource';

/** The part of `EventLog` the panel uses (EventLog satisfies it structurally). */
export interface PanelLog {
  search(query: string, opts?: SearchOptions): SearchResult;
  get(seq: number): LogEvent | undefined;
  range(from: number, to: number): LogEvent[];
  sessions(): SessionInfo[];
  maxSeq(): number;
  stats(): LogStats;
  /** The log's own connection, when it exposes one (EventLog does); else we open the file read-only. */
  readonly database?: Database;
}

function parseMeta(text: unknown): Record<string, unknown> {
  if (typeof text !== 'string' || !text) return {};
  try {
    const v = JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

export class EventLogPanelSource implements PanelDataSource {
  private readonly statements = new Map<string, Statement>();

  constructor(
    private readonly log: PanelLog,
    private readonly meta: Database,
    private readonly ownsConnection: boolean,
  ) {}

  /** Uses the log's connection when it has one, else opens the log's file read-only. */
  static open(log: PanelLog): EventLogPanelSource {
    if (log.database) return new EventLogPanelSource(log, log.database, false);
    return new EventLogPanelSource(log, openDatabase(log.stats().path, { readonly: true }), true);
  }

  private stmt(sql: string): Statement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.meta.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  search(query: string, opts?: SearchOptions): SearchResult {
    return this.log.search(query, opts);
  }
  countMatches(query: string, opts: SearchOptions, result: SearchResult): number {
    // The same terms the search used (after stop words and pruning). The list counted is the events
    // that match: all terms, or — when fewer than BROADEN_BELOW match them all — any term, as the
    // search then broadens. (Context hits the search adds next to matches are not counted.)
    const used = new Set(result.terms);
    const terms = parseQuery(query).terms.filter((t) => used.has(t.text));
    if (!terms.length) return 0;
    const all = this.countMatch(terms.map((t) => t.fts).join(' AND '), opts);
    return all < BROADEN_BELOW && terms.length > 1 ? this.countMatch(terms.map((t) => t.fts).join(' OR '), opts) : all;
  }

  snippets(seqs: number[], query: string, terms: string[]): Map<number, string> {
    const out = new Map<number, string>();
    if (!seqs.length) return out;
    const used = new Set(terms);
    const keys = [...new Set(parseQuery(query).terms.filter((t) => used.has(t.text)).flatMap((t) => t.keys))];
    // `content` is the full text, or the stored preview of a payload (what search snippets too).
    const rows = this.meta.prepare(`SELECT seq, content FROM events WHERE seq IN (${seqs.map(() => '?').join(',')})`).all(...seqs);
    for (const r of rows) out.set(Number(r.seq), makeSnippet(String(r.content ?? ''), keys));
    return out;
  }

  private countMatch(match: string, opts: SearchOptions): number {
    const conds = ['events_fts MATCH ?'];
    const params: unknown[] = [match];
    if (opts.seqFrom !== undefined) {
      conds.push('f.rowid >= ?');
      params.push(opts.seqFrom);
    }
    if (opts.seqTo !== undefined) {
      conds.push('f.rowid <= ?');
      params.push(opts.seqTo);
    }
    // Filters on the event row, in the order their parameters are pushed.
    const join: string[] = [];
    const list = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
    const inList = (column: string, values: string[]) => {
      if (!values.length) return;
      join.push(`e.${column} IN (${values.map(() => '?').join(',')})`);
      params.push(...values);
    };
    const equals = (sql: string, value: string | undefined) => {
      if (value === undefined) return;
      join.push(sql);
      params.push(value);
    };
    inList('kind', list(opts.kind));
    inList('role', list(opts.role));
    equals('e.session = ?', opts.session);
    equals('e.name = ?', opts.name);
    equals('e.ts >= ?', opts.tsFrom);
    equals('e.ts <= ?', opts.tsTo);
    const sql = join.length
      ? `SELECT count(*) AS n FROM events_fts f CROSS JOIN events e ON e.seq = f.rowid WHERE ${conds.join(' AND ')} AND ${join.join(' AND ')}`
      : `SELECT count(*) AS n FROM events_fts f WHERE ${conds.join(' AND ')}`;
    return Number(this.stmt(sql).get(...params).n);
  }

  get(seq: number): LogEvent | undefined {
    return this.log.get(seq);
  }
  range(from: number, to: number): LogEvent[] {
    return this.log.range(from, to);
  }
  sessions(): SessionInfo[] {
    return this.log.sessions();
  }
  maxSeq(): number {
    return this.log.maxSeq();
  }

  outline(session: string, kinds: string[]): OutlineRow[] {
    if (!kinds.length) return [];
    const marks = kinds.map(() => '?').join(',');
    const rows = this.stmt(
      `SELECT seq, kind, step, ts, meta FROM events WHERE session = ? AND kind IN (${marks}) ORDER BY seq`,
    ).all(session, ...kinds);
    return rows.map((r) => ({ seq: Number(r.seq), kind: String(r.kind), step: r.step === null ? null : Number(r.step), ts: String(r.ts), meta: parseMeta(r.meta) }));
  }

  stepCounts(session: string): StepCount[] {
    const rows = this.stmt(
      `SELECT step, MIN(seq) AS firstSeq, COUNT(*) AS n FROM events WHERE session = ? AND step IS NOT NULL GROUP BY step ORDER BY step`,
    ).all(session);
    return rows.map((r) => ({ step: Number(r.step), firstSeq: Number(r.firstSeq), events: Number(r.n) }));
  }

  facets(): { kinds: string[]; roles: string[] } {
    // DISTINCT over the (kind, seq) index is a skip-scan; roles have no index but few values.
    const kinds = this.stmt(`SELECT DISTINCT kind FROM events ORDER BY kind`).all().map((r) => String(r.kind));
    const roles = this.stmt(`SELECT DISTINCT role FROM events ORDER BY role`).all().map((r) => String(r.role));
    return { kinds, roles };
  }

  close(): void {
    this.statements.clear();
    if (this.ownsConnection) this.meta.close();
  }
}
