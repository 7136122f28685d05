/**
 * Small pieces the Copilot Chat, Cline/Roo/Kilo and Gemini CLI readers share: timestamps, stable
 * content hashes for record ids, base64 and data-URL images, and the two fallback events (thinking,
 * and a record kept whole). Pure: no I/O, no clock.
 */
import { createHash } from 'node:crypto';
import { KEPT_WHOLE, type Json } from './readerKit';
import type { CapturedBinary, CapturedEvent, CaptureSource } from './types';

export type { Json };

/** A record with no timestamp of its own: the importer stamps it when it appends (readers are pure, no clock). */
export const UNKNOWN_TS = '';

/** ISO 8601 from epoch milliseconds or an ISO string; undefined when neither. */
export function toIso(v: unknown): string | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) {
    const d = new Date(v);
    return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
  }
  if (typeof v === 'string' && v) {
    const d = new Date(v);
    return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
  }
  return undefined;
}

/** First 16 hex digits of sha256 of a value's JSON: part of a record id where the source gives none. */
export function contentHash(v: unknown): string {
  return createHash('sha256').update(JSON.stringify(v) ?? 'undefined').digest('hex').slice(0, 16);
}

/** `obj` without the named keys (undefined values dropped), or undefined when nothing is left. */
export function omit(obj: Json, keys: readonly string[]): Json | undefined {
  const out: Json = {};
  for (const [k, v] of Object.entries(obj)) if (!keys.includes(k) && v !== undefined) out[k] = v;
  return Object.keys(out).length ? out : undefined;
}

/** Meta without undefined values (so events compare and serialise the same however built). */
export function cleanMeta(meta: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(meta)) if (v !== undefined) out[k] = v;
  return out;
}

export function decodeBase64(data: string): Uint8Array {
  return new Uint8Array(Buffer.from(data, 'base64'));
}

/** `data:image/png;base64,...` → a binary; undefined for anything else. */
export function dataUrlBinary(url: string): CapturedBinary | undefined {
  const m = /^data:([^;,]+)((?:;[^;,]*)*);base64,(.*)$/s.exec(url);
  if (!m) return undefined;
  return { mediaType: m[1], data: decodeBase64(m[3]) };
}

/** `file:///a/b` → `/a/b` (and `file:///c%3A/x` → `c:/x`); other URIs unchanged. */
export function fileUriToPath(uri: string): string {
  if (!uri.startsWith('file://')) return uri;
  let p = decodeURIComponent(uri.slice('file://'.length).replace(/^[^/]*/, ''));
  if (/^\/[a-zA-Z]:/.test(p)) p = p.slice(1);
  return p;
}

/** Thinking/reasoning: an event of kind `thinking` (as the Claude Code and Codex readers), kept out of the assistant's text. */
export function thinkingEvent(
  source: CaptureSource, session: string, ts: string, recordId: string, text: string, meta: Json,
): CapturedEvent {
  return { kind: 'thinking', role: 'assistant', content: text, session, ts, recordId, meta: cleanMeta({ source, ...meta }) };
}

/** A record the reader does not map: kept whole, its raw JSON as content (`meta.kept` says so, as the other readers do). */
export function rawNote(
  source: CaptureSource, session: string, ts: string, recordId: string, name: string, record: unknown, meta: Json = {},
): CapturedEvent {
  return {
    kind: 'note', role: 'system', name, content: JSON.stringify(record), session, ts, recordId,
    meta: cleanMeta({ source, ...meta, kept: KEPT_WHOLE }),
  };
}

/**
 * Images that came with a message or a tool result, one `note` named `image` each (content empty:
 * the importer describes the stored payload there), so the message's own text stays exactly the source's.
 */
export function imageNotes(
  of: Pick<CapturedEvent, 'session' | 'ts' | 'role' | 'toolCallId' | 'name'>, recordId: string, binaries: CapturedBinary[], meta: Json,
): CapturedEvent[] {
  return binaries.map((b, n) => ({
    kind: 'note', role: of.role, name: 'image', content: '', session: of.session, ts: of.ts, recordId: `${recordId}.image.${n}`,
    toolCallId: of.toolCallId ?? null, meta: cleanMeta({ ...meta, imageOf: of.name ?? undefined, mediaType: b.mediaType }), binaries: [b],
  }));
}
