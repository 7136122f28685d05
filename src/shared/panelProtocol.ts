/**
 * Wire protocol between the history panel's front end (`webview/`, a browser) and its host in the
 * extension (`src/vscode/panel/`). Both sides import this file; it imports nothing but its siblings
 * in `src/shared/` (which import nothing), so it bundles into the browser as is.
 *
 * Shape: the webview sends requests `{ type, id, ...params }`; the host answers each with one
 * `{ type: 'response', id, ok, result | error }`. The host may also push `init` and `logChanged`.
 * Everything that can grow with the log is paged (hits, events of a range) or capped (content,
 * payload chunks) so the panel never receives a whole log at once.
 */
import { scrollUriString } from './scrollUri';
import { readSeqSpec } from './seqSpec';

export const PANEL_VIEW_TYPE = 'scroll.history';
export const PROTOCOL_VERSION = 1;

/**
 * Hits per search page message; the virtual list asks for pages as they scroll into view. About
 * two screens: each hit's snippet is cut from its event's text, which is most of a page's cost.
 */
export const SEARCH_PAGE_SIZE = 40;
/** Most hits a single query will list (the count above it is reported as "at least"). */
export const HIT_CAP = 10_000;
/** Events per page of an expanded range or segment. */
export const EVENT_PAGE_SIZE = 50;
/** Characters of an event's content sent with the event; the rest is fetched on demand. */
export const CONTENT_CAP = 16 * 1024;
/** Largest chunk of content the `payload` request returns at once. */
export const PAYLOAD_CHUNK_MAX = 256 * 1024;
/** Events either side for "Show neighbours" (default and maximum). */
export const NEIGHBOUR_RADIUS = 3;
export const NEIGHBOUR_RADIUS_MAX = 20;
/** Most points a timeline carries (longer sessions are bucketed by step). */
export const TIMELINE_MAX_POINTS = 2_000;

// ---------------------------------------------------------------------------------------------
// Data shapes

export interface SearchFilters {
  kind?: string[];
  role?: string[];
  session?: string;
  seqFrom?: number;
  seqTo?: number;
  tsFrom?: string;
  tsTo?: string;
  /** Only events captured from this agent's transcripts (their meta.source, e.g. 'claude-code'). */
  source?: string;
}

export interface PanelHit {
  seq: number;
  kind: string;
  role: string;
  session: string;
  ts: string;
  name: string | null;
  headline: string | null;
  /** Matched terms wrapped in « » markers; empty when not loaded. Text, never markup. */
  snippet: string;
  broadened: boolean;
  /** The agent whose transcript the event was captured from (its meta.source); absent for Scroll's own. */
  source?: string;
}

export interface SearchPage {
  /** Index of `hits[0]` in the whole result list. */
  offset: number;
  hits: PanelHit[];
  /** Hits in the whole result list (at most HIT_CAP). */
  total: number;
  /** True when there are more than HIT_CAP hits. */
  capped: boolean;
  broadened: boolean;
  terms: string[];
  pruned: string[];
  /** Why nothing could be searched (empty query after normalisation, …). */
  message?: string;
  /** Host-side time spent answering, in milliseconds. */
  elapsedMs: number;
}

/** An event as the panel sees it: content capped at CONTENT_CAP characters. */
export interface PanelEvent {
  seq: number;
  session: string;
  kind: string;
  role: string;
  name: string | null;
  ts: string;
  step: number | null;
  toolCallId: string | null;
  parentSeq: number | null;
  headline: string | null;
  payload: string | null;
  bytes: number;
  tokens: number;
  meta: Record<string, unknown>;
  /** The first CONTENT_CAP characters (or all) of the content. */
  content: string;
  /** Full length of the content in characters (UTF-16 code units). */
  contentLength: number;
  /** True when `content` is only the head of the content. */
  truncated: boolean;
  /** Set when the payload file cannot be read: `content` is the stored preview, and this says why. */
  previewOnly?: string;
}

export interface EventPage {
  events: PanelEvent[];
  /** The seq to ask for next (`from` of the next page), or null when done. */
  nextFrom: number | null;
  /** The requested span, for display. */
  from: number;
  to: number;
}

export interface PayloadChunk {
  seq: number;
  offset: number;
  text: string;
  contentLength: number;
  done: boolean;
}

export interface PanelSession {
  session: string;
  firstSeq: number;
  lastSeq: number;
  firstTs: string;
  lastTs: string;
  events: number;
  tokens: number;
  /** Eviction events in the session (0 for sessions the agent loop never trimmed). */
  evictions: number;
  /**
   * Which tool wrote the session when it was imported from another agent's transcript (capture);
   * absent for Scroll's own sessions. Shown beside the name when present.
   */
  source?: string;
}

export interface IndexTitle {
  task: string;
  state: string;
  next: string;
}

/** One block of the eviction index; leaves (level 0) are the segments evicted in one sweep. */
export interface IndexNode {
  level: number;
  from: number;
  to: number;
  title: IndexTitle;
  /** Seq of the `eviction` event that recorded this block (level 0), or null for merged blocks. */
  evictionSeq: number | null;
  children: IndexNode[];
}

export interface IndexTree {
  session: string;
  /** Top-level blocks, oldest first: what the model's rendered index shows. */
  roots: IndexNode[];
  segments: number;
}

export interface TimelinePoint {
  step: number;
  /** First seq of the step (where a click jumps). */
  seq: number;
  viewTokens: number | null;
  budget: number | null;
  events: number;
}

export interface TimelineEviction {
  seq: number;
  step: number | null;
  from: number;
  to: number;
}

export interface Timeline {
  session: string;
  points: TimelinePoint[];
  evictions: TimelineEviction[];
  /** Steps per point when the session was bucketed (1 = one point per step). */
  bucket: number;
}

export interface Facets {
  kinds: string[];
  roles: string[];
}

/** What "Open in editor" opens; the host turns it into a `scroll:` URI. */
export type OpenTarget =
  | { kind: 'event'; seq: number }
  | { kind: 'range'; from: number; to: number }
  | { kind: 'segment'; evictionSeq: number };

// ---------------------------------------------------------------------------------------------
// Requests (webview → host) and their results

export interface RequestMap {
  search: { params: { query: string; filters: SearchFilters; offset: number; limit: number }; result: SearchPage };
  expand: { params: { from: number; to: number }; result: EventPage };
  neighbours: { params: { seq: number; radius: number }; result: EventPage };
  payload: { params: { seq: number; offset: number; length: number }; result: PayloadChunk };
  sessions: { params: Record<string, never>; result: PanelSession[] };
  facets: { params: Record<string, never>; result: Facets };
  index: { params: { session: string }; result: IndexTree };
  segment: { params: { evictionSeq: number; from?: number }; result: EventPage };
  timeline: { params: { session: string }; result: Timeline };
  open: { params: { target: OpenTarget }; result: { uri: string } };
}

export type RequestType = keyof RequestMap;
export type PanelRequest = { [K in RequestType]: { type: K; id: number } & RequestMap[K]['params'] }[RequestType];
export type RequestOf<K extends RequestType> = Extract<PanelRequest, { type: K }>;

export type PanelResponse =
  | { type: 'response'; id: number; ok: true; result: unknown }
  | { type: 'response'; id: number; ok: false; error: string };

/** Pushed by the host without a request. */
export type PanelPush =
  | { type: 'init'; protocol: number; currentSession: string | null; logPath: string | null; error?: string }
  | { type: 'logChanged'; maxSeq: number }
  /** The extension asks the panel to show something (e.g. the status bar opened it on a session). */
  | { type: 'reveal'; session?: string; query?: string; seq?: number };

export type HostMessage = PanelResponse | PanelPush;

/** The webview tells the host it is ready (host then sends `init`). Not a request: no answer. */
export interface ReadyMessage {
  type: 'ready';
}

export type WebviewMessage = PanelRequest | ReadyMessage;

// ---------------------------------------------------------------------------------------------
// Validation: the host never trusts what the webview sends (it renders logged text, after all).

export class PanelProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PanelProtocolError';
  }
}

const REQUEST_TYPES: ReadonlySet<string> = new Set<RequestType>([
  'search', 'expand', 'neighbours', 'payload', 'sessions', 'facets', 'index', 'segment', 'timeline', 'open',
]);

const MAX_QUERY_CHARS = 2_000;
const MAX_RANGE_SPAN = 1_000_000_000;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function seqField(o: Record<string, unknown>, key: string, what: string): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    throw new PanelProtocolError(`${what}: "${key}" must be a whole number ≥ 0, got ${JSON.stringify(v)}`);
  }
  return v;
}

function optSeqField(o: Record<string, unknown>, key: string, what: string): number | undefined {
  return o[key] === undefined || o[key] === null ? undefined : seqField(o, key, what);
}

function stringField(o: Record<string, unknown>, key: string, what: string, max = 500): string {
  const v = o[key];
  if (typeof v !== 'string') throw new PanelProtocolError(`${what}: "${key}" must be a string`);
  if (v.length > max) throw new PanelProtocolError(`${what}: "${key}" is longer than ${max} characters`);
  return v;
}

function optStringList(o: Record<string, unknown>, key: string, what: string): string[] | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  const list = typeof v === 'string' ? [v] : v;
  if (!Array.isArray(list) || list.length > 100 || !list.every((x) => typeof x === 'string' && x.length <= 200)) {
    throw new PanelProtocolError(`${what}: "${key}" must be a list of strings`);
  }
  const clean = (list as string[]).filter((x) => x !== '');
  return clean.length ? clean : undefined;
}

const ISO_PREFIX = /^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/;

function optIsoField(o: Record<string, unknown>, key: string, what: string): string | undefined {
  const v = o[key];
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string' || !ISO_PREFIX.test(v) || Number.isNaN(Date.parse(v))) {
    throw new PanelProtocolError(`${what}: "${key}" must be an ISO date or time (e.g. 2026-01-31 or 2026-01-31T12:00Z)`);
  }
  return v;
}

function checkSpan(from: number, to: number, what: string): void {
  if (to < from) throw new PanelProtocolError(`${what}: "to" (${to}) is before "from" (${from})`);
  if (to - from > MAX_RANGE_SPAN) throw new PanelProtocolError(`${what}: the span ${from}..${to} is too wide`);
}

export function parseFilters(raw: unknown): SearchFilters {
  if (raw === undefined || raw === null) return {};
  if (!isRecord(raw)) throw new PanelProtocolError('search: "filters" must be an object');
  const f: SearchFilters = {};
  const kind = optStringList(raw, 'kind', 'search filters');
  if (kind) f.kind = kind;
  const role = optStringList(raw, 'role', 'search filters');
  if (role) f.role = role;
  if (raw.session !== undefined && raw.session !== null && raw.session !== '') {
    f.session = stringField(raw, 'session', 'search filters');
  }
  const seqFrom = optSeqField(raw, 'seqFrom', 'search filters');
  const seqTo = optSeqField(raw, 'seqTo', 'search filters');
  if (seqFrom !== undefined) f.seqFrom = seqFrom;
  if (seqTo !== undefined) f.seqTo = seqTo;
  if (seqFrom !== undefined && seqTo !== undefined && seqTo < seqFrom) {
    throw new PanelProtocolError(`search filters: seq range ${seqFrom}..${seqTo} is empty ("to" before "from")`);
  }
  if (raw.source !== undefined && raw.source !== null && raw.source !== '') {
    f.source = stringField(raw, 'source', 'search filters', 200);
  }
  const tsFrom = optIsoField(raw, 'tsFrom', 'search filters');
  const tsTo = optIsoField(raw, 'tsTo', 'search filters');
  if (tsFrom) f.tsFrom = tsFrom;
  if (tsTo) f.tsTo = tsTo;
  return f;
}

function parseOpenTarget(raw: unknown): OpenTarget {
  if (!isRecord(raw)) throw new PanelProtocolError('open: "target" must be an object');
  switch (raw.kind) {
    case 'event':
      return { kind: 'event', seq: seqField(raw, 'seq', 'open') };
    case 'range': {
      const from = seqField(raw, 'from', 'open');
      const to = seqField(raw, 'to', 'open');
      checkSpan(from, to, 'open');
      return { kind: 'range', from, to };
    }
    case 'segment':
      return { kind: 'segment', evictionSeq: seqField(raw, 'evictionSeq', 'open') };
    default:
      throw new PanelProtocolError(`open: unknown target kind ${JSON.stringify(raw.kind)}`);
  }
}

/**
 * Checks a message from the webview and returns it typed, or throws PanelProtocolError with a
 * message that says what is wrong. Numbers are clamped to the protocol's caps.
 */
export function parseWebviewMessage(raw: unknown): WebviewMessage {
  if (!isRecord(raw)) throw new PanelProtocolError('a panel message must be an object');
  if (raw.type === 'ready') return { type: 'ready' };
  if (typeof raw.type !== 'string' || !REQUEST_TYPES.has(raw.type)) {
    throw new PanelProtocolError(`unknown panel request type ${JSON.stringify(raw.type)}`);
  }
  const type = raw.type as RequestType;
  const id = raw.id;
  if (typeof id !== 'number' || !Number.isSafeInteger(id)) {
    throw new PanelProtocolError(`${type}: "id" must be an integer`);
  }
  switch (type) {
    case 'search': {
      const query = stringField(raw, 'query', 'search', MAX_QUERY_CHARS);
      const offset = raw.offset === undefined ? 0 : seqField(raw, 'offset', 'search');
      const limitRaw = raw.limit === undefined ? SEARCH_PAGE_SIZE : seqField(raw, 'limit', 'search');
      const limit = Math.max(1, Math.min(SEARCH_PAGE_SIZE, limitRaw));
      return { type, id, query, filters: parseFilters(raw.filters), offset: Math.min(offset, HIT_CAP), limit };
    }
    case 'expand': {
      const from = seqField(raw, 'from', 'expand');
      const to = raw.to === undefined ? from : seqField(raw, 'to', 'expand');
      checkSpan(from, to, 'expand');
      return { type, id, from, to };
    }
    case 'neighbours': {
      const seq = seqField(raw, 'seq', 'neighbours');
      const r = raw.radius === undefined ? NEIGHBOUR_RADIUS : seqField(raw, 'radius', 'neighbours');
      return { type, id, seq, radius: Math.min(NEIGHBOUR_RADIUS_MAX, r) };
    }
    case 'payload': {
      const seq = seqField(raw, 'seq', 'payload');
      const offset = seqField(raw, 'offset', 'payload');
      const length = Math.max(1, Math.min(PAYLOAD_CHUNK_MAX, seqField(raw, 'length', 'payload')));
      return { type, id, seq, offset, length };
    }
    case 'sessions':
    case 'facets':
      return { type, id } as PanelRequest;
    case 'index':
    case 'timeline':
      return { type, id, session: stringField(raw, 'session', type) };
    case 'segment': {
      const evictionSeq = seqField(raw, 'evictionSeq', 'segment');
      const from = optSeqField(raw, 'from', 'segment');
      return from === undefined ? { type, id, evictionSeq } : { type, id, evictionSeq, from };
    }
    case 'open':
      return { type, id, target: parseOpenTarget(raw.target) };
  }
}

/** The `scroll:` document for a target (built by scrollUri.ts; the document provider is the VS Code integration's). */
export function scrollUriFor(target: OpenTarget): string {
  return scrollUriString(target);
}

/**
 * Reads what a person types into "Expand by seq" (`42`, `10-20`, `10..20`, `10 – 20`, every form of
 * `readSeqSpec`); a range written backwards is turned round. Null when it is not a seq or a range.
 */
export function parseSeqSpec(text: string): { from: number; to: number } | null {
  const r = readSeqSpec(text);
  if (!r.ok) return null;
  return r.from <= r.to ? { from: r.from, to: r.to } : { from: r.to, to: r.from };
}

/** Splits a snippet on its « » match markers: odd-indexed parts are matches. */
export function splitSnippet(snippet: string): { text: string; match: boolean }[] {
  const out: { text: string; match: boolean }[] = [];
  let rest = snippet;
  while (rest.length) {
    const open = rest.indexOf('«');
    if (open < 0) {
      out.push({ text: rest, match: false });
      break;
    }
    const close = rest.indexOf('»', open + 1);
    if (close < 0) {
      out.push({ text: rest, match: false });
      break;
    }
    if (open > 0) out.push({ text: rest.slice(0, open), match: false });
    if (close > open + 1) out.push({ text: rest.slice(open + 1, close), match: true });
    rest = rest.slice(close + 1);
  }
  return out;
}
