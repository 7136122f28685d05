/**
 * Optional hybrid search: the lexical ranking (searchEvents, BM25 with its context step) fused with
 * a ranking by embedding similarity (vectorStore.ts) by reciprocal rank fusion: each event scores
 * Σ 1 / (RRF_K + rank) over the two lists, rank counted from 1 in the best FUSION_DEPTH of each.
 * RRF needs no calibration between bm25 scores and cosine similarities, which live on unrelated
 * scales, and has no constant tuned here (60 is the value of its authors, Cormack et al., 2009).
 *
 * Off unless a host passes an embeddings client. When the query cannot be embedded (endpoint down,
 * slow, misconfigured) or no event has a vector yet, the answer is the lexical search's, unchanged.
 */
import type { SearchHit, SearchOptions, SearchResult } from '../types';
import { errorMessage } from '../errors';
import type { EmbeddingClient } from './embeddingClient';
import { DEFAULT_K, MAX_K, MAX_OFFSET } from './constants';
import { hitFromRow, searchEvents, seqsPassingFilters, snippetsFor, type SearchDatabase } from './search';
import { hasVectorTable, nearestSeqs } from './vectorStore';

/** RRF's constant: how much the top ranks count more than the next ones (the published default). */
export const RRF_K = 60;
/** Candidates taken from each ranking before fusing; a page deeper than this follows the lexical list. */
export const FUSION_DEPTH = 100;

/** Seqs ranked by Σ 1/(k + rank) over the lists (rank from 1); ties newest seq first. */
export function reciprocalRankFusion(lists: readonly (readonly number[])[], k = RRF_K): { seq: number; score: number }[] {
  const score = new Map<number, number>();
  for (const list of lists) list.forEach((seq, i) => score.set(seq, (score.get(seq) ?? 0) + 1 / (k + i + 1)));
  return [...score].map(([seq, s]) => ({ seq, score: s })).sort((a, b) => b.score - a.score || b.seq - a.seq);
}

/**
 * The fused search for a query whose vector is known (synchronous, like searchEvents). Returns the
 * lexical result itself when there is nothing to fuse (no vectors of this model that pass the
 * filters, or a page beyond FUSION_DEPTH).
 */
export function fusedSearch(db: SearchDatabase, query: string, opts: SearchOptions, model: string, queryVector: Float32Array): SearchResult {
  const k = clampInt(opts.k, DEFAULT_K, 1, MAX_K);
  const offset = clampInt(opts.offset, 0, 0, MAX_OFFSET);
  if (offset + k > FUSION_DEPTH || !hasVectorTable(db)) return searchEvents(db, query, opts);
  const lexical = searchEvents(db, query, { ...opts, k: FUSION_DEPTH, offset: 0, snippet: false });
  if (lexical.message?.startsWith('search failed')) return searchEvents(db, query, opts);
  const similar = nearestSeqs(db, model, queryVector, FUSION_DEPTH, (seqs) => seqsPassingFilters(db, seqs, opts));
  if (similar.length === 0) return searchEvents(db, query, opts);
  const fused = reciprocalRankFusion([lexical.hits.map((h) => h.seq), similar.map((s) => s.seq)]).slice(offset, offset + k);
  const lexicalHit = new Map(lexical.hits.map((h) => [h.seq, h]));
  const seqs = fused.map((f) => f.seq);
  const rows = new Map<number, any>();
  for (const r of db.prepare(`SELECT seq, session, kind, role, name, ts, headline FROM events WHERE seq IN (${seqs.map(() => '?').join(', ')})`).all(...seqs)) {
    rows.set(Number(r.seq), r);
  }
  const snippets = opts.snippet === false ? new Map<number, string>() : snippetsFor(db, seqs, query, lexical.terms);
  const hits: SearchHit[] = [];
  for (const f of fused) {
    const row = rows.get(f.seq);
    if (!row) continue;
    const lex = lexicalHit.get(f.seq);
    // Without a lexical hit it is listed for its meaning alone: it matches none of the words (or not enough to be ranked).
    hits.push(hitFromRow(row, f.score, snippets.get(f.seq) ?? '', lex ? lex.broadened : true, lex?.match ?? 'similar'));
  }
  const result: SearchResult = { ...lexical, hits, broadened: hits.some((h) => h.broadened), hybrid: { model, similarOnly: hits.filter((h) => h.match === 'similar').length } };
  if (lexical.message && /^nothing to search/.test(lexical.message)) delete result.message; // the meaning was searched
  return result;
}

export interface HybridSearchOptions {
  /** How long a query's embedding may take before the search goes on without it, ms (default 2,000). */
  queryTimeoutMs?: number;
  /** After a failure, the endpoint is not asked again for this long, ms (default 60 s): queries do not each wait for a dead endpoint. */
  retryAfterMs?: number;
  /** Told once when the endpoint stops answering (and once when it answers again); never per query. */
  onNote?: (message: string) => void;
  now?: () => number;
}

const QUERY_CACHE = 64;

/**
 * Hybrid search over one embeddings client: embeds the query (with a deadline), then fuses. Any
 * failure to embed falls back to the lexical search, said once through `onNote`.
 */
export class HybridSearch {
  private downSince: number | undefined;
  private retryAt = 0;
  private readonly queries = new Map<string, Float32Array>();
  private readonly queryTimeoutMs: number;
  private readonly retryAfterMs: number;
  private readonly now: () => number;

  constructor(
    readonly client: Pick<EmbeddingClient, 'embed' | 'model' | 'url'>,
    private readonly opts: HybridSearchOptions = {},
  ) {
    this.queryTimeoutMs = opts.queryTimeoutMs ?? 2_000;
    this.retryAfterMs = opts.retryAfterMs ?? 60_000;
    this.now = opts.now ?? Date.now;
  }

  get model(): string {
    return this.client.model;
  }

  /** True while the endpoint is taken to be down (searches are lexical only). */
  get fallingBack(): boolean {
    return this.downSince !== undefined;
  }

  async search(db: SearchDatabase, query: string, opts: SearchOptions = {}): Promise<SearchResult> {
    const vector = await this.queryVector(query);
    return vector ? fusedSearch(db, query, opts, this.client.model, vector) : searchEvents(db, query, opts);
  }

  /** The query's vector, or undefined when the endpoint cannot give it now (said once). */
  async queryVector(query: string): Promise<Float32Array | undefined> {
    const text = typeof query === 'string' ? query.trim() : '';
    if (!text) return undefined;
    const known = this.queries.get(text);
    if (known) return known;
    if (this.downSince !== undefined && this.now() < this.retryAt) return undefined;
    try {
      const [v] = await this.client.embed([text], { timeoutMs: this.queryTimeoutMs });
      if (this.downSince !== undefined) this.opts.onNote?.(`hybrid search: the embeddings endpoint ${this.client.url} answers again; searches fuse BM25 with ${this.client.model} vectors`);
      this.downSince = undefined;
      if (this.queries.size >= QUERY_CACHE) this.queries.delete(this.queries.keys().next().value as string);
      this.queries.set(text, v);
      return v;
    } catch (e) {
      if (this.downSince === undefined) {
        this.downSince = this.now();
        this.opts.onNote?.(`hybrid search: ${errorMessage(e)}; searching with BM25 only until it answers (asked again every ${Math.round(this.retryAfterMs / 1000)} s)`);
      }
      this.retryAt = this.now() + this.retryAfterMs;
      return undefined;
    }
  }
}

function clampInt(v: unknown, dflt: number, min: number, max: number): number {
  const n = typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : dflt;
  return Math.min(max, Math.max(min, n));
}
