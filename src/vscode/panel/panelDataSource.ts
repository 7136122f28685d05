/**
 * What the history panel reads from the log. A narrow, read-only slice of `EventLog` plus two
 * metadata queries (no content) so the timeline and the index of a 10M-token session never load
 * the session's text. No `vscode` here: the handler and this interface are tested in plain Node.
 */
import type { ReadEvent } from '../../core/log/eventLog';
import type { SearchOptions, SearchResult, SessionInfo } from '../../core/types';

/** An event without its content: enough for the timeline and the eviction index. */
export interface OutlineRow {
  seq: number;
  kind: string;
  step: number | null;
  ts: string;
  meta: Record<string, unknown>;
}

export interface StepCount {
  step: number;
  firstSeq: number;
  events: number;
}

export interface PanelDataSource {
  search(query: string, opts?: SearchOptions): SearchResult;
  /**
   * How many events the query matches in all (not just the page `result` holds): counted, not
   * ranked, so it costs a fraction of a search. `result` is a search of the same query and filters
   * (it says which terms were used after pruning). Related hits the search adds next to matches
   * are not counted: a long list ends with the last match.
   */
  countMatches(query: string, opts: SearchOptions, result: SearchResult): number;
  /**
   * Snippets of the given events for a query (matched terms in « »), cut from the stored text the
   * way search cuts them; `terms` are the terms the search used. Keyed by seq.
   */
  snippets(seqs: number[], query: string, terms: string[]): Map<number, string>;
  /** An event whose payload file cannot be read comes as its preview, with `payloadError`. */
  get(seq: number): ReadEvent | undefined;
  /** Events with from ≤ seq ≤ to, full content (or marked previews, as `get`), in seq order. */
  range(from: number, to: number): ReadEvent[];
  sessions(): SessionInfo[];
  maxSeq(): number;
  /** Metadata of a session's events of the given kinds, in seq order. */
  outline(session: string, kinds: string[]): OutlineRow[];
  /** Events per step of a session (events with a null step are not counted). */
  stepCounts(session: string): StepCount[];
  /** Eviction events per session (sessions without any are absent). */
  evictionCounts(): Map<string, number>;
  /**
   * The source of each given event that was captured from another agent's transcript (its
   * meta.source); Scroll's own events are absent. Keyed by seq.
   */
  sources(seqs: number[]): Map<number, string>;
  /** Distinct kinds and roles in the log, for the filter dropdowns. */
  facets(): { kinds: string[]; roles: string[] };
}
