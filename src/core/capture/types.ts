/**
 * The contract between the capture readers (one module per agent whose transcripts Scroll imports)
 * and the importer that appends their events to the log. A reader is a pure function from the
 * source's records to Scroll events: no I/O, no clock, no randomness, so the same file always maps
 * to the same events and re-importing is idempotent.
 */
import type { NewEvent } from '../types';

/** The agents Scroll captures. `session` of a captured event is `<source>:<source's session id>`. */
export const CAPTURE_SOURCES = [
  'claude-code',
  'codex',
  'copilot-chat',
  'cline',
  'roo-code',
  'kilo-code',
  'gemini-cli',
] as const;
export type CaptureSource = (typeof CAPTURE_SOURCES)[number];

/** Binary content (an image the user pasted, a screenshot a tool returned): stored as a payload. */
export interface CapturedBinary {
  /** IANA media type as the source gives it, e.g. `image/png`. */
  mediaType: string;
  /** The bytes, decoded from the source's base64. */
  data: Uint8Array;
}

/**
 * One event a reader produced. `recordId` is unique within the source and stable across re-reads of
 * the same (or a grown) file: the importer enforces uniqueness of (source, recordId) in the
 * database, so a record is appended once whoever imports it and however often.
 * One source record can give several events (a message with text and two tool calls): give each its
 * own recordId, e.g. `<uuid>#0`, `<uuid>#1`.
 */
export interface CapturedEvent extends NewEvent {
  session: string;
  ts: string;
  recordId: string;
  /** Images and other binaries of this event, stored in the payload store and named in meta. */
  binaries?: CapturedBinary[];
}

/** Where a record came from, for error messages (`path:line`) and meta. */
export interface RecordOrigin {
  path: string;
  /** 1-based line of a JSONL record; absent for a whole-file JSON source. */
  line?: number;
}

/** A problem a reader found in one record or file: reported with its origin, the rest is imported. */
export interface CaptureProblem {
  origin: RecordOrigin;
  message: string;
  /** True for "unknown format version": reported once per file, not once per line. */
  perFile?: boolean;
}

/** What a reader returns for one record (JSONL) or one file (JSON). */
export interface ReaderOutput {
  events: CapturedEvent[];
  problems: CaptureProblem[];
  /** The session's working directory when the source records one (workspace scope filter). */
  cwd?: string;
}
