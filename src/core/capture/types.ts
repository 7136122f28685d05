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
  /**
   * The file has not changed for SETTLED_AFTER_MS: whatever it shows in progress (a reply its
   * editor was still writing) will not go on, so a reader keeps it as it stands instead of waiting.
   */
  settled?: boolean;
}

/**
 * How long a file must stay unchanged before what it holds in progress counts as abandoned (the
 * window that wrote it closed or crashed mid-reply). A live reply rewrites its file every few
 * seconds; a reply waiting for the user (a tool to confirm) can wait longer, so a reply kept at
 * this point is marked unfinished and its later end, if it comes, is added beside it.
 */
export const SETTLED_AFTER_MS = 10 * 60_000;

/** A problem a reader found in one record or file: reported with its origin, the rest is imported. */
export interface CaptureProblem {
  origin: RecordOrigin;
  message: string;
  /** True for "unknown format version": reported once per file, not once per line. */
  perFile?: boolean;
}

/** Records a reader left out on purpose (not a problem), counted with why. */
export interface SkippedRecords {
  reason: string;
  records: number;
}

/** What a reader returns for one record (JSONL) or one file (JSON). */
export interface ReaderOutput {
  events: CapturedEvent[];
  problems: CaptureProblem[];
  /** The session's working directory when the source records one (workspace scope filter). */
  cwd?: string;
  /** Records deliberately not turned into events (e.g. Scroll's own turns in a Copilot Chat session file). */
  skipped?: SkippedRecords[];
  /**
   * Left out because it is still being written (a reply in progress, the origin not settled): the
   * importer reads the file again once it has settled, even if it has not changed.
   */
  inProgress?: string;
}

/**
 * One source's reader. `format` says how the importer feeds it:
 *  - 'jsonl': the file is streamed line by line (never held whole); `read` gets each line's parsed
 *    JSON. Reading may start mid-file (after a cursor), so a reader must not depend on earlier lines:
 *    what it needs about the file (e.g. a session id in the file name) comes from `origin.path`.
 *  - 'json': the file is one JSON document; `read` gets it parsed, once per (changed) file, and
 *    returns all of its events (the database drops the ones already in the log).
 *  - 'text': as 'json', but `read` gets the file's text (a file whose lines are patches of one
 *    object, like VS Code's chat session logs, is neither one document nor independent records).
 * `formatOf`, when given, decides per file (Gemini CLI: `.jsonl` chats beside `.json` checkpoints).
 * Pure: no I/O, no clock, no randomness.
 */
export type CaptureFormat = 'jsonl' | 'json' | 'text';

export interface CaptureReader {
  readonly source: CaptureSource;
  readonly format: CaptureFormat;
  formatOf?(path: string): CaptureFormat;
  read(record: unknown, origin: RecordOrigin): ReaderOutput;
}

/** Where to look for a source's files (the importer's discovery; I/O, kept out of the readers). */
export interface LocateOptions {
  /** The user's home folder (`$HOME`; tests point it at a fake home). */
  home: string;
  /** The editor's folder of per-workspace storage (the parent of `context.storageUri`), when known. */
  workspaceStorage?: string;
  /** The editor's folder of extensions' global storage (the parent of `context.globalStorageUri`), when known. */
  globalStorage?: string;
  /** The workspace folders, when the caller imports by scope: a source whose folders are named after the project (Gemini CLI's hashes, VS Code's workspace storage) lists only theirs. */
  scope?: readonly string[];
}

/** A source the importer can capture: its reader and where its files are. */
export interface CaptureSourceSpec {
  reader: CaptureReader;
  /** The source's transcript files that exist now, absolute paths. Missing folders give []. */
  locate(opts: LocateOptions): string[];
  /**
   * The working directory of a file whose records name none, from what is around it (I/O): the
   * workspace a VS Code storage folder belongs to, the scope folder whose hash names a Gemini CLI
   * project folder, a Cline task's environment details in its sibling file. Undefined: unknown.
   */
  cwdOf?(path: string, scope?: readonly string[]): string | undefined;
}

/**
 * `meta.sessionFrom` of an event whose record names no session, so its reader took the file's name:
 * the importer moves it to the session the file's other records name.
 */
export const SESSION_FROM_FILE = 'file name';
