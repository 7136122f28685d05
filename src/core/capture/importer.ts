/**
 * The capture importer: streams a source's files through its reader and appends the events to the
 * log, each source record once (docs/ARCHITECTURE.md, "Capture").
 *
 * - Uniqueness is the database's: `capture_records` has the key (source, record id), and the claim
 *   (INSERT OR IGNORE) runs in the transaction that appends the event, so two importers at once
 *   (two windows, the editor and `scroll import --watch`) append each record once.
 * - JSONL files are streamed line by line from their cursor (`capture_cursors`: the end of the last
 *   complete line read, the file's size and mtime then), in chunks that commit every
 *   `chunkEvents` events or `chunkBytes` bytes: memory stays bounded however large the file. A
 *   cursor is written in the transaction of the events up to it, so it is never ahead of them.
 * - A last line without its newline that does not parse is not consumed: a writer is still
 *   writing it. The next import reads it again, complete.
 * - Every string goes through the log's own append path, which redacts secrets (content, meta,
 *   session, names) before anything is written.
 * - Binaries (images) go to the payload store as bytes; the event's meta.binaries names them
 *   (`{payload, mediaType, bytes}`), a line of its content too, and `event_binaries` lists them so
 *   payload gc keeps them.
 */
import { createReadStream, readFileSync, statSync } from 'node:fs';
import { isUtf8 } from 'node:buffer';
import { resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import type { Database, Statement } from '../db';
import { errorMessage } from '../errors';
import type { EventLog } from '../log/eventLog';
import type { NewEvent } from '../types';
import { sourceLines } from './lines';
import { CONTENT_ID_PREFIX } from './readerKit';
import { SESSION_FROM_FILE, SETTLED_AFTER_MS, type CaptureProblem, type CaptureReader, type CapturedEvent, type CaptureSource, type ReaderOutput, type SkippedRecords } from './types';

export interface ImportOptions {
  /**
   * Workspace folders (every folder of a multi-root workspace): only sessions whose working directory
   * is one of them or inside one are imported. A file whose records name no working directory is
   * listed in `noCwd` (to be offered to the user), not imported. Undefined: every file is imported.
   */
  scope?: readonly string[];
  /** Only events at or after this time (files last modified before it are not read). Cursors are then left as they were. */
  since?: Date;
  /** Count what would be appended; write nothing. */
  dryRun?: boolean;
  /** Commit every this many events (default 1000). */
  chunkEvents?: number;
  /** …or once the chunk's content reaches this many bytes (default 16 MiB). */
  chunkBytes?: number;
  /** Told after each committed chunk and at each file's end. */
  onProgress?: (p: ImportProgress) => void;
  /** The working directory of a file whose records name none (the source's `cwdOf`, given the scope). */
  cwdOf?: (path: string) => string | undefined;
  /** The clock that tells a settled file (SETTLED_AFTER_MS), ms since the epoch; tests set it. Default Date.now. */
  now?: () => number;
}

/** What a JSONL file's cursor waits for when its last line was cut short (capture_cursors.waiting). */
const HALF_LINE = 'a half-written last line';

/** The summary's line for a file read with a record still being written left out. */
function waitingMessage(what: string): string {
  const then = what === HALF_LINE ? 'skipped as malformed' : 'kept as it stands';
  return `${what}: left for a later import (${then} once the file has not changed for ${SETTLED_AFTER_MS / 60_000} minutes)`;
}

export interface ImportProgress {
  path: string;
  bytesRead: number;
  bytesTotal: number;
  appended: number;
}

export interface ImportProblem {
  path: string;
  line?: number;
  message: string;
}

export interface ImportSummary {
  source: CaptureSource;
  /** Files looked at. */
  files: number;
  /** Files unchanged since the last import (size and mtime as the cursor recorded): not read. */
  unchanged: number;
  /** Distinct sessions of the events read. */
  sessions: number;
  /** Events appended (would be, with dryRun). */
  appended: number;
  /** Events read whose record was already in the log. */
  present: number;
  /** Events older than `since`. */
  older: number;
  /** Files whose working directory is outside the scope. */
  outOfScope: string[];
  /** Files that record no working directory (scope given): offered, not imported. */
  noCwd: string[];
  /**
   * Left for a later import: last lines without a newline that did not parse yet, and records still
   * being written (a reply in progress), kept as they stand once the file has settled.
   */
  incomplete: ImportProblem[];
  /** Malformed records, unreadable files, unknown format versions (once per file). */
  problems: ImportProblem[];
  /** Records the reader left out on purpose, by reason (e.g. Scroll's own turns in a Copilot Chat file). */
  skipped: SkippedRecords[];
}

interface Cursor {
  path: string;
  source: string;
  offset: number;
  line: number;
  size: number;
  mtime_ms: number;
  cwd: string | null;
  session: string | null;
  /** What the last read left out as still being written (a reply; a JSONL file's cut last line): read again once settled. */
  waiting?: string | null;
}

/** An event on its way to the log, with where its record came from. */
interface Pending {
  event: CapturedEvent;
  path: string;
  line?: number;
  end?: number;
  cwd?: string;
}

/** A value each file read in a run gets from its records (a time, a session), and its events waiting for one. */
class PerFile<V> {
  private readonly values = new Map<string, V>();
  private readonly waiting = new Map<string, Pending[]>();

  get(path: string): V | undefined {
    return this.values.get(path);
  }

  /** A record of the file gave `value`: it is the file's from now on; returns the events that waited for one. */
  found(path: string, value: V): Pending[] {
    this.values.set(path, value);
    const waited = this.waiting.get(path) ?? [];
    this.waiting.delete(path);
    return waited;
  }

  wait(p: Pending): void {
    const list = this.waiting.get(p.path);
    if (list) list.push(p);
    else this.waiting.set(p.path, [p]);
  }

  /** The waiting events were committed as they are: nothing found later reaches them. */
  forgetWaiting(): void {
    this.waiting.clear();
  }
}

const DEFAULT_CHUNK_EVENTS = 1000;
const DEFAULT_CHUNK_BYTES = 16 * 1024 * 1024;

/**
 * Imports into one database file run one at a time in this process (an editor watcher and a command
 * may both call in, through one EventLog or two). Keyed by the file, not the handle: a chunk's
 * transaction stays open while its payload files are synced (an await), and another handle's
 * BEGIN IMMEDIATE in the same thread would then wait for a lock only this thread can release.
 * Other processes are kept apart by SQLite's lock and the (source, record id) key.
 */
const queues = new Map<string, Promise<unknown>>();

function serialised<T>(log: EventLog, run: () => Promise<T>): Promise<T> {
  const key = log.path;
  const before = queues.get(key) ?? Promise.resolve();
  const next = before.then(run, run);
  const settled = next.then(
    () => undefined,
    () => undefined,
  );
  queues.set(key, settled);
  // The last import of a file leaves no entry behind.
  void settled.then(() => {
    if (queues.get(key) === settled) queues.delete(key);
  });
  return next;
}

/**
 * Imports `paths` (files of `reader`'s source) into `log`. The editor's watcher calls it with the
 * changed file; the CLI with every located file. Safe to call again at any time: what is in the log
 * stays, what is new is appended.
 */
export function importFiles(log: EventLog, reader: CaptureReader, paths: readonly string[], opts: ImportOptions = {}): Promise<ImportSummary> {
  return serialised(log, async () => {
    const run = new ImportRun(log, reader, opts);
    for (const p of paths) await run.file(resolve(p));
    return run.summary();
  });
}

/** Imports a stream (stdin: `claude -p … --output-format stream-json | scroll import claude-code --path -`). No cursor. */
export function importStream(log: EventLog, reader: CaptureReader, input: Readable, label: string, opts: ImportOptions = {}): Promise<ImportSummary> {
  return serialised(log, async () => {
    const run = new ImportRun(log, reader, { ...opts, scope: undefined });
    await run.stream(input, label);
    return run.summary();
  });
}

export function inScope(cwd: string, scope: readonly string[]): boolean {
  const c = resolve(cwd);
  return scope.some((root) => {
    const r = resolve(root);
    return c === r || c.startsWith(r.endsWith(sep) ? r : r + sep);
  });
}

class ImportRun {
  private readonly db: Database;
  private readonly writable: boolean;
  private readonly s: ImportSummary;
  private readonly sessions = new Set<string>();
  private readonly chunkEvents: number;
  private readonly chunkBytes: number;
  /** Dry run: records counted as new in this run (so a record is counted once). */
  private readonly seenDry = new Set<string>();
  /** Dry run: where each content id met in this run first occurs (markRepeat). */
  private readonly dryFirstAt = new Map<string, string>();
  private pending: Pending[] = [];
  private pendingBytes = 0;
  /** Per file read in this run: the time of its last record that had one. */
  private readonly fileTime = new PerFile<string>();
  /** Per file read in this run: the session (and its source id) its first record naming one names. */
  private readonly fileSession = new PerFile<{ session: string; sessionId: unknown }>();
  private stmts?: Record<'claim' | 'setSeq' | 'binary' | 'cursor' | 'getCursor' | 'has' | 'firstAt', Statement>;

  constructor(
    private readonly log: EventLog,
    private readonly reader: CaptureReader,
    private readonly opts: ImportOptions,
  ) {
    this.db = log.database;
    this.writable = !log.readonly && !opts.dryRun;
    this.chunkEvents = Math.max(1, opts.chunkEvents ?? DEFAULT_CHUNK_EVENTS);
    this.chunkBytes = Math.max(1, opts.chunkBytes ?? DEFAULT_CHUNK_BYTES);
    this.s = { source: reader.source, files: 0, unchanged: 0, sessions: 0, appended: 0, present: 0, older: 0, outOfScope: [], noCwd: [], incomplete: [], problems: [], skipped: [] };
  }

  summary(): ImportSummary {
    return { ...this.s, sessions: this.sessions.size, skipped: this.s.skipped.map((x) => ({ ...x })) };
  }

  private countSkipped(out: ReaderOutput): void {
    for (const x of out.skipped ?? []) {
      const same = this.s.skipped.find((y) => y.reason === x.reason);
      if (same) same.records += x.records;
      else this.s.skipped.push({ reason: x.reason, records: x.records });
    }
  }

  private get sql() {
    if (!this.stmts) {
      const hasTables = this.db.prepare("SELECT 1 AS x FROM sqlite_schema WHERE type = 'table' AND name = 'capture_records'").get();
      // A read-only log from before schema 3 has no capture tables: nothing of it was captured.
      const none = { run: () => ({ changes: 0, lastInsertRowid: 0 }), get: () => undefined, all: () => [] } as Statement;
      const p = (q: string) => (hasTables ? this.db.prepare(q) : none);
      this.stmts = {
        has: p('SELECT 1 AS x FROM capture_records WHERE source = ? AND record_id = ?'),
        firstAt: p(`SELECT json_extract(e.meta, '$.capture.path') AS path, json_extract(e.meta, '$.capture.line') AS line
                    FROM capture_records c JOIN events e ON e.seq = c.seq WHERE c.source = ? AND c.record_id = ?`),
        getCursor: p('SELECT * FROM capture_cursors WHERE path = ?'),
        claim: this.writable ? p('INSERT OR IGNORE INTO capture_records(source, record_id, seq) VALUES (?, ?, 0)') : none,
        setSeq: this.writable ? p('UPDATE capture_records SET seq = ? WHERE source = ? AND record_id = ?') : none,
        binary: this.writable ? p('INSERT OR IGNORE INTO event_binaries(seq, handle, media_type, bytes) VALUES (?, ?, ?, ?)') : none,
        cursor: this.writable
          ? p(`INSERT INTO capture_cursors(path, source, offset, line, size, mtime_ms, cwd, session, waiting) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
               ON CONFLICT(path) DO UPDATE SET source = excluded.source, offset = excluded.offset, line = excluded.line, size = excluded.size,
               mtime_ms = excluded.mtime_ms, cwd = coalesce(excluded.cwd, capture_cursors.cwd), session = coalesce(excluded.session, capture_cursors.session),
               waiting = excluded.waiting`)
          : none,
      };
    }
    return this.stmts;
  }

  private problem(p: ImportProblem): void {
    this.s.problems.push(p);
  }

  async file(path: string): Promise<void> {
    this.s.files++;
    let st;
    try {
      st = statSync(path);
    } catch (e) {
      this.problem({ path, message: `cannot read: ${errorMessage(e)}` });
      return;
    }
    if (!st.isFile()) {
      this.problem({ path, message: 'not a file' });
      return;
    }
    const cursor = this.sql.getCursor.get(path) as Cursor | undefined;
    if (this.opts.since && st.mtimeMs < this.opts.since.getTime()) {
      this.s.unchanged++;
      return;
    }
    const scope = this.opts.scope;
    if (cursor && scope && cursor.cwd && !inScope(cursor.cwd, scope)) {
      this.s.outOfScope.push(path);
      if (cursor.size !== st.size || cursor.mtime_ms !== st.mtimeMs) this.saveCursor({ ...cursor, size: st.size, mtime_ms: st.mtimeMs });
      return;
    }
    // Read before, found without a working directory and so not imported: still on offer.
    const offered = cursor !== undefined && !cursor.cwd && cursor.offset === 0 && st.size > 0;
    const settled = this.now() - st.mtimeMs >= SETTLED_AFTER_MS;
    // Read before with a reply in progress left out: read again once the file has settled.
    const due = cursor?.waiting != null && settled;
    if (cursor && cursor.size === st.size && cursor.mtime_ms === st.mtimeMs && (!offered || scope) && !due) {
      this.s.unchanged++;
      if (offered) this.s.noCwd.push(path);
      if (cursor.waiting != null) this.s.incomplete.push({ path, message: waitingMessage(cursor.waiting) });
      return;
    }
    const format = this.reader.formatOf?.(path) ?? this.reader.format;
    if (format === 'jsonl') await this.jsonlFile(path, st.size, st.mtimeMs, cursor, settled);
    else await this.jsonFile(path, st.size, st.mtimeMs, cursor, format === 'text', settled);
  }

  private now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  private saveCursor(c: Cursor): void {
    if (!this.writable || this.opts.since) return;
    this.sql.cursor.run(c.path, c.source, c.offset, c.line, c.size, c.mtime_ms, c.cwd, c.session, c.waiting ?? null);
  }

  private async jsonFile(path: string, size: number, mtimeMs: number, cursor: Cursor | undefined, asText: boolean, settled: boolean): Promise<void> {
    let doc: unknown;
    try {
      const bytes = readFileSync(path);
      if (!isUtf8(bytes)) throw new Error('not UTF-8 text');
      const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
      doc = asText ? text : JSON.parse(text);
    } catch (e) {
      this.problem({ path, message: `not valid JSON (${errorMessage(e)}); skipped` });
      return;
    }
    const out = this.reader.read(doc, settled ? { path, settled } : { path });
    const cwd = out.cwd ?? cursor?.cwd ?? this.opts.cwdOf?.(path);
    if (!this.admit(path, cwd)) {
      // Not imported (outside the workspace, or offered): its records' problems are not this import's.
      this.saveCursor({ path, source: this.reader.source, offset: 0, line: 0, size, mtime_ms: mtimeMs, cwd: cwd ?? null, session: null });
      return;
    }
    this.reportProblems(out.problems, new Set());
    this.countSkipped(out);
    for (const event of out.events) await this.add({ event, path, cwd });
    if (out.inProgress) this.s.incomplete.push({ path, message: waitingMessage(out.inProgress) });
    this.queueCursor({
      path, source: this.reader.source, offset: size, line: 0, size, mtime_ms: mtimeMs, cwd: cwd ?? null, session: out.events[0]?.session ?? null,
      waiting: out.inProgress ?? null,
    });
    await this.flush();
  }

  /** Whether a file with this working directory is imported; records why not. */
  private admit(path: string, cwd: string | undefined): boolean {
    const scope = this.opts.scope;
    if (!scope) return true;
    if (cwd === undefined) {
      this.s.noCwd.push(path);
      return false;
    }
    if (!inScope(cwd, scope)) {
      this.s.outOfScope.push(path);
      return false;
    }
    return true;
  }

  private cursorAfterFlush?: Cursor;
  private queueCursor(c: Cursor): void {
    this.cursorAfterFlush = c;
  }

  private async jsonlFile(path: string, size: number, mtimeMs: number, cursor: Cursor | undefined, settled: boolean): Promise<void> {
    // A file smaller than what was read before was rewritten: read it from the start (the records
    // already in the log are recognised by their ids).
    const from = cursor && cursor.offset <= size ? { offset: cursor.offset, line: cursor.line } : { offset: 0, line: 0 };
    let cwd = cursor?.cwd ?? this.opts.cwdOf?.(path);
    let decided = this.opts.scope === undefined || cwd !== undefined;
    if (cwd !== undefined && !this.admit(path, cwd)) return;
    const input = createReadStream(path, { start: from.offset, highWaterMark: 1 << 20 });
    const base = { path, source: this.reader.source, size, mtime_ms: mtimeMs };
    let consumed = { ...from };
    let session: string | null = cursor?.session ?? null;
    const perFile = new Set<string>();
    let held: Pending[] = []; // read before the file's working directory was known (scope given)
    let waiting: string | null = null;
    const progress = (bytesRead: number) => this.opts.onProgress?.({ path, bytesRead, bytesTotal: size - from.offset, appended: this.s.appended });
    try {
      for await (const l of sourceLines(input, from)) {
        if ('tooLong' in l) {
          this.problem({ path, line: l.line, message: `line of ${l.tooLong} bytes is too long to read; skipped` });
          consumed = { offset: l.end, line: l.line };
          continue;
        }
        let value: unknown;
        let parsed = false;
        const text = l.bytes.toString('utf8');
        if (text.trim() === '') parsed = false;
        else if (!isUtf8(l.bytes)) {
          if (l.complete) this.problem({ path, line: l.line, message: 'not UTF-8 text; skipped' });
        } else {
          try {
            value = JSON.parse(text);
            parsed = true;
          } catch (e) {
            if (l.complete) this.problem({ path, line: l.line, message: `not valid JSON (${errorMessage(e)}); skipped` });
          }
        }
        if (!l.complete && !parsed && text.trim() !== '' && settled) {
          // Cut short by a writer that stopped (a crash mid-line): a malformed record. Skipping it
          // lets a writer that resumes the file append records that are read, not glued to it.
          this.problem({ path, line: l.line, message: `last line cut short and the file has not changed for ${SETTLED_AFTER_MS / 60_000} minutes: skipped` });
          consumed = { offset: l.end, line: l.line };
          continue;
        }
        if (!l.complete && !parsed) {
          if (text.trim() !== '') {
            // The same words as when the unchanged file is looked at again (file()).
            this.s.incomplete.push({ path, line: l.line, message: waitingMessage(HALF_LINE) });
            waiting = HALF_LINE; // read again once settled, even if the file does not change
          }
          break; // not consumed: the cursor stays before it
        }
        consumed = { offset: l.end, line: l.line };
        if (!parsed) continue;
        const out = this.reader.read(value, { path, line: l.line });
        this.reportProblems(out.problems, perFile);
        this.countSkipped(out);
        if (out.cwd && cwd === undefined) cwd = out.cwd;
        session ??= out.events[0]?.session ?? null;
        const items = out.events.map((event) => ({ event, path, line: l.line, end: l.end, cwd }));
        if (!decided) {
          held.push(...items);
          if (cwd === undefined && held.length < this.chunkEvents) continue;
          decided = true;
          if (!this.admit(path, cwd)) {
            held = [];
            this.saveCursor({ ...base, offset: 0, line: 0, cwd: cwd ?? null, session });
            return;
          }
          for (const p of held) await this.add({ ...p, cwd });
          held = [];
        } else for (const p of items) await this.add(p);
        this.queueCursor({ ...base, ...consumed, cwd: cwd ?? null, session });
        if (this.pending.length >= this.chunkEvents || this.pendingBytes >= this.chunkBytes) {
          await this.flush();
          progress(consumed.offset - from.offset);
        }
      }
    } catch (e) {
      this.problem({ path, message: `cannot read: ${errorMessage(e)}` });
    } finally {
      input.destroy();
    }
    if (!decided) {
      // The whole file was read and named no working directory.
      if (!this.admit(path, cwd)) {
        this.saveCursor({ ...base, offset: 0, line: 0, cwd: null, session });
        return;
      }
      for (const p of held) await this.add(p);
    }
    this.queueCursor({ ...base, ...consumed, cwd: cwd ?? null, session, waiting });
    await this.flush();
    progress(consumed.offset - from.offset);
  }

  async stream(input: Readable, label: string): Promise<void> {
    this.s.files++;
    const perFile = new Set<string>();
    let cwd: string | undefined;
    for await (const l of sourceLines(input, { offset: 0, line: 0 })) {
      if ('tooLong' in l) {
        this.problem({ path: label, line: l.line, message: `line of ${l.tooLong} bytes is too long to read; skipped` });
        continue;
      }
      const text = l.bytes.toString('utf8');
      if (text.trim() === '') continue;
      let value: unknown;
      try {
        if (!isUtf8(l.bytes)) throw new Error('not UTF-8 text');
        value = JSON.parse(text);
      } catch (e) {
        this.problem({ path: label, line: l.line, message: `${l.complete ? '' : 'last line cut short: '}not valid JSON (${errorMessage(e)}); skipped` });
        continue;
      }
      const out = this.reader.read(value, { path: label, line: l.line });
      this.reportProblems(out.problems, perFile);
      this.countSkipped(out);
      cwd ??= out.cwd;
      for (const event of out.events) await this.add({ event, path: label, line: l.line, cwd });
      if (this.pending.length >= this.chunkEvents || this.pendingBytes >= this.chunkBytes) await this.flush();
    }
    await this.flush();
  }

  private reportProblems(problems: CaptureProblem[], perFile: Set<string>): void {
    for (const p of problems) {
      if (p.perFile) {
        if (perFile.has(p.message)) continue;
        perFile.add(p.message);
      }
      this.problem({ path: p.origin.path, line: p.perFile ? undefined : p.origin.line, message: p.message });
    }
  }

  private async add(p: Pending): Promise<void> {
    const since = this.opts.since;
    if (since) {
      const t = Date.parse(p.event.ts);
      if (!Number.isNaN(t) && t < since.getTime()) {
        this.s.older++;
        return;
      }
    }
    this.placeInTime(p);
    this.placeInSession(p);
    this.pending.push(p);
    this.pendingBytes += p.event.content.length;
    for (const b of p.event.binaries ?? []) this.pendingBytes += b.data.length;
    if (this.pending.length >= this.chunkEvents * 2) await this.flush(); // a huge held-back batch
  }

  /**
   * A record without a time of its own (Claude Code's summaries, file snapshots and titles) takes
   * the time of the record before it in its file, or, before the file's first timed record, of that
   * one (`meta.tsFrom` says which), so an old transcript imported today does not end today. Only
   * when no record of the file read in this run has a time is it stamped at the import.
   */
  private placeInTime(p: Pending): void {
    const e = p.event;
    if (e.ts && !Number.isNaN(Date.parse(e.ts))) {
      for (const w of this.fileTime.found(p.path, e.ts)) this.borrowTs(w, e.ts, 'next record');
      return;
    }
    const last = this.fileTime.get(p.path);
    if (last !== undefined) this.borrowTs(p, last, 'previous record');
    else this.fileTime.wait(p);
  }

  /**
   * An event whose record names no session (`meta.sessionFrom`: its reader took the file's name) is
   * put in the session the file's other records name, before or after it: a transcript renamed or
   * shared under another name stays one session. When none does, it keeps the file's name.
   */
  private placeInSession(p: Pending): void {
    const named = this.fileSession.get(p.path);
    if (p.event.meta?.sessionFrom !== SESSION_FROM_FILE) {
      if (named !== undefined) return; // the file's session is its first named one
      const first = { session: p.event.session, sessionId: p.event.meta?.sessionId };
      for (const w of this.fileSession.found(p.path, first)) this.joinSession(w, first);
      return;
    }
    if (named !== undefined) this.joinSession(p, named);
    else this.fileSession.wait(p);
  }

  private joinSession(p: Pending, named: { session: string; sessionId: unknown }): void {
    const meta: Record<string, unknown> = { ...(p.event.meta ?? {}), sessionFrom: 'the file\'s other records' };
    if (named.sessionId !== undefined) meta.sessionId = named.sessionId;
    p.event = { ...p.event, session: named.session, meta };
  }

  private borrowTs(p: Pending, ts: string, from: 'previous record' | 'next record'): void {
    const meta: Record<string, unknown> = { ...(p.event.meta ?? {}), tsFrom: from };
    if (p.event.ts) meta.sourceTs = p.event.ts; // a time that does not parse, kept as written
    p.event = { ...p.event, ts, meta };
  }

  /** Commits the pending events (each record once) and the cursor that follows them, in one transaction. */
  private async flush(): Promise<void> {
    // Events committed now keep what they have: a time or session found later cannot reach them.
    this.fileTime.forgetWaiting();
    this.fileSession.forgetWaiting();
    const chunk = this.pending;
    for (const p of chunk) this.sessions.add(p.event.session);
    const cursor = this.cursorAfterFlush;
    this.pending = [];
    this.pendingBytes = 0;
    this.cursorAfterFlush = undefined;
    const source = this.reader.source;
    // Where each content id of the chunk first occurs: in the log, or earlier in this chunk (the
    // chunks before are in the log by now, so the map lives for one chunk; a dry run commits
    // nothing, so there it lives for the run).
    const firstAt = this.writable ? new Map<string, string>() : this.dryFirstAt;
    for (const p of chunk) this.markRepeat(p, firstAt);
    if (!this.writable) {
      for (const p of chunk) {
        const key = p.event.recordId;
        if (this.seenDry.has(key) || this.sql.has.get(source, key)) this.s.present++;
        else {
          this.seenDry.add(key);
          this.s.appended++;
        }
      }
      return;
    }
    if (chunk.length === 0 && !cursor) return;
    const sql = this.sql;
    // Records already in the log are not prepared again; the claim inside the transaction decides
    // for the rest (another writer may claim one meanwhile). appendDurably flushes the payload files
    // before its transaction, so an agent's append on the editor's shared handle during the flush
    // commits on its own instead of inside this import's transaction.
    const fresh: Pending[] = [];
    for (const p of chunk) {
      if (sql.has.get(source, p.event.recordId)) this.s.present++;
      else fresh.push(p);
    }
    const binaries: Array<Array<{ payload: string; mediaType: string; bytes: number }>> = [];
    const events = fresh.map((p) => {
      const { event, list } = this.toNewEvent(p);
      binaries.push(list);
      return event;
    });
    await this.log.appendDurably(events, {
      admit: (i) => {
        if (sql.claim.run(source, fresh[i].event.recordId).changes === 1) return true;
        this.s.present++;
        return false;
      },
      inTransaction: (appended, indexes) => {
        for (let j = 0; j < appended.length; j++) {
          const i = indexes[j];
          sql.setSeq.run(appended[j].seq, source, fresh[i].event.recordId);
          for (const b of binaries[i]) sql.binary.run(appended[j].seq, b.payload, b.mediaType, b.bytes);
        }
        this.s.appended += appended.length;
        if (cursor && !this.opts.since) sql.cursor.run(cursor.path, cursor.source, cursor.offset, cursor.line, cursor.size, cursor.mtime_ms, cursor.cwd, cursor.session, cursor.waiting ?? null);
      },
    });
  }

  /**
   * A record repeated byte for byte later in the same file (Claude Code writes its `permission-mode`
   * line again at the end of a session) has the same content-derived id as the first: it is an
   * occurrence of its own, so it gets `@<line>` after the id. The same line read again (a re-read
   * from the start) and a copy of the file under another path still find their first id present.
   */
  private markRepeat(p: Pending, firstAt: Map<string, string>): void {
    const id = p.event.recordId;
    // Only ids made from the record's content (readerKit.contentId): a source's own id met again
    // (Gemini CLI appends a message again as it changes) is the same record.
    if (p.line === undefined || !id.startsWith(CONTENT_ID_PREFIX)) return;
    const here = `${p.path}\u0000${p.line}`;
    let first = firstAt.get(id);
    if (first === undefined) {
      const row = this.sql.firstAt.get(this.reader.source, id) as { path: string | null; line: number | null } | undefined;
      first = row?.path != null && row.line != null ? `${row.path}\u0000${row.line}` : here;
      firstAt.set(id, first);
    }
    if (first !== here && first.startsWith(`${p.path}\u0000`)) p.event = { ...p.event, recordId: `${id}@${p.line}` };
  }

  /** The event as the log's append takes it: origin and source in meta, binaries stored and named. */
  private toNewEvent(p: Pending): { event: NewEvent; list: Array<{ payload: string; mediaType: string; bytes: number }> } {
    const e = p.event;
    const meta: Record<string, unknown> = { ...(e.meta ?? {}) };
    meta.source = this.reader.source;
    if (meta.cwd === undefined && p.cwd !== undefined) meta.cwd = p.cwd;
    meta.capture = { record: e.recordId, path: p.path, ...(p.line !== undefined ? { line: p.line } : {}), ...(p.end !== undefined ? { end: p.end } : {}) };
    let content = e.content;
    const list: Array<{ payload: string; mediaType: string; bytes: number }> = [];
    for (const b of e.binaries ?? []) {
      const put = this.log.payloads.put(Buffer.from(b.data.buffer, b.data.byteOffset, b.data.byteLength), { deferSync: true });
      list.push({ payload: put.handle, mediaType: b.mediaType, bytes: put.bytes });
      content += `${content ? '\n' : ''}[${b.mediaType}, ${put.bytes} bytes: payload ${put.handle}]`;
    }
    if (list.length) meta.binaries = list;
    let ts: string | undefined = e.ts;
    if (!ts || Number.isNaN(Date.parse(ts))) {
      if (ts) meta.sourceTs = ts;
      ts = undefined; // the log stamps it now
    }
    return {
      event: {
        kind: e.kind, role: e.role, content, session: e.session, name: e.name ?? null, ts, meta,
        step: e.step ?? null, toolCallId: e.toolCallId ?? null, parentSeq: e.parentSeq ?? null, headline: e.headline ?? null,
      },
      list,
    };
  }
}

/**
 * Rebuilds the derived capture tables from the log: `capture_records` from every event's
 * meta.capture.record and meta.source, `capture_cursors` from the furthest line each file's events
 * came from (its size and mtime unknown, so the next import reads on from there and checks). For a
 * log restored from a salvage or a copy that lost the tables.
 */
export function rebuildCaptureState(log: EventLog): { records: number; cursors: number } {
  const db = log.database;
  return db.transaction(() => {
    db.exec('DELETE FROM capture_records; DELETE FROM capture_cursors; DELETE FROM event_binaries;');
    db.exec(`INSERT OR IGNORE INTO capture_records(source, record_id, seq)
      SELECT json_extract(meta, '$.source'), json_extract(meta, '$.capture.record'), seq FROM events
      WHERE json_extract(meta, '$.capture.record') IS NOT NULL AND json_extract(meta, '$.source') IS NOT NULL ORDER BY seq`);
    db.exec(`INSERT OR IGNORE INTO event_binaries(seq, handle, media_type, bytes)
      SELECT e.seq, json_extract(b.value, '$.payload'), json_extract(b.value, '$.mediaType'), json_extract(b.value, '$.bytes')
      FROM events e, json_each(e.meta, '$.binaries') b WHERE e.meta LIKE '%"binaries"%' AND json_extract(b.value, '$.payload') IS NOT NULL`);
    db.exec(`INSERT INTO capture_cursors(path, source, offset, line, size, mtime_ms, cwd, session)
      SELECT json_extract(meta, '$.capture.path'), json_extract(meta, '$.source'), max(json_extract(meta, '$.capture.end')),
             max(json_extract(meta, '$.capture.line')), -1, -1, json_extract(meta, '$.cwd'), session FROM events
      WHERE json_extract(meta, '$.capture.end') IS NOT NULL GROUP BY json_extract(meta, '$.capture.path')`);
    const n = (q: string) => Number((db.prepare(q).get() as { n: number }).n);
    return { records: n('SELECT count(*) AS n FROM capture_records'), cursors: n('SELECT count(*) AS n FROM capture_cursors') };
  });
}
