/**
 * The meta the agent loop writes on its events, as one contract: a type, one writer and one reader
 * for each of `model_turn`, `eviction` and `tool_result`. Every reader of those metas (the working
 * view and its rebuild, `ms.index()` on the host, the panel's index tree and timeline, the editor's
 * index and segment tabs) goes through the readers here; `kernel/scroll_ms.py` mirrors
 * `indexFromSnapshot`/`indexFromBlocks`, and `test/vectors/eviction-vectors.json` holds both
 * languages to the same answers.
 *
 * Meta is JSON in the `events.meta` column; field names are the ones logs have always carried
 * (camelCase on model_turn and tool_result, snake_case on eviction), so old logs read unchanged.
 */

// -------------------------------------------------------------------------------------------------
// Shared shapes

/** A segment's index title, as the model writes it (or the fallback builds it). */
export interface IndexTitle {
  /** What the user asked for / what was being worked on. */
  task: string;
  /** Where it stood at the end of the segment (found, failed, decided...). */
  state: string;
  /** What was about to happen next. */
  next: string;
}

/** One block of the merged eviction index, as an eviction event's `meta.index` records it. */
export interface IndexSnapshotEntry {
  level: number;
  from_seq: number;
  to_seq: number;
  segments: number;
  title: IndexTitle;
}

/** A title field the event does not carry (missing, not a string, or blank). */
export const MISSING_TITLE_FIELD = '—';

/**
 * The `meta` column's text as an object, as `kernel/scroll_types.py` `_json_obj` reads it: `{}` for
 * nothing, `{ raw }` for text that is not JSON, `{ value }` for JSON that is not an object.
 */
export function parseMeta(text: unknown): Record<string, unknown> {
  if (typeof text !== 'string' || text === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { raw: text };
  }
  return isPlainObject(value) ? value : { value };
}

// -------------------------------------------------------------------------------------------------
// model_turn

/** `model_turn.meta`: the view sent with one model call and what came back. */
export interface ModelTurnMeta {
  step: number;
  /** Measured size of what was sent at this step (chart it against `budget`). */
  viewTokens: number;
  budget: number;
  /** Messages sent. */
  viewMessages: number;
  /** 0 = normal rendering, 1–2 = previews squeezed to fit. */
  squeeze: 0 | 1 | 2;
  /** Events that left the view in the sweep just before this call (0 if none). */
  evicted: number;
  /** That sweep's eviction event. */
  evictionSeq: number | null;
  /** Events evicted so far in this session. */
  evictedTotal: number;
  model: string;
  toolCalls: number;
  usage?: { inputTokens?: number; outputTokens?: number };
  cancelled?: true;
}

/** The one writer of `model_turn.meta` (field order as logs have always had it). */
export function writeModelTurnMeta(m: ModelTurnMeta): Record<string, unknown> {
  return {
    step: m.step,
    viewTokens: m.viewTokens,
    budget: m.budget,
    viewMessages: m.viewMessages,
    squeeze: m.squeeze,
    evicted: m.evicted,
    evictionSeq: m.evictionSeq,
    evictedTotal: m.evictedTotal,
    model: m.model,
    toolCalls: m.toolCalls,
    ...(m.usage ? { usage: m.usage } : {}),
    ...(m.cancelled ? { cancelled: true } : {}),
  };
}

/** What a reader gets of a `model_turn.meta`: each field when it has the written type, else absent. */
export interface ReadModelTurnMeta {
  step?: number;
  viewTokens?: number;
  budget?: number;
  viewMessages?: number;
  squeeze?: number;
  evicted?: number;
  evictionSeq?: number | null;
  evictedTotal?: number;
  model?: string;
  toolCalls?: number;
  usage?: { inputTokens?: number; outputTokens?: number };
  cancelled: boolean;
}

/** The one reader of `model_turn.meta`. Numbers are any finite number (what the panel's timeline accepts). */
export function readModelTurnMeta(meta: unknown): ReadModelTurnMeta {
  const m = isPlainObject(meta) ? meta : {};
  const out: ReadModelTurnMeta = { cancelled: m.cancelled === true };
  for (const k of ['step', 'viewTokens', 'budget', 'viewMessages', 'squeeze', 'evicted', 'evictedTotal', 'toolCalls'] as const) {
    const v = finite(m[k]);
    if (v !== undefined) out[k] = v;
  }
  if (m.evictionSeq === null) out.evictionSeq = null;
  else if (finite(m.evictionSeq) !== undefined) out.evictionSeq = m.evictionSeq as number;
  if (typeof m.model === 'string') out.model = m.model;
  if (isPlainObject(m.usage)) {
    const usage: { inputTokens?: number; outputTokens?: number } = {};
    if (finite(m.usage.inputTokens) !== undefined) usage.inputTokens = m.usage.inputTokens as number;
    if (finite(m.usage.outputTokens) !== undefined) usage.outputTokens = m.usage.outputTokens as number;
    out.usage = usage;
  }
  return out;
}

// -------------------------------------------------------------------------------------------------
// eviction

/**
 * `eviction.meta`: the flat fields are the level-0 block of one sweep (inclusive seq span); `index`
 * is the whole merged index after the sweep, oldest first, so the last eviction event alone shows
 * the current index.
 */
export interface EvictionMeta {
  level: 0;
  from_seq: number;
  to_seq: number;
  /** Written by the model (`title_source` 'model') or built from the segment's events ('fallback'). */
  title: IndexTitle;
  title_source: 'model' | 'fallback';
  /** Why the model's title was not used. */
  title_error?: string;
  session: string;
  /** The step about to be called when the sweep ran. */
  step: number;
  /** Turns and events that left the view. */
  groups: number;
  events: number;
  view_tokens_before: number;
  view_tokens_after: number;
  budget: number;
  index: IndexSnapshotEntry[];
}

/** The one writer of `eviction.meta` (field order as logs have always had it; `title_error` only when set). */
export function writeEvictionMeta(m: EvictionMeta): Record<string, unknown> {
  return {
    level: 0,
    from_seq: m.from_seq,
    to_seq: m.to_seq,
    title: m.title,
    title_source: m.title_source,
    ...(m.title_error ? { title_error: m.title_error } : {}),
    session: m.session,
    step: m.step,
    groups: m.groups,
    events: m.events,
    view_tokens_before: m.view_tokens_before,
    view_tokens_after: m.view_tokens_after,
    budget: m.budget,
    index: m.index,
  };
}

/** The level-0 block an eviction event records, as every reader sees it. */
export interface EvictionBlock {
  /** Inclusive seq span that left the view. */
  fromSeq: number;
  toSeq: number;
  /** Each field as written, or `MISSING_TITLE_FIELD` when missing or blank. */
  title: IndexTitle;
  /** Events that left the view (0 when not recorded). */
  events: number;
}

/**
 * The one reader of an eviction's level-0 block, or null when the meta records none (such an event
 * is skipped by every reader, never fatal). Accepts what has been written:
 * - the agent loop's `writeEvictionMeta`: `from_seq`, `to_seq`, `title` at the top level;
 * - the seeded sample history (`test/fixtures/sample-workspace/history`, ingested into sample logs
 *   since the editor harness came in): `block: { fromSeq, toSeq, title }`.
 * So: the span and title of `meta.block` when that is an object, else of `meta`; `from_seq`/`to_seq`
 * or `fromSeq`/`toSeq`; seqs are integers ≥ 1 with to ≥ from.
 */
export function readEvictionMeta(meta: unknown): EvictionBlock | null {
  const m = isPlainObject(meta) ? meta : {};
  const src = isPlainObject(m.block) ? m.block : m;
  const fromSeq = seq(src.from_seq) ?? seq(src.fromSeq);
  const toSeq = seq(src.to_seq) ?? seq(src.toSeq);
  if (fromSeq === undefined || toSeq === undefined || toSeq < fromSeq) return null;
  const events = m.events;
  return {
    fromSeq,
    toSeq,
    title: readIndexTitle(src.title),
    events: typeof events === 'number' && Number.isSafeInteger(events) && events > 0 ? events : 0,
  };
}

/** A title as recorded: each field a non-blank string, else `MISSING_TITLE_FIELD`. */
export function readIndexTitle(v: unknown): IndexTitle {
  const t = isPlainObject(v) ? v : {};
  const s = (x: unknown) => (typeof x === 'string' && x.trim() ? x : MISSING_TITLE_FIELD);
  return { task: s(t.task), state: s(t.state), next: s(t.next) };
}

/** An eviction event as the index queries return it: its seq and its parsed meta. */
export interface EvictionRow {
  seq: number;
  meta: Record<string, unknown>;
}

/** One entry of `ms.index()`: an index block as recorded, plus `event_seq` (the eviction event that recorded it). */
export type IndexEntry = Record<string, unknown> & { event_seq: unknown };

/**
 * `ms.index()` from the last eviction event: its `meta.index` snapshot (when it is a list of
 * objects), each block with that event's `event_seq`; null when the event carries no snapshot.
 * Python: `kernel/scroll_ms.py` `_index_from_snapshot`.
 */
export function indexFromSnapshot(last: EvictionRow): IndexEntry[] | null {
  const snapshot = last.meta.index;
  if (!Array.isArray(snapshot) || !snapshot.every(isPlainObject)) return null;
  return snapshot.map((b) => ({ ...(b as Record<string, unknown>), event_seq: last.seq }));
}

/**
 * `ms.index()` when the last eviction carries no snapshot (logs not written by the agent loop):
 * the blocks each eviction event recorded, oldest first, as recorded — `meta.blocks` (a list),
 * `meta.block` (an object) or the meta itself — each with `event_seq` unless it has one.
 * Python: `kernel/scroll_ms.py` `_index_from_blocks`.
 */
export function indexFromBlocks(rows: Iterable<EvictionRow>): IndexEntry[] {
  const out: IndexEntry[] = [];
  for (const row of rows) {
    const meta = row.meta;
    let blocks: unknown[] | undefined = Array.isArray(meta.blocks) ? meta.blocks : undefined;
    if (blocks === undefined && isPlainObject(meta.block)) blocks = [meta.block];
    for (const block of blocks ?? [meta]) {
      const entry: Record<string, unknown> = isPlainObject(block) ? { ...block } : { block };
      if (!('event_seq' in entry)) entry.event_seq = row.seq;
      out.push(entry as IndexEntry);
    }
  }
  return out;
}

// -------------------------------------------------------------------------------------------------
// tool_result

/** A kernel variable as `scroll_exec` reports it. */
export interface KernelVariableMeta {
  name: string;
  type: string;
  size: string;
}

/**
 * `tool_result.meta`: `isError`, plus what the tool returned as its own meta (`scroll_exec`:
 * `variables`, `durationMs`, `error` (the exception name), `restarted`, `truncated`).
 */
export interface ToolResultMeta {
  isError: boolean;
  variables?: KernelVariableMeta[];
  durationMs?: number;
  error?: string;
  restarted?: true;
  truncated?: true;
  [key: string]: unknown;
}

/** The one writer of `tool_result.meta`: the tool's own meta, then `isError` (which always wins). */
export function writeToolResultMeta(toolMeta: Record<string, unknown> | undefined, isError: boolean): ToolResultMeta {
  return { ...toolMeta, isError };
}

export interface ReadToolResultMeta {
  isError: boolean;
  /**
   * The kernel's variables after the cell, when the result lists them (an empty list means none);
   * absent when it does not, which is not the same: a result without the list changes nothing.
   * Entries without a string name are skipped; `type` defaults to '?', `size` to ''.
   */
  variables?: KernelVariableMeta[];
}

/** The one reader of `tool_result.meta`. */
export function readToolResultMeta(meta: unknown): ReadToolResultMeta {
  const m = isPlainObject(meta) ? meta : {};
  const out: ReadToolResultMeta = { isError: m.isError === true };
  if (Array.isArray(m.variables)) {
    out.variables = [];
    for (const v of m.variables) {
      if (!v || typeof v !== 'object') continue;
      const { name, type, size } = v as Record<string, unknown>;
      if (typeof name !== 'string') continue;
      out.variables.push({ name, type: String(type ?? '?'), size: String(size ?? '') });
    }
  }
  return out;
}

// -------------------------------------------------------------------------------------------------

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function finite(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function seq(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 1 ? v : undefined;
}
