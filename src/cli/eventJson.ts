/**
 * The JSONL event format shared by `scroll ingest` and `scroll export --format jsonl`, so an
 * export reads back identically. Field names are snake_case like the database columns.
 */
import { InvalidInputError } from '../core/errors';
import { previewOnlyNote } from '../core/log/previewOnly';
import type { ReadEvent } from '../core/log/eventLog';
import type { NewEvent } from '../core/types';

/** Fields export writes that ingest recomputes (new seq, derived sizes): accepted and ignored. */
const DERIVED_FIELDS = new Set(['seq', 'payload', 'bytes', 'tokens']);
const KNOWN_FIELDS = new Set(['kind', 'role', 'content', 'session', 'name', 'ts', 'meta', 'headline', 'step', 'tool_call_id', 'parent_seq', 'toolCallId', 'parentSeq']);

/**
 * One event as a JSON object. An event read from its preview only (its payload file cannot be
 * read) says so in `payload_error`, which ingest reports as an unknown field rather than taking in.
 */
export function eventToJson(e: ReadEvent): Record<string, unknown> {
  const note = previewOnlyNote(e);
  return {
    seq: e.seq,
    session: e.session,
    kind: e.kind,
    role: e.role,
    name: e.name,
    ts: e.ts,
    content: e.content,
    meta: e.meta,
    headline: e.headline,
    step: e.step,
    tool_call_id: e.toolCallId,
    parent_seq: e.parentSeq,
    ...(note === undefined ? {} : { payload_error: note }),
  };
}

/**
 * Validates one parsed line and turns it into a NewEvent. `where` names the line in errors.
 * Unknown fields are reported through `unknown` (the caller warns once) rather than silently dropped.
 */
export function jsonToNewEvent(v: Record<string, unknown>, where: string, unknown?: Set<string>): NewEvent {
  for (const f of ['kind', 'role', 'content'] as const) {
    if (typeof v[f] !== 'string') throw new InvalidInputError(`${where}: "${f}" is required and must be a string`);
  }
  const str = (f: string): string | undefined => {
    const x = v[f];
    if (x === undefined || x === null) return undefined;
    if (typeof x !== 'string') throw new InvalidInputError(`${where}: "${f}" must be a string`);
    return x;
  };
  const int = (f: string): number | undefined => {
    const x = v[f];
    if (x === undefined || x === null) return undefined;
    if (typeof x !== 'number' || !Number.isSafeInteger(x)) throw new InvalidInputError(`${where}: "${f}" must be an integer`);
    return x;
  };
  const meta = v.meta;
  if (meta !== undefined && meta !== null && (typeof meta !== 'object' || Array.isArray(meta))) {
    throw new InvalidInputError(`${where}: "meta" must be an object`);
  }
  if (unknown) for (const k of Object.keys(v)) if (!KNOWN_FIELDS.has(k) && !DERIVED_FIELDS.has(k)) unknown.add(k);
  return {
    kind: v.kind as string,
    role: v.role as string,
    content: v.content as string,
    session: str('session'),
    name: str('name') ?? null,
    ts: str('ts'),
    meta: (meta as Record<string, unknown> | undefined) ?? undefined,
    headline: str('headline') ?? null,
    step: int('step') ?? null,
    // snake_case as exported; the camelCase of the TypeScript API is accepted too.
    toolCallId: str('tool_call_id') ?? str('toolCallId') ?? null,
    parentSeq: int('parent_seq') ?? int('parentSeq') ?? null,
  };
}
