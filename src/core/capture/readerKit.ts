/**
 * Small pure helpers the capture readers share: record ids for records that carry none, the
 * `note` that keeps a record the reader does not map, and safe field access on untyped JSON.
 */
import { createHash } from 'node:crypto';
import type { CaptureSource, CapturedBinary, CapturedEvent } from './types';

export type Json = Record<string, unknown>;

export function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** How a record id made from the record's content starts (contentId). */
export const CONTENT_ID_PREFIX = 'h:';

/**
 * A record id for a record that has none of its own: the hash of its JSON. Stable across re-reads
 * (the same line parses to the same value) and copies of a file; a byte-identical record at another
 * line of the same file is another occurrence, which the importer tells by adding `@<line>`.
 */
export function contentId(record: unknown): string {
  return CONTENT_ID_PREFIX + createHash('sha256').update(JSON.stringify(record) ?? 'undefined').digest('hex').slice(0, 32);
}

/** JSON text of a value, for tool inputs and records kept whole. Strings are kept as they are. */
export function jsonText(v: unknown): string {
  if (typeof v === 'string') return v;
  return JSON.stringify(v) ?? '';
}

/** A base64 image block (`data:` URL or raw base64 with a media type) as a binary, or undefined. */
export function base64Binary(data: unknown, mediaType: unknown): CapturedBinary | undefined {
  if (typeof data !== 'string') return undefined;
  let type = typeof mediaType === 'string' ? mediaType : 'application/octet-stream';
  let b64 = data;
  const url = /^data:([^;,]+)?(?:;[^,]*)?;base64,/.exec(data);
  if (url) {
    type = url[1] ?? type;
    b64 = data.slice(url[0].length);
  } else if (typeof mediaType !== 'string') return undefined; // a URL, not bytes

  return { mediaType: type, data: Buffer.from(b64, 'base64') };
}

/** `meta.kept` of a record kept whole as a note because its reader does not map it. */
export const KEPT_WHOLE = 'whole record (not mapped)';

/**
 * A record the reader does not map (or maps only in part): kept whole as a `note` whose content is
 * the record's JSON, so nothing of the source is dropped. Large ones go to the payload store as any
 * large content does.
 */
export function keptWhole(source: CaptureSource, record: unknown, recordId: string, session: string, ts: string, meta: Json = {}): CapturedEvent {
  return {
    kind: 'note',
    role: 'system',
    content: jsonText(record),
    session,
    ts,
    recordId,
    meta: { ...meta, source, kept: KEPT_WHOLE },
  };
}

/**
 * The fields of a source object a reader does not map (every key not in `mapped`), or undefined
 * when there are none: readers keep them in meta (`unmapped`), so a field the source adds later,
 * or one no event shows (Claude Code's citations, Codex's item status), is not dropped.
 */
export function unmappedFields(obj: Json, mapped: readonly string[]): Json | undefined {
  let out: Json | undefined;
  for (const [k, v] of Object.entries(obj)) {
    if (mapped.includes(k) || v === undefined) continue;
    (out ??= {})[k] = v;
  }
  return out;
}
