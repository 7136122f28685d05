/**
 * The memory as a Model Context Protocol server (`scroll mcp`), on the official TypeScript SDK:
 * tools `search_history`, `read_events`, `history_index` and, only where the kernel is sandboxed
 * and the workspace may be written, `run_python`; every event, range and session index as a
 * resource under the `scroll:` URIs the editor's tabs open (src/shared/scrollUri.ts).
 *
 * Reads go through a read-only connection opened on first use (a log created later is found then);
 * the server writes nothing but its own `run_python` cells (pythonCells.ts). Every bad input is a
 * tool error with a message that says what to change; the server goes on serving.
 */
import { existsSync } from 'node:fs';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError, type CallToolResult, type ReadResourceResult, type ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { DriverChoice } from '../db';
import { InvalidInputError, errorMessage } from '../errors';
import { EventLog, type ReadEvent } from '../log/eventLog';
import { indexFromBlocks, indexFromSnapshot } from '../log/eventMeta';
import type { SandboxDecision } from '../kernel/sandbox';
import { prompt } from '../../prompts';
import { clientSessionId } from '../sessionId';
import type { SearchHit, SearchOptions, SearchResult, SessionInfo } from '../types';
import { parseScrollPath, scrollUriString } from '../../shared/scrollUri';
import { MAX_LISTED_SEQS, MAX_PAGE_CHARS, MAX_RANGE_SPAN, MIN_PAGE_CHARS, DEFAULT_PAGE_CHARS, readEventPage, type PageRequest } from './eventPages';
import { PythonCells } from './pythonCells';
import { CAPTURE_SOURCES } from '../capture/types';
import { SESSION_SOURCES, sessionSource } from './sessionSource';
import { previewOnlyNote } from '../log/previewOnly';

const CAPTURED = new Set<string>(CAPTURE_SOURCES);

export interface MemoryServerOptions {
  /** The event log file (`<workspace>/.scroll/scroll.db` by default). */
  dbPath: string;
  /** The workspace folder: the kernel's working folder. */
  workspace: string;
  /** Untrusted workspace: no run_python, nothing written. */
  readOnly: boolean;
  /** What the sandbox probe found: run_python is offered only when `sandboxed`. */
  sandbox: SandboxDecision;
  python?: string;
  driver?: DriverChoice;
  /** The log's warnings and the server's own notes (stderr for the CLI). */
  onWarning?: (message: string) => void;
  version?: string;
  /**
   * Tools not to offer (of MEMORY_TOOLS). The editor leaves out those its own language-model tools
   * already give every agent there, so agent mode does not see each twice.
   */
  omit?: readonly string[];
}

/** Every tool the server can offer. */
export const MEMORY_TOOLS = ['search_history', 'read_events', 'history_index', 'run_python'] as const;

export const MAX_SEARCH_K = 100;
const MAX_CELL_CHARS = 200_000;
const DEFAULT_CELL_TIMEOUT_S = 60;
const MAX_CELL_TIMEOUT_S = 600;
const MAX_SESSIONS_LISTED = 500;
/** Content characters one resource read returns (resources have no pages: read_events has). */
const RESOURCE_MAX_CHARS = 200_000;
/** Candidates looked at per round when a source filter applies (it is checked after ranking). */
const SOURCE_SCAN_ROUNDS = 8;

export interface MemoryServer {
  readonly server: McpServer;
  /** Whether run_python is offered, and why not when it is not. */
  readonly runPython: { offered: true } | { offered: false; reason: string };
  close(): Promise<void>;
}

export function createMemoryServer(opts: MemoryServerOptions): MemoryServer {
  const unknown = (opts.omit ?? []).filter((t) => !(MEMORY_TOOLS as readonly string[]).includes(t));
  if (unknown.length) throw new InvalidInputError(`no tool named ${unknown.join(', ')} to leave out (the tools: ${MEMORY_TOOLS.join(', ')})`);
  const omitted = new Set(opts.omit ?? []);
  const server = new McpServer(
    { name: 'scroll-memory', title: 'Scroll memory', version: opts.version ?? '0.0.0' },
    {
      capabilities: { tools: {}, resources: {} },
      instructions:
        "Scroll's memory of this workspace: every agent conversation, tool call and output, exact. " +
        'Search it with search_history, read events in full with read_events, see its sessions and eviction index with history_index.',
    },
  );
  const reader = new LogReader(opts);
  const toolError = (e: unknown): CallToolResult => ({ content: [{ type: 'text', text: errorMessage(e) }], isError: true });
  const json = (value: unknown): CallToolResult => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });
  const guarded =
    <A>(fn: (args: A) => CallToolResult | Promise<CallToolResult>) =>
    async (args: A): Promise<CallToolResult> => {
      try {
        return await fn(args);
      } catch (e) {
        return toolError(e);
      }
    };

  const stringOrList = (what: string) =>
    z.union([z.string().min(1), z.array(z.string().min(1)).min(1).max(20)]).optional().describe(what);
  const seqNumber = z.number().int().min(1);

  addTool(
    server,
    'search_history',
    {
      title: 'Search Scroll memory',
      description: prompt('mcp/search_history'),
      inputSchema: z
        .object({
          query: z.string().min(1).max(2000).describe('Words to look for, e.g. "TypeError user_id migration". Not a regex; quotes are not needed.'),
          k: z.number().int().min(1).max(MAX_SEARCH_K).optional().describe(`How many hits (default 10, at most ${MAX_SEARCH_K}).`),
          kind: stringOrList('Only events of this kind or kinds: user_message, model_turn, tool_call, tool_result, kernel_exec, kernel_output, eviction, note, conversation.'),
          role: stringOrList('Only events of this role or roles: user, assistant, tool, system, kernel.'),
          session: z.string().min(1).optional().describe('Only this session (ids as history_index lists them).'),
          source: z.enum(SESSION_SOURCES).optional().describe('Only sessions from this source: scroll (Scroll itself), mcp (clients of this server) or an imported agent (claude-code, codex, ...).'),
          seq_from: seqNumber.optional().describe('Only events at or after this seq.'),
          seq_to: seqNumber.optional().describe('Only events at or before this seq.'),
          time_from: z.string().optional().describe('Only events at or after this time, ISO 8601 (e.g. 2026-03-01 or 2026-03-01T10:00:00Z; a date alone is its midnight UTC).'),
          time_to: z.string().optional().describe('Only events at or before this time, ISO 8601.'),
        })
        .strict(),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded((a: SearchArgs) => json(searchHistory(reader.log(), a))),
    omitted,
  );

  addTool(
    server,
    'read_events',
    {
      title: 'Read Scroll events',
      description: prompt('mcp/read_events'),
      inputSchema: z
        .object({
          seq: seqNumber.optional().describe('One event by its seq (from search_history or history_index).'),
          seqs: z.array(seqNumber).min(1).max(MAX_LISTED_SEQS).optional().describe(`Several events by seq (at most ${MAX_LISTED_SEQS}).`),
          range: z.string().optional().describe(`Every event of an inclusive seq range, "A..B" (also "A-B", "A to B"); at most ${MAX_RANGE_SPAN} seqs wide.`),
          cursor: z.string().optional().describe('next_cursor of the previous page, to read on (give nothing else but max_chars).'),
          max_chars: z.number().int().min(MIN_PAGE_CHARS).max(MAX_PAGE_CHARS).optional().describe(`Content characters per page (default ${DEFAULT_PAGE_CHARS}).`),
        })
        .strict(),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded((a: PageRequest) => json(readEventPage(reader.log(), a))),
    omitted,
  );

  addTool(
    server,
    'history_index',
    {
      title: 'Scroll sessions and eviction index',
      description: prompt('mcp/history_index'),
      inputSchema: z
        .object({
          session: z.string().min(1).optional().describe("A session id: returns that session's eviction index instead of the list of sessions."),
          source: z.enum(SESSION_SOURCES).optional().describe('List only sessions from this source.'),
          limit: z.number().int().min(1).max(MAX_SESSIONS_LISTED).optional().describe(`Sessions per answer (default 100, newest first).`),
          offset: z.number().int().min(0).optional().describe('Skip this many sessions (paging through a long list).'),
        })
        .strict(),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    guarded((a: IndexArgs) => json(historyIndex(reader.log(), a))),
    omitted,
  );

  let runPython: MemoryServer['runPython'];
  let cells: PythonCells | undefined;
  if (opts.readOnly) runPython = { offered: false, reason: 'read-only (untrusted workspace): its cells would be written to the log' };
  else if (omitted.has('run_python')) runPython = { offered: false, reason: 'left out (--omit)' };
  else if (!opts.sandbox.sandboxed || !opts.sandbox.probe.available) runPython = { offered: false, reason: `the kernel would not be sandboxed: ${opts.sandbox.refusal ?? opts.sandbox.summary}` };
  else {
    runPython = { offered: true };
    let session: string | undefined;
    const python = new PythonCells({
      dbPath: opts.dbPath,
      workspace: opts.workspace,
      sandbox: opts.sandbox.probe,
      python: opts.python,
      driver: opts.driver,
      onWarning: opts.onWarning,
      session: () => (session ??= clientSessionId(server.server.getClientVersion()?.name ?? 'client')),
    });
    cells = python;
    addTool(
      server,
      'run_python',
      {
        title: 'Run Python over Scroll memory',
        description: prompt('mcp/run_python'),
        inputSchema: z
          .object({
            code: z.string().min(1).max(MAX_CELL_CHARS).describe('Python 3 source; print what you want back (e.g. print(len(ms.search("error", k=50))))'),
            timeout_seconds: z.number().int().min(1).max(MAX_CELL_TIMEOUT_S).optional().describe(`Time limit of the cell (default ${DEFAULT_CELL_TIMEOUT_S}).`),
          })
          .strict(),
        annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      },
      async (a: { code: string; timeout_seconds?: number }, extra) => {
        try {
          const r = await python.run(a.code, { timeoutMs: (a.timeout_seconds ?? DEFAULT_CELL_TIMEOUT_S) * 1000, signal: extra.signal });
          return {
            content: [{ type: 'text', text: `${r.text}\n\n[cell logged as seq ${r.execSeq}, output as seq ${r.outputSeq}, session ${r.session}]` }],
            isError: r.isError,
          };
        } catch (e) {
          return toolError(e);
        }
      },
      omitted,
    );
  }

  registerResources(server, reader);

  return {
    server,
    runPython,
    async close() {
      await cells?.dispose();
      await server.close().catch(() => undefined);
      reader.close();
    },
  };
}

interface ToolConfig {
  title: string;
  description: string;
  /** A zod object schema: the SDK validates the arguments with it and lists it as JSON Schema. */
  inputSchema: z.ZodTypeAny;
  annotations?: ToolAnnotations;
}
type ToolHandler = (args: any, extra: { signal: AbortSignal }) => Promise<CallToolResult>;

/**
 * `McpServer.registerTool` with plain types: its generic signature infers the handler's argument
 * type from the zod schema through the SDK's zod v3/v4 compatibility types, which sends the
 * TypeScript compiler out of memory (modelcontextprotocol/typescript-sdk#985, #1423). The SDK still
 * validates every call against the schema at run time; the handlers declare what they receive.
 */
function addTool(server: McpServer, name: string, config: ToolConfig, handler: ToolHandler, omitted: ReadonlySet<string>): void {
  if (omitted.has(name)) return;
  (server.registerTool as unknown as (n: string, c: ToolConfig, h: ToolHandler) => unknown).call(server, name, config, handler);
}

/** The read-only connection, opened when first needed (the log may not exist when the server starts). */
class LogReader {
  private opened?: EventLog;
  constructor(private readonly opts: MemoryServerOptions) {}

  log(): EventLog {
    if (this.opened) return this.opened;
    if (!existsSync(this.opts.dbPath)) {
      throw new InvalidInputError(`no Scroll memory at ${this.opts.dbPath} yet: nothing has been recorded in this workspace`);
    }
    this.opened = EventLog.open({ path: this.opts.dbPath, readonly: true, driver: this.opts.driver, onWarning: this.opts.onWarning });
    return this.opened;
  }

  close(): void {
    this.opened?.close();
    this.opened = undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// search_history

interface SearchArgs {
  query: string;
  k?: number;
  kind?: string | string[];
  role?: string | string[];
  session?: string;
  source?: string;
  seq_from?: number;
  seq_to?: number;
  time_from?: string;
  time_to?: string;
}

function isoTime(value: string | undefined, field: string): string | undefined {
  if (value === undefined) return undefined;
  const t = Date.parse(value.trim());
  if (!/^\d{4}-\d{2}-\d{2}/.test(value.trim()) || Number.isNaN(t)) {
    throw new InvalidInputError(`${field} must be an ISO 8601 date or time such as 2026-03-01 or 2026-03-01T10:00:00Z (got ${JSON.stringify(value)})`);
  }
  return new Date(t).toISOString();
}

export function searchHistory(log: EventLog, a: SearchArgs) {
  const k = a.k ?? 10;
  const opts: SearchOptions = {
    kind: a.kind,
    role: a.role,
    session: a.session,
    seqFrom: a.seq_from,
    seqTo: a.seq_to,
    tsFrom: isoTime(a.time_from, 'time_from'),
    tsTo: isoTime(a.time_to, 'time_to'),
  };
  if (opts.seqFrom !== undefined && opts.seqTo !== undefined && opts.seqTo < opts.seqFrom) throw new InvalidInputError(`seq_to ${opts.seqTo} is before seq_from ${opts.seqFrom}`);
  if (opts.tsFrom && opts.tsTo && opts.tsTo < opts.tsFrom) throw new InvalidInputError(`time_to ${opts.tsTo} is before time_from ${opts.tsFrom}`);
  // Imported events carry their agent in meta.source, which search filters on; Scroll's own and this
  // server's clients' sessions are told apart by their ids (sessionSource.ts), checked on the ranked hits.
  const result =
    a.source === undefined
      ? log.search(a.query, { ...opts, k })
      : CAPTURED.has(a.source)
        ? log.search(a.query, { ...opts, k, source: a.source })
        : searchSource(log, a.query, opts, a.source, k);
  const out: Record<string, unknown> = {
    hits: result.hits.map(hitJson),
    broadened: result.broadened,
    terms: result.terms,
  };
  if (result.pruned.length) out.pruned = result.pruned;
  if (result.message) out.message = result.message;
  return out;
}

/** Scroll's own sessions and MCP clients' have no meta.source: hits are ranked as usual, then kept by their session's source. */
function searchSource(log: EventLog, query: string, opts: SearchOptions, source: string, k: number): SearchResult {
  const page = Math.max(50, k * 5);
  const hits: SearchHit[] = [];
  let result: SearchResult | undefined;
  for (let round = 0, offset = 0; round < SOURCE_SCAN_ROUNDS && hits.length < k; round++, offset += page) {
    result = log.search(query, { ...opts, k: page, offset });
    for (const h of result.hits) {
      if (sessionSource(h.session) === source) hits.push(h);
      if (hits.length >= k) break;
    }
    if (result.hits.length < page) break;
  }
  return { ...result!, hits, broadened: hits.some((h) => h.broadened) };
}

function hitJson(h: SearchHit) {
  return {
    seq: h.seq,
    uri: scrollUriString({ kind: 'event', seq: h.seq }),
    score: Math.round(h.score * 1000) / 1000,
    kind: h.kind,
    role: h.role,
    name: h.name,
    session: h.session,
    source: sessionSource(h.session),
    time: h.ts,
    headline: h.headline,
    snippet: h.snippet,
    broadened: h.broadened,
  };
}

// ---------------------------------------------------------------------------------------------
// history_index

function sessionJson(s: SessionInfo) {
  return {
    session: s.session,
    source: sessionSource(s.session),
    first_seq: s.firstSeq,
    last_seq: s.lastSeq,
    first_time: s.firstTs,
    last_time: s.lastTs,
    events: s.events,
    tokens: s.tokens,
    index_uri: scrollUriString({ kind: 'index', session: s.session }),
  };
}

interface IndexArgs {
  session?: string;
  source?: string;
  limit?: number;
  offset?: number;
}

export function historyIndex(log: EventLog, a: IndexArgs) {
  const sessions = log.sessions();
  if (a.session !== undefined) {
    const s = sessions.find((x) => x.session === a.session);
    if (!s) {
      const near = sessions.filter((x) => x.session.includes(a.session!)).slice(0, 5).map((x) => x.session);
      throw new InvalidInputError(`no session ${JSON.stringify(a.session)} in this log${near.length ? ` (did you mean ${near.join(', ')}?)` : ''}; history_index without session lists them`);
    }
    return { ...sessionJson(s), index: sessionIndex(log, s.session) };
  }
  const listed = sessions.filter((s) => a.source === undefined || sessionSource(s.session) === a.source).reverse();
  const offset = a.offset ?? 0;
  const limit = a.limit ?? 100;
  const page = listed.slice(offset, offset + limit);
  return { sessions: page.map(sessionJson), total: listed.length, ...(offset + limit < listed.length ? { next_offset: offset + limit } : {}) };
}

/** The session's eviction index as `ms.index()` gives it: the last eviction's snapshot, or the blocks each recorded. */
function sessionIndex(log: EventLog, session: string) {
  const last = log.lastEviction(session);
  if (!last) return [];
  const blocks = indexFromSnapshot(last) ?? indexFromBlocks(log.evictions(session));
  return blocks.map((b) => {
    const from = Number(b.from_seq);
    const to = Number(b.to_seq);
    return Number.isSafeInteger(from) && Number.isSafeInteger(to) ? { ...b, uri: scrollUriString({ kind: 'range', from, to }) } : b;
  });
}

// ---------------------------------------------------------------------------------------------
// resources: the editor's `scroll:` documents, as text

function eventText(e: ReadEvent, maxChars: number): { text: string; cut: boolean } {
  const head = [`#${e.seq}`, e.ts, `session ${e.session}`, `${e.kind}/${e.role}`];
  if (e.name) head.push(e.name);
  const lines = [head.join('  ')];
  if (e.headline) lines.push(`headline: ${e.headline}`);
  const note = previewOnlyNote(e);
  if (note) lines.push(`[${note}]`);
  const cut = e.content.length > maxChars;
  lines.push('', cut ? e.content.slice(0, maxChars) : e.content);
  if (cut) lines.push('', `[${e.content.length - maxChars} more characters: read_events {"seq": ${e.seq}} returns them in pages]`);
  return { text: lines.join('\n'), cut };
}

function resourceError(message: string): McpError {
  return new McpError(ErrorCode.InvalidParams, message);
}

function registerResources(server: McpServer, reader: LogReader): void {
  const target = (uri: URL) => {
    const t = parseScrollPath(uri.pathname);
    if (!t) throw resourceError(`${uri.href} is not a Scroll address (scroll:/event/<seq>.md, scroll:/range/<a>-<b>.md, scroll:/index/<session>.md)`);
    return t;
  };
  const log = () => {
    try {
      return reader.log();
    } catch (e) {
      throw resourceError(errorMessage(e));
    }
  };
  const text = (uri: URL, body: string): ReadResourceResult => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: body }] });

  server.registerResource(
    'event',
    new ResourceTemplate('scroll:/event/{seq}.md', {
      list: () => {
        let recent: ReadEvent[] = [];
        try {
          recent = reader.log().recent(25);
        } catch {
          // no log yet: nothing to list
        }
        return {
          resources: recent.reverse().map((e) => ({ uri: scrollUriString({ kind: 'event', seq: e.seq }), name: `#${e.seq} ${e.kind}/${e.role} (${e.session})`, mimeType: 'text/plain' })),
        };
      },
    }),
    { title: 'Scroll event', description: 'One event of the memory, in full (the 25 newest are listed).', mimeType: 'text/plain' },
    (uri) => {
      const t = target(uri);
      if (t.kind !== 'event') throw resourceError(`${uri.href} is not an event address`);
      const e = log().get(t.seq, { keepPreview: true });
      if (!e) throw resourceError(`no event with seq ${t.seq} (the log holds ${log().maxSeq() ? `1..${log().maxSeq()}` : 'no events'})`);
      return text(uri, eventText(e, RESOURCE_MAX_CHARS).text);
    },
  );

  server.registerResource(
    'range',
    new ResourceTemplate('scroll:/range/{from}-{to}.md', { list: undefined }),
    { title: 'Scroll range', description: `The events of an inclusive seq range (at most ${MAX_RANGE_SPAN} seqs).`, mimeType: 'text/plain' },
    (uri) => {
      const t = target(uri);
      if (t.kind !== 'range') throw resourceError(`${uri.href} is not a range address`);
      if (t.to < t.from) throw resourceError(`range ${t.from}..${t.to} is empty (the end is before the start)`);
      if (t.to - t.from + 1 > MAX_RANGE_SPAN) throw resourceError(`range ${t.from}..${t.to} is too large; at most ${MAX_RANGE_SPAN} seqs`);
      const events = log().range(t.from, t.to, { keepPreview: true });
      if (events.length === 0) throw resourceError(`no events in ${t.from}..${t.to} (the log holds ${log().maxSeq() ? `1..${log().maxSeq()}` : 'no events'})`);
      const parts: string[] = [];
      let left = RESOURCE_MAX_CHARS;
      for (const e of events) {
        if (left <= 0) {
          parts.push(`[events ${e.seq}..${t.to} not shown: read_events {"range": "${e.seq}..${t.to}"} returns them in pages]`);
          break;
        }
        const { text: one } = eventText(e, left);
        left -= Math.min(e.content.length, left);
        parts.push(one);
      }
      return text(uri, parts.join('\n\n────────\n\n'));
    },
  );

  server.registerResource(
    'index',
    new ResourceTemplate('scroll:/index/{session}.md', {
      list: () => {
        let sessions: SessionInfo[] = [];
        try {
          sessions = reader.log().sessions().reverse().slice(0, 50);
        } catch {
          // no log yet
        }
        return { resources: sessions.map((s) => ({ uri: scrollUriString({ kind: 'index', session: s.session }), name: `${s.session} (${s.events} events)`, mimeType: 'application/json' })) };
      },
    }),
    { title: "A session's eviction index", description: 'The session, its seq span and its eviction index (the 50 newest sessions are listed).', mimeType: 'application/json' },
    (uri) => {
      const t = target(uri);
      if (t.kind !== 'index') throw resourceError(`${uri.href} is not an index address`);
      let body;
      try {
        body = historyIndex(log(), { session: t.session });
      } catch (e) {
        throw resourceError(errorMessage(e));
      }
      return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(body, null, 1) }] };
    },
  );
}
