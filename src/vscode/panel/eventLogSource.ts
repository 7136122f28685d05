/**
 * The panel's data source over the workspace `EventLog`. Content, search and sessions come from the
 * log itself, totals and snippets from src/core/search; the metadata queries (timeline, index,
 * facets) select only small columns so they never load a session's text or payloads.
 */
import { openDatabase, type Database, type Statement } from '../../core/db';
import { eventFacets, sourcesOf } from '../../core/log/historyQueries';
import { countMatches, snippetsFor } from '../../core/search';
import type { ReadEvent, ReadOptions } from '../../core/log/eventLog';
import type { LogStats, SearchOptions, SearchResult, SessionInfo } from '../../core/types';
import type { OutlineRow, PanelDataSource, StepCount } from './panelDataSource';

/** The part of `EventLog` the panel uses (EventLog satisfies it structurally). */
export interface PanelLog {
  search(query: string, opts?: SearchOptions): SearchResult;
  get(seq: number, opts?: ReadOptions): ReadEvent | undefined;
  range(from: number, to: number, opts?: ReadOptions): ReadEvent[];
  sessions(): SessionInfo[];
  maxSeq(): number;
  stats(): LogStats;
  /** The database file. */
  readonly path: string;
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
    return new EventLogPanelSource(log, openDatabase(log.path, { readonly: true }), true);
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
    return countMatches(this.meta, query, opts, result);
  }
  snippets(seqs: number[], query: string, terms: string[]): Map<number, string> {
    return snippetsFor(this.meta, seqs, query, terms);
  }

  // One unreadable payload file must not fail a page: such an event comes as its preview, marked.
  get(seq: number): ReadEvent | undefined {
    return this.log.get(seq, { keepPreview: true });
  }
  range(from: number, to: number): ReadEvent[] {
    return this.log.range(from, to, { keepPreview: true });
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

  evictionCounts(): Map<string, number> {
    // Walks the (kind, seq) index's eviction range only, however long the log.
    const rows = this.stmt(`SELECT session, COUNT(*) AS n FROM events WHERE kind = 'eviction' GROUP BY session`).all();
    return new Map(rows.map((r) => [String(r.session), Number(r.n)]));
  }

  sources(seqs: number[]): Map<number, string> {
    return sourcesOf({ database: this.meta }, seqs);
  }

  facets(): { kinds: string[]; roles: string[] } {
    return eventFacets({ database: this.meta }, this.meta.inTransaction);
  }

  close(): void {
    this.statements.clear();
    if (this.ownsConnection) this.meta.close();
  }
}
