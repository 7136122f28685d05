/**
 * Answers the panel's requests from a `PanelDataSource`. Pure Node (no `vscode`): the webview host
 * forwards messages here and posts the answers back; unit tests and the benchmark call it directly.
 * Everything it returns is paged or capped (see the protocol's constants).
 */
import type { ReadEvent } from '../../core/log/eventLog';
import { previewOnlyNote } from '../../core/log/previewOnly';
import type { SearchHit, SearchOptions, SearchResult } from '../../core/types';
import { forEditor } from '../maintenance/editorHint';
import {
  CONTENT_CAP,
  EVENT_PAGE_SIZE,
  HIT_CAP,
  PanelProtocolError,
  TIMELINE_MAX_POINTS,
  parseWebviewMessage,
  type EventPage,
  type Facets,
  type IndexTree,
  type OpenTarget,
  type PanelEvent,
  type PanelHit,
  type PanelRequest,
  type PanelResponse,
  type PanelSession,
  type PayloadChunk,
  type RequestMap,
  type SearchFilters,
  type SearchPage,
  type Timeline,
  type TimelineEviction,
  type TimelinePoint,
} from '../../shared/panelProtocol';
import { buildEvictionTree, DEFAULT_LEVEL_CAP, readEvictionBlock } from './evictionTree';
import type { PanelDataSource } from './panelDataSource';
import { SCROLL_SCHEME } from '../../shared/scrollUri';
import { titledPathFor } from '../documents/tabTitles';

export interface PanelHandlerOptions {
  /** Opens a `scroll:` URI in an editor tab (the host executes `vscode.open`). */
  openUri?: (uri: string) => Promise<void> | void;
  levelCap?: number;
}

/**
 * The ranked list of the latest query, without snippets: ranked once and cut into pages (snippets
 * are made per page), instead of a ranking per page. It starts short (the first screen answers
 * fast) and grows as the reader scrolls; search's list is one fixed order, so a longer ranking
 * extends the shorter one. Past SEARCH_LIST_MAX hits, pages come from the search's own offset paging.
 */
interface HitList {
  key: string;
  maxSeq: number;
  hits: SearchHit[];
  /** The k of the longest ranking so far. */
  ranked: number;
  /** True when the ranking returned fewer than asked: the list is all there is. */
  complete: boolean;
  total: number;
  result: SearchResult;
}

/** Hits ranked for the first screen; the list grows 4× at a time up to SEARCH_LIST_MAX. */
export const FIRST_RANKING = 100;
/** The search module's largest k. */
export const SEARCH_LIST_MAX = 1000;

export function toPanelEvent(e: ReadEvent, cap = CONTENT_CAP): PanelEvent {
  const truncated = e.content.length > cap;
  const previewOnly = previewOnlyNote(e);
  return {
    seq: e.seq,
    session: e.session,
    kind: e.kind,
    role: e.role,
    name: e.name,
    ts: e.ts,
    step: e.step,
    toolCallId: e.toolCallId,
    parentSeq: e.parentSeq,
    headline: e.headline,
    payload: e.payload,
    bytes: e.bytes,
    tokens: e.tokens,
    meta: e.meta,
    content: truncated ? e.content.slice(0, cap) : e.content,
    contentLength: e.content.length,
    truncated,
    ...(previewOnly === undefined ? {} : { previewOnly }),
  };
}

function toPanelHit(h: SearchHit, source: string | undefined): PanelHit {
  const hit: PanelHit = {
    seq: h.seq,
    kind: h.kind,
    role: h.role,
    session: h.session,
    ts: h.ts,
    name: h.name,
    headline: h.headline,
    snippet: h.snippet ?? '',
    broadened: h.broadened,
  };
  if (source) hit.source = source;
  return hit;
}

function searchOptions(f: SearchFilters): SearchOptions {
  const o: SearchOptions = {};
  if (f.kind?.length) o.kind = f.kind.length === 1 ? f.kind[0] : f.kind;
  if (f.role?.length) o.role = f.role.length === 1 ? f.role[0] : f.role;
  if (f.session) o.session = f.session;
  if (f.seqFrom !== undefined) o.seqFrom = f.seqFrom;
  if (f.seqTo !== undefined) o.seqTo = f.seqTo;
  if (f.tsFrom) o.tsFrom = f.tsFrom;
  if (f.tsTo) o.tsTo = f.tsTo;
  if (f.source) o.source = f.source;
  return o;
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

export class PanelRequestHandler {
  private list: HitList | undefined;

  constructor(
    private readonly source: PanelDataSource,
    private readonly options: PanelHandlerOptions = {},
  ) {}

  /** Validates a raw message and answers it; never throws (errors become `ok: false`). */
  async handleMessage(raw: unknown): Promise<PanelResponse | undefined> {
    const id = raw && typeof raw === 'object' && typeof (raw as { id?: unknown }).id === 'number' ? (raw as { id: number }).id : -1;
    let req;
    try {
      req = parseWebviewMessage(raw);
    } catch (e) {
      return { type: 'response', id, ok: false, error: e instanceof Error ? e.message : String(e) };
    }
    if (req.type === 'ready') return undefined;
    try {
      const result = await this.handle(req);
      return { type: 'response', id: req.id, ok: true, result };
    } catch (e) {
      return { type: 'response', id: req.id, ok: false, error: e instanceof Error ? e.message : String(e) };
    }
  }

  async handle(req: PanelRequest): Promise<RequestMap[PanelRequest['type']]['result']> {
    switch (req.type) {
      case 'search':
        return this.search(req.query, req.filters, req.offset, req.limit);
      case 'expand':
        return this.expand(req.from, req.to);
      case 'neighbours':
        return this.neighbours(req.seq, req.radius);
      case 'payload':
        return this.payload(req.seq, req.offset, req.length);
      case 'sessions':
        return this.sessions();
      case 'facets':
        return this.facets();
      case 'index':
        return this.index(req.session);
      case 'segment':
        return this.segment(req.evictionSeq, req.from);
      case 'timeline':
        return this.timeline(req.session);
      case 'open':
        return this.open(req.target);
    }
  }

  /** Drops the cached hit list (the log grew). */
  invalidate(): void {
    this.list = undefined;
  }

  search(query: string, filters: SearchFilters, offset: number, limit: number): SearchPage {
    const started = performance.now();
    const opts = searchOptions(filters);
    const key = JSON.stringify([query, opts]);
    const maxSeq = this.source.maxSeq();
    let list = this.list;
    if (!list || list.key !== key || list.maxSeq !== maxSeq) {
      const result = this.source.search(query, { ...opts, k: FIRST_RANKING, snippet: false });
      const complete = result.hits.length < FIRST_RANKING;
      // A full first ranking may go on: the matches are counted (cheaper than ranking them all).
      const total = complete ? result.hits.length : Math.max(result.hits.length, this.source.countMatches(query, opts, result));
      list = this.list = { key, maxSeq, hits: result.hits, ranked: FIRST_RANKING, complete, total, result };
    }
    const end = Math.min(offset + limit, HIT_CAP);
    // A page that reaches the end of what is ranked so far lengthens the ranking (the total may grow).
    while (!list.complete && end >= list.hits.length && list.ranked < SEARCH_LIST_MAX) {
      const k = Math.min(SEARCH_LIST_MAX, Math.max(list.ranked * 4, end));
      const longer = this.source.search(query, { ...opts, k, snippet: false }).hits;
      list.hits = longer;
      list.ranked = k;
      list.complete = longer.length < k;
      list.total = list.complete ? list.hits.length : Math.max(list.total, list.hits.length);
    }
    const stop = Math.min(end, list.total);
    let hits: SearchHit[];
    if (stop <= list.hits.length) {
      hits = list.hits.slice(offset, stop);
      const snippets = this.source.snippets(hits.map((h) => h.seq), query, list.result.terms);
      hits = hits.map((h) => ({ ...h, snippet: snippets.get(h.seq) ?? '' }));
    } else {
      hits = offset < stop ? this.source.search(query, { ...opts, k: stop - offset, offset, snippet: true }).hits : [];
    }
    const sources = this.source.sources(hits.map((h) => h.seq));
    const page: SearchPage = {
      offset,
      hits: hits.map((h) => toPanelHit(h, sources.get(h.seq))),
      total: Math.min(list.total, HIT_CAP),
      capped: list.total > HIT_CAP,
      broadened: hits.some((h) => h.broadened),
      terms: list.result.terms,
      pruned: list.result.pruned,
      elapsedMs: 0,
    };
    if (list.result.message) page.message = forEditor(list.result.message);
    page.elapsedMs = Math.round((performance.now() - started) * 10) / 10;
    return page;
  }

  /** Events from..to, a page at a time (EVENT_PAGE_SIZE events); `nextFrom` continues. */
  expand(from: number, to: number): EventPage {
    const events: PanelEvent[] = [];
    let cursor = from;
    // Gaps in seq (other sessions' rolled-back writes never exist, but a range may start before 1)
    // are skipped by reading windows until a page is full or the span ends.
    while (cursor <= to && events.length < EVENT_PAGE_SIZE) {
      const windowEnd = Math.min(to, cursor + (EVENT_PAGE_SIZE - events.length) - 1);
      for (const e of this.source.range(cursor, windowEnd)) events.push(toPanelEvent(e));
      cursor = windowEnd + 1;
      if (cursor > this.source.maxSeq()) break;
    }
    const nextFrom = cursor <= to && cursor <= this.source.maxSeq() ? cursor : null;
    if (!events.length && from === to) {
      throw new PanelProtocolError(`no event with seq ${from} (the log's last seq is ${this.source.maxSeq()})`);
    }
    return { events, nextFrom, from, to };
  }

  neighbours(seq: number, radius: number): EventPage {
    const center = this.source.get(seq);
    if (!center) throw new PanelProtocolError(`no event with seq ${seq}`);
    const from = Math.max(1, seq - radius);
    const to = seq + radius;
    return { events: this.source.range(from, to).map((e) => toPanelEvent(e)), nextFrom: null, from, to };
  }

  payload(seq: number, offset: number, length: number): PayloadChunk {
    const e = this.source.get(seq);
    if (!e) throw new PanelProtocolError(`no event with seq ${seq}`);
    const start = Math.min(offset, e.content.length);
    const text = e.content.slice(start, start + length);
    return { seq, offset: start, text, contentLength: e.content.length, done: start + text.length >= e.content.length };
  }

  sessions(): PanelSession[] {
    const evictions = this.source.evictionCounts();
    const list = this.source.sessions();
    // A captured session's events all carry its source: the first one names it.
    const sources = this.source.sources(list.map((s) => s.firstSeq));
    return list.map((s) => {
      const out: PanelSession = { ...s, evictions: evictions.get(s.session) ?? 0 };
      const source = sources.get(s.firstSeq);
      if (source) out.source = source;
      return out;
    });
  }

  facets(): Facets {
    return this.source.facets();
  }

  index(session: string): IndexTree {
    const rows = this.source.outline(session, ['eviction']);
    const { roots, segments } = buildEvictionTree(rows, this.options.levelCap ?? DEFAULT_LEVEL_CAP);
    return { session, roots, segments };
  }

  segment(evictionSeq: number, from?: number): EventPage {
    const e = this.source.get(evictionSeq);
    if (!e) throw new PanelProtocolError(`no event with seq ${evictionSeq}`);
    if (e.kind !== 'eviction') throw new PanelProtocolError(`event ${evictionSeq} is a ${e.kind}, not an eviction`);
    const block = readEvictionBlock({ seq: e.seq, kind: e.kind, step: e.step, ts: e.ts, meta: e.meta });
    if (!block) throw new PanelProtocolError(`eviction event ${evictionSeq} does not record a seq span`);
    const page = this.expand(Math.max(block.from, from ?? block.from), block.to);
    return { ...page, from: block.from, to: block.to };
  }

  timeline(session: string): Timeline {
    const counts = this.source.stepCounts(session);
    const turns = this.source.outline(session, ['model_turn', 'eviction']);
    const byStep = new Map<number, TimelinePoint>();
    for (const c of counts) {
      byStep.set(c.step, { step: c.step, seq: c.firstSeq, viewTokens: null, budget: null, events: c.events });
    }
    const evictions: TimelineEviction[] = [];
    for (const r of turns) {
      if (r.kind === 'eviction') {
        const b = readEvictionBlock(r);
        evictions.push({ seq: r.seq, step: r.step ?? num(r.meta.step), from: b?.from ?? r.seq, to: b?.to ?? r.seq });
        continue;
      }
      const step = num(r.meta.step) ?? r.step;
      if (step === null) continue;
      let p = byStep.get(step);
      if (!p) {
        p = { step, seq: r.seq, viewTokens: null, budget: null, events: 0 };
        byStep.set(step, p);
      }
      // The last turn of a step is the view the step ended with.
      p.viewTokens = num(r.meta.viewTokens) ?? p.viewTokens;
      p.budget = num(r.meta.budget) ?? p.budget;
    }
    const all = [...byStep.values()].sort((a, b) => a.step - b.step);
    const bucket = Math.max(1, Math.ceil(all.length / TIMELINE_MAX_POINTS));
    if (bucket === 1) return { session, points: all, evictions, bucket };
    // Bucketing keeps the peak view size of each bucket (the number that matters against the budget).
    const points: TimelinePoint[] = [];
    for (let i = 0; i < all.length; i += bucket) {
      const group = all.slice(i, i + bucket);
      const peak = group.reduce((m, p) => (p.viewTokens !== null && (m.viewTokens === null || p.viewTokens > m.viewTokens) ? p : m), group[0]);
      points.push({
        step: group[0].step,
        seq: peak.seq,
        viewTokens: peak.viewTokens,
        budget: group.reduce<number | null>((b, p) => p.budget ?? b, null),
        events: group.reduce((n, p) => n + p.events, 0),
      });
    }
    return { session, points, evictions, bucket };
  }

  async open(target: OpenTarget): Promise<{ uri: string }> {
    const uri = this.titledUri(target);
    if (!this.options.openUri) throw new PanelProtocolError('opening editor tabs is not available here');
    await this.options.openUri(uri);
    return { uri };
  }

  /** The tab's address with a title saying what it shows ("seq 24 · user message", "Evicted seq 1–18"). */
  private titledUri(target: OpenTarget): string {
    return `${SCROLL_SCHEME}:${titledPathFor(target, (seq) => this.source.get(seq))}`;
  }
}
