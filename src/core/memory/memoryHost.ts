/**
 * The host side of `ms` (docs/MEMORY-PROTOCOL.md): the agent's kernel never opens the event log;
 * each `ms` call comes here as `{ms_call, method, args}` and is answered from the log the host has
 * open. One implementation for every transport: the subprocess kernel's pipes and a Jupyter
 * kernel's local channel (memoryChannel.ts) both hand their call lines to `replyFor`.
 *
 * Behaviour follows kernel/scroll_ms.py (the standalone reader): the same argument checks, limits
 * and error messages. Search is the TypeScript original (src/core/search), events and payloads come
 * from EventLog / PayloadStore, and `sql` runs in a read-only Python helper (readOnlySql.ts).
 * Results are snake_case, as the kernel's client builds its `Hit`/`Event` objects from them as is.
 */
import { PayloadError, errorMessage } from '../errors';
import type { EventLog, ReadEvent } from '../log/eventLog';
import { indexFromBlocks, indexFromSnapshot } from '../log/eventMeta';
import { evictions, lastEviction } from '../log/historyQueries';
import { PayloadStore } from '../log/payloadStore';
import { searchEvents } from '../search/search';
import type { SearchOptions } from '../types';
import { MemoryCallError, ReadOnlySql, type MemoryErrorType, type SqlResult } from './readOnlySql';
import { previewOnlyNote } from '../log/previewOnly';


export const MAX_RANGE_EVENTS = 10_000;

export interface MemoryHostOptions {
  log: EventLog;
  /**
   * The kernel's session: `scope='session'`, `recent()` and `index()` default to it. Default the
   * log's session; `null` for none (those then cover the whole log, as scroll_ms.py without one).
   */
  session?: string | null;
  /** Runs `ms.sql`. Default: one helper shared by every host on the same log file, started on the first query. */
  sql?: ReadOnlySql;
  /** Python for the default SQL helper (ignored with `sql`). Default `python3`. */
  python?: string;
}

/** One event as the kernel's `Event` (snake_case, full content). */
export interface WireEvent {
  seq: number;
  session: string;
  kind: string;
  role: string;
  name: string | null;
  content: string;
  ts: string;
  meta: Record<string, unknown>;
  step: number | null;
  tool_call_id: string | null;
  parent_seq: number | null;
  headline: string | null;
  payload: string | null;
  bytes: number;
  tokens: number;
  payload_error?: string;
}

/** Default SQL helpers, one per (log file, Python), shared by the hosts using it. */
const sharedSql = new Map<string, { sql: ReadOnlySql; users: number }>();

type Args = Record<string, unknown>;

/** Answers `ms` calls for one session from a log the host has open (read side only). */
export class MemoryHost {
  readonly session: string | null;
  private readonly log: EventLog;
  private readonly ownSql?: ReadOnlySql;
  private sharedKey?: string;
  private sharedSql?: ReadOnlySql;
  private readonly python?: string;
  private disposed = false;
  private readonly methods: Record<string, (args: Args) => unknown>;
  private static readonly utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

  constructor(opts: MemoryHostOptions) {
    this.log = opts.log;
    this.session = opts.session === undefined ? opts.log.session : opts.session;
    this.ownSql = opts.sql;
    this.python = opts.python;
    this.methods = {
      search: (a) => this.search(a),
      expand: (a) => this.expand(a),
      range: (a) => this.range(a),
      recent: (a) => this.recent(a),
      payload: (a) => this.payload(a),
      sql: (a) => this.sql(a),
      index: (a) => this.index(a),
    };
  }

  /** One call; rejects with MemoryCallError for bad input / unknown seq / sql refused; never with anything else for input problems. */
  async call(method: string, args: Record<string, unknown>): Promise<unknown> {
    if (this.disposed) throw new MemoryCallError('RuntimeError', 'ms: the memory host is closed');
    const fn = typeof method === 'string' && Object.prototype.hasOwnProperty.call(this.methods, method) ? this.methods[method] : undefined;
    if (!fn) throw new MemoryCallError('ValueError', `ms: unknown method ${pyRepr(method)}`);
    if (args === undefined || args === null) args = {};
    if (typeof args !== 'object' || Array.isArray(args)) throw new MemoryCallError('TypeError', `ms.${method}: args must be an object`);
    try {
      return await fn(args);
    } catch (e) {
      if (e instanceof MemoryCallError) throw e;
      // Not an input problem (the log could not be read, ...): still a Python exception in the kernel.
      throw new MemoryCallError('RuntimeError', `ms.${method}: ${errorMessage(e)}`);
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.sharedKey) {
      const entry = sharedSql.get(this.sharedKey);
      if (entry && entry.sql === this.sharedSql && --entry.users <= 0) {
        sharedSql.delete(this.sharedKey);
        entry.sql.dispose();
      }
      this.sharedKey = undefined;
      this.sharedSql = undefined;
    }
  }

  // -- LOCATE -------------------------------------------------------------------------------------
  private search(a: Args): unknown {
    const query = a.query;
    if (typeof query !== 'string') throw new MemoryCallError('TypeError', `ms.search: query must be a string, got ${pyType(query)}`);
    const scope = a.scope ?? 'all';
    if (scope !== 'all' && scope !== 'session') throw new MemoryCallError('ValueError', `ms.search: scope must be 'all' or 'session', got ${pyRepr(scope)}`);
    let session = optString(a, 'session', 'ms.search');
    if (scope === 'session') {
      session ??= this.session ?? undefined;
      if (session === undefined) throw new MemoryCallError('ValueError', "ms.search: scope='session' but this memory space has no session");
    }
    const opts: SearchOptions = {
      k: optNumber(a, 'k', 'ms.search'),
      offset: optNumber(a, 'offset', 'ms.search'),
      kind: optStrings(a, 'kind'),
      role: optStrings(a, 'role'),
      session,
      name: optString(a, 'name', 'ms.search'),
      source: optString(a, 'source', 'ms.search'),
    };
    const seqRange = optPair(a, 'seq_range');
    if (seqRange) {
      const [from, to] = seqRange.map((v) => (v === null || v === undefined ? undefined : v));
      if ((from !== undefined && typeof from !== 'number') || (to !== undefined && typeof to !== 'number')) {
        throw new MemoryCallError('TypeError', `ms.search: seq_range must hold two seqs (or None), got ${pyRepr(seqRange)}`);
      }
      opts.seqFrom = from as number | undefined;
      opts.seqTo = to as number | undefined;
    }
    const tsRange = optPair(a, 'ts_range');
    if (tsRange) {
      const [from, to] = tsRange.map((v) => (v === null || v === undefined ? undefined : v));
      if ((from !== undefined && typeof from !== 'string') || (to !== undefined && typeof to !== 'string')) {
        throw new MemoryCallError('TypeError', `ms.search: ts_range must hold two ISO times (or None), got ${pyRepr(tsRange)}`);
      }
      opts.tsFrom = from as string | undefined;
      opts.tsTo = to as string | undefined;
    }
    const snippet = a.snippet ?? true;
    if (typeof snippet !== 'boolean') throw new MemoryCallError('TypeError', `ms.search: snippet must be True or False, got ${pyRepr(snippet)}`);
    if (!snippet) opts.snippet = false;
    const r = searchEvents(this.log.database, query, opts);
    return { hits: r.hits, broadened: r.broadened, terms: r.terms, pruned: r.pruned, ...(r.ignored ? { ignored: r.ignored } : {}), message: r.message ?? null };
  }

  // -- MATERIALIZE --------------------------------------------------------------------------------
  private expand(a: Args): { events: WireEvent[] } {
    const seqs = seqsOf(a.seqs);
    if (seqs.length === 0) return { events: [] };
    const found = new Map<number, ReadEvent | undefined>();
    for (const seq of seqs) if (!found.has(seq)) found.set(seq, this.log.get(seq, { keepPreview: true }));
    const missing = seqs.filter((s) => found.get(s) === undefined);
    if (missing.length) {
      const max = this.log.maxSeq();
      const list = missing.slice(0, 10).join(', ') + (missing.length > 10 ? ' ...' : '');
      throw new MemoryCallError('KeyError', `ms.expand: no event with seq ${list} (max seq is ${max > 0 ? max : 'None'})`);
    }
    return { events: seqs.map((s) => wireEvent(found.get(s)!)) };
  }

  private range(a: Args): { events: WireEvent[] } {
    const from = intArg('a', a.a);
    const to = intArg('b', a.b);
    if (from > to) throw new MemoryCallError('ValueError', `ms.range: a (${from}) must be <= b (${to})`);
    if (to - from >= MAX_RANGE_EVENTS) {
      throw new MemoryCallError('ValueError', `ms.range: span of ${to - from + 1} seqs is too wide (limit ${MAX_RANGE_EVENTS}); narrow it or page through it`);
    }
    return { events: this.log.range(from, to, { keepPreview: true }).map(wireEvent) };
  }

  private recent(a: Args): { events: WireEvent[] } {
    const n = a.n === undefined ? 20 : intArg('n', a.n);
    if (n <= 0) return { events: [] };
    const session = optString(a, 'session', 'ms.recent') ?? this.session ?? undefined;
    return { events: this.log.recent(n, session, { keepPreview: true }).map(wireEvent) };
  }

  private payload(a: Args): { text: string } | { base64: string } {
    const handle = a.handle;
    if (typeof handle !== 'string' || !PayloadStore.isHandle(handle)) {
      throw new MemoryCallError('ValueError', `ms.payload: ${pyRepr(handle)} is not a payload handle (64 lowercase hex characters)`);
    }
    const store = this.log.payloads;
    if (!store.has(handle)) throw new MemoryCallError('KeyError', `ms.payload: payload ${handle} is missing from ${store.dir}`);
    let data: Buffer;
    try {
      data = store.readBuffer(handle);
    } catch (e) {
      // Damaged (its bytes no longer hash to the handle): no cause. Unreadable: the I/O error is the cause.
      if (e instanceof PayloadError && e.cause === undefined) throw new MemoryCallError('ValueError', `ms.payload: ${e.message}`);
      if (e instanceof PayloadError && /is missing/.test(e.message)) throw new MemoryCallError('KeyError', `ms.payload: ${e.message}`);
      throw new MemoryCallError('RuntimeError', `ms.payload: ${errorMessage(e)}`);
    }
    try {
      return { text: MemoryHost.utf8.decode(data) };
    } catch {
      return { base64: data.toString('base64') };
    }
  }

  // -- COMPUTE helpers ----------------------------------------------------------------------------
  private sql(a: Args): Promise<SqlResult> {
    if (typeof a.query !== 'string') throw new MemoryCallError('TypeError', 'ms.sql: query must be a string');
    const params = a.params ?? [];
    if (typeof params !== 'object') throw new MemoryCallError('TypeError', `ms.sql: params must be a list (for ?) or a dict (for :name), got ${pyType(params)}`);
    return this.sqlRunner().query(a.query, params);
  }

  private sqlRunner(): ReadOnlySql {
    if (this.ownSql) return this.ownSql;
    if (this.sharedSql) return this.sharedSql;
    const key = `${this.log.path}\0${this.python ?? ''}`;
    let entry = sharedSql.get(key);
    if (!entry) {
      entry = { sql: new ReadOnlySql({ dbPath: this.log.path, python: this.python }), users: 0 };
      sharedSql.set(key, entry);
    }
    entry.users++;
    this.sharedKey = key;
    this.sharedSql = entry.sql;
    return entry.sql;
  }

  private index(a: Args): { blocks: Record<string, unknown>[] } {
    const session = optString(a, 'session', 'ms.index') ?? this.session ?? undefined;
    // The agent records the whole (merged) index after each eviction: the last one is current
    // (older logs: the blocks each eviction recorded). The contract: src/core/log/eventMeta.ts.
    const last = lastEviction(this.log, session);
    if (!last) return { blocks: [] };
    return { blocks: indexFromSnapshot(last) ?? indexFromBlocks(evictions(this.log, session)) };
  }
}

/** The reply line for a call line (both as parsed JSON), for transports. */
export async function replyFor(
  host: MemoryHost,
  msg: { ms_call: number; method: string; args?: unknown },
): Promise<{ ms_reply: number; result?: unknown; error?: { type: MemoryErrorType; message: string } }> {
  const id = msg?.ms_call;
  try {
    if (!msg || typeof msg !== 'object') throw new MemoryCallError('ValueError', 'ms: a call must be a JSON object');
    if (typeof msg.method !== 'string') throw new MemoryCallError('TypeError', 'ms: a call needs a string "method"');
    const result = await host.call(msg.method, (msg.args ?? {}) as Record<string, unknown>);
    return { ms_reply: id, result: result ?? null };
  } catch (e) {
    const err = e instanceof MemoryCallError ? e : new MemoryCallError('RuntimeError', `ms: ${errorMessage(e)}`);
    return { ms_reply: id, error: { type: err.type, message: err.message } };
  }
}

// -- helpers ----------------------------------------------------------------------------------------

function wireEvent(e: ReadEvent): WireEvent {
  const out: WireEvent = {
    seq: e.seq,
    session: e.session,
    kind: e.kind,
    role: e.role,
    name: e.name,
    content: e.content,
    ts: e.ts,
    meta: isPlainObject(e.meta) ? e.meta : { value: e.meta },
    step: e.step,
    tool_call_id: e.toolCallId,
    parent_seq: e.parentSeq,
    headline: e.headline,
    payload: e.payload,
    bytes: e.bytes,
    tokens: e.tokens,
  };
  const note = previewOnlyNote(e);
  if (note !== undefined) out.payload_error = note;
  return out;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** scroll_ms.py's _int: an integer seq, else TypeError naming the argument. */
function intArg(name: string, v: unknown): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new MemoryCallError('TypeError', `${name} must be an integer seq, got ${pyRepr(v)}`);
  return v;
}

/** scroll_ms.py's _seqs_of: a seq, a hit/event ({seq}), or a list of those. */
function seqsOf(x: unknown): number[] {
  const one = (item: unknown): number => {
    if (isPlainObject(item)) {
      if (!('seq' in item)) throw new MemoryCallError('TypeError', "ms.expand: a dict needs a 'seq' key");
      return intArg('seq', item.seq);
    }
    return intArg('seq', item);
  };
  if (x === undefined || x === null) throw new MemoryCallError('TypeError', 'ms.expand: expected a seq, a list of seqs or hits, got NoneType');
  if (typeof x === 'string') throw new MemoryCallError('TypeError', 'ms.expand: expected a seq, a list of seqs or hits, got a string');
  if (Array.isArray(x)) return x.map(one);
  if (typeof x === 'number' || isPlainObject(x)) return [one(x)];
  throw new MemoryCallError('TypeError', `ms.expand: expected a seq, a list of seqs or hits, got ${pyType(x)}`);
}

function optString(a: Args, key: string, where: string): string | undefined {
  const v = a[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new MemoryCallError('TypeError', `${where}: ${key} must be a string or None, got ${pyRepr(v)}`);
  return v;
}

function optNumber(a: Args, key: string, where: string): number | undefined {
  const v = a[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new MemoryCallError('TypeError', `${where}: ${key} must be an integer, got ${pyRepr(v)}`);
  return Math.trunc(v);
}

function optStrings(a: Args, key: string): string | string[] | undefined {
  const v = a[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') return v;
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v.length ? (v as string[]) : undefined;
  throw new MemoryCallError('TypeError', `ms.search: ${key} must be a string or a list of strings, got ${pyRepr(v)}`);
}

function optPair(a: Args, key: string): [unknown, unknown] | undefined {
  const v = a[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.length !== 2) throw new MemoryCallError('ValueError', `ms.search: ${key} must be a pair (a, b), got ${pyRepr(v)}`);
  return [v[0], v[1]];
}

/** The Python type name of a JSON value, for messages that read as the kernel's own. */
function pyType(v: unknown): string {
  if (v === null || v === undefined) return 'NoneType';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (typeof v === 'string') return 'str';
  if (Array.isArray(v)) return 'list';
  return 'dict';
}

/** Roughly Python's repr() of a JSON value. */
function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') {
    const q = v.includes("'") && !v.includes('"') ? '"' : "'";
    const body = v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t');
    const text = (q === "'" ? body.replace(/'/g, "\\'") : body);
    return `${q}${text.length > 80 ? `${text.slice(0, 80)}…` : text}${q}`;
  }
  if (Array.isArray(v)) return `[${v.slice(0, 10).map(pyRepr).join(', ')}${v.length > 10 ? ', ...' : ''}]`;
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).slice(0, 10);
    return `{${entries.map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`).join(', ')}}`;
  }
  return String(v);
}
