/**
 * Shared types of the Scroll core. Pure TypeScript: nothing here may import `vscode`.
 * This file is the contract between the event log, search, kernel, agent loop and adapters.
 */

/** Kinds of events in the log. The list is open (strings), these are the ones the core writes. */
export const EVENT_KINDS = [
  'user_message',
  'model_turn',
  'tool_call',
  'tool_result',
  'kernel_exec',
  'kernel_output',
  'eviction',
  'note',
  'task',
  'conversation',
] as const;
export type EventKind = (typeof EVENT_KINDS)[number] | (string & {});

export type EventRole = 'user' | 'assistant' | 'tool' | 'system' | 'kernel' | (string & {});

/** What a caller hands to `EventLog.append`. */
export interface NewEvent {
  kind: EventKind;
  role: EventRole;
  content: string;
  session?: string;          // defaults to the log's current session
  name?: string | null;      // tool or function name
  ts?: string;               // ISO 8601; defaults to now
  meta?: Record<string, unknown>;
  step?: number | null;      // agent-loop step index
  toolCallId?: string | null;
  parentSeq?: number | null;
  headline?: string | null;  // one-line, model-written durable note
}

/** An event as stored. `content` is always the full, exact text (payloads resolved by `expand`). */
export interface LogEvent {
  seq: number;
  session: string;
  kind: EventKind;
  role: EventRole;
  name: string | null;
  content: string;
  ts: string;
  meta: Record<string, unknown>;
  step: number | null;
  toolCallId: string | null;
  parentSeq: number | null;
  headline: string | null;
  /** sha256 handle of the externalized full content, when the content was large. */
  payload: string | null;
  /** Size in bytes (UTF-8) of the full content. */
  bytes: number;
  /** Estimated tokens of the full content. */
  tokens: number;
}

export interface SearchOptions {
  k?: number;                         // default 10
  kind?: string | string[];
  role?: string | string[];
  session?: string;
  name?: string;
  seqFrom?: number;                   // inclusive
  seqTo?: number;                     // inclusive
  tsFrom?: string;                    // ISO, inclusive
  tsTo?: string;                      // ISO, inclusive
  source?: string;                    // captured events of one agent (meta.source: 'claude-code', 'codex', …)
  snippet?: boolean;                  // default true
  offset?: number;                    // paging
}

export interface SearchHit {
  seq: number;
  score: number;                      // higher is better (negated bm25)
  kind: string;
  role: string;
  session: string;
  ts: string;
  name: string | null;
  headline: string | null;
  snippet: string;                    // matched terms wrapped in « » markers
  /** True when the event is listed for another reason than matching every term (`match` says which). */
  broadened: boolean;
  /**
   * Why the event is listed: it matches every term; only some of them (the query was broadened);
   * or it is next to a strong match in its session (context), whatever it matches itself; or
   * (hybrid search only) its embedding is close to the query's, whatever words it holds (similar).
   */
  match?: 'every' | 'some' | 'context' | 'similar';
}

export interface SearchResult {
  hits: SearchHit[];
  broadened: boolean;
  /** Terms actually used after normalisation and pruning (for display/debugging). */
  terms: string[];
  /** Terms dropped as stop words or too common. */
  pruned: string[];
  /** The pruned words that were too common, with how many of the events searched hold them. */
  ignored?: { word: string; events: number; of: number }[];
  /** Set when the query could not be run (empty after normalisation, etc.): a human-readable reason. */
  message?: string;
  /** Set when the ranking fused BM25 with embedding similarity (src/core/search/hybrid.ts): the model, and how many hits only it found. */
  hybrid?: { model: string; similarOnly: number };
}

export interface SessionInfo {
  session: string;
  firstSeq: number;
  lastSeq: number;
  firstTs: string;
  lastTs: string;
  events: number;
  tokens: number;
}

export interface LogStats {
  events: number;
  sessions: number;
  bytes: number;          // database file size (+ WAL)
  payloads: number;
  payloadBytes: number;
  schemaVersion: number;
  driver: string;         // 'better-sqlite3' | 'node:sqlite'
  path: string;
}

/** Rough token estimate used everywhere a model tokenizer is not available: ~4 chars per token. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
