/**
 * The workspace event log: append-only, durable, searchable. The single source of truth; the FTS
 * index beside it is derived and can be rebuilt. See docs/ARCHITECTURE.md for the contract.
 */
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { openDatabase, isBusyError, isCorruptionError, type Database, type DriverChoice, type Statement } from '../db';
import { DatabaseError, InvalidInputError, ReadonlyLogError, errorMessage } from '../errors';
import type { LogEvent, LogStats, NewEvent, SearchOptions, SearchResult, SessionInfo } from '../types';
import { EventPreparer, type PreparedBatch, type PreparerConfig } from './eventPreparer';
import { PayloadStore } from './payloadStore';
import { beginBulkAppend, type BulkAppend } from './ingest/bulkAppend';
import { Redactor, type RedactionOptions } from './redaction';
import { tableProblems, verifyLog, type LogVerification } from './verify';
import { indexIsCurrent, rebuildSearchIndex, stampIndexVersion, type RebuildOptions } from './rebuildIndex';
import { compactSearchIndex, indexSegments, type CompactOptions, type CompactResult } from './compactIndex';
import { INDEX_BUFFER_BYTES, MIGRATIONS, SCHEMA_VERSION } from './schema';
import { sleepSync } from '../db/sqliteErrors';
import { CHAINED_COLUMNS, GENESIS, HeadFiles, chainHash, chainTip, asStored, ensureChainStart, headFileFor, readMeta, type ChainHead } from './chain';
import { recoverDamagedLog, removeStaleSalvage, repairOnOpen, writeLockFree, type OpenRepair, type RecoveryReport } from './recovery';
import { purgeLog, type PurgeOptions, type PurgeResult } from './purge';
import { recordCleanClose, unchangedSinceCleanClose } from './cleanClose';
import { prepareLogFolder } from '../logFolder';
import { newSessionId } from '../sessionId';
import * as historyQueries from './historyQueries';
import type { EvictionRow } from './eventMeta';

export interface EventLogOptions {
  /** Database file. Default `<workspace>/.scroll/scroll.db`. */
  path?: string;
  /** Workspace folder; default the current directory. Ignored when `path` is given. */
  workspace?: string;
  /** Payload folder. Default `payloads/` beside the database. */
  payloadDir?: string;
  /** Session for events that do not name one. Default a new id per open. */
  session?: string;
  /** Secret redaction: true (default), false, or options (extra patterns). */
  redact?: boolean | RedactionOptions;
  /** Content larger than this many UTF-8 bytes goes to the payload store. Default 8192. */
  payloadThreshold?: number;
  /** Open for reading only: SQLite itself refuses writes; no migrations, no repair. */
  readonly?: boolean;
  driver?: DriverChoice;
  /**
   * Bytes of the database read through a memory map (every connection this open makes). Default
   * the driver's (src/core/db); a long bulk write such as `scroll import` passes 0: its mapped
   * pages would count in its resident set, where the page cache holds them as well.
   */
  mmapBytes?: number;
  /** Told when something needed attention (a corrupt log moved aside, an unreadable payload). */
  onWarning?: (message: string) => void;
  /**
   * More files that keep the chain's head (seq + hash) outside the database, besides
   * `<db>.head.json`: written after every commit, compared by `verify()` (`scroll check`). The
   * editor passes one in its own storage, out of reach of whoever can only write the workspace.
   */
  headMirrors?: string[];
  /**
   * An index built by an older tokenizer (index_version) is rebuilt during the open ('now', the
   * default: the CLI), or left for the caller ('later': the editor runs `rebuildIndexInBackground`
   * with `onlyIfStale`, so opening never holds its thread; `indexStale` tells it to).
   */
  reindexStale?: 'now' | 'later';
}

/** How events are read back (get, range, recent). */
export interface ReadOptions {
  /**
   * An event whose payload file cannot be read (missing, damaged) keeps its stored preview as
   * `content` and says why in `payloadError`, instead of failing the whole read (ms.expand/range).
   */
  keepPreview?: boolean;
}

/** An event read back; `payloadError` only with `keepPreview`, when its payload could not be read. */
export type ReadEvent = LogEvent & { payloadError?: string };


interface EventRow {
  seq: number;
  session: string;
  kind: string;
  role: string;
  name: string | null;
  content: string;
  payload: string | null;
  bytes: number;
  tokens: number;
  ts: string;
  step: number | null;
  tool_call_id: string | null;
  parent_seq: number | null;
  headline: string | null;
  meta: string;
}

const SELECT_COLUMNS = 'seq, session, kind, role, name, content, payload, bytes, tokens, ts, step, tool_call_id, parent_seq, headline, meta';


export class EventLog {
  readonly path: string;
  readonly payloads: PayloadStore;
  readonly readonly: boolean;
  /** Set when the database found on open was corrupt and moved here; a fresh log was started. */
  recoveredFrom?: string;
  /** What the recovery salvaged and lost, when the file was damaged (see recoveredFrom). */
  recovery?: RecoveryReport;
  /** What opening found wrong with a sound file and repaired (missing triggers, a cut tail…). */
  repaired?: OpenRepair;
  /** Files that keep the chain's head outside the database: `<db>.head.json`, then the mirrors. */
  readonly headFiles: string[];
  session: string;

  private readonly db: Database;
  private readonly preparer: EventPreparer;
  /** How a worker thread builds the same preparer (bulk submit). */
  private readonly preparerConfig: PreparerConfig;
  private readonly onWarning: (message: string) => void;
  /** Inside beginBulk(): payload files are synced together at commit instead of one by one. */
  private inBulk = false;
  private insertEvent?: Statement;
  private insertFts?: Statement;
  private readonly selectOne: Statement;
  private readonly selectRange: Statement;
  private readonly selectMax: Statement;
  private selectRecent?: Statement;
  private selectRecentOf?: Statement;
  /** The head after the events inserted in the open transaction, published once it commits. */
  private pendingHead?: ChainHead;
  /** The log's id (scroll_meta), written into the head files. */
  private logId?: string;
  /** Head files that failed to write (told once each). */
  private readonly headWriteFailed = new Set<string>();
  /** The head files, kept open between commits. */
  private readonly heads: HeadFiles;
  /** Opening found something to repair while another writer held the lock: done before the first append. */
  private repairPending = false;
  /** Opened with `reindexStale: 'later'` and the index was built by another INDEX_VERSION (searches use it until rebuilt). */
  indexStale = false;
  /**
   * How opening for writing checked the file's pages: `checked`, or `unchanged` when the file was
   * exactly as a clean close left it (cleanClose.ts) and needed no check; `new` for a new file.
   */
  openCheck: 'checked' | 'unchanged' | 'new' | 'read-only' = 'read-only';
  private closed = false;

  private constructor(db: Database, redactor: Redactor, opts: EventLogOptions, path: string, payloadDir: string, recoveredFrom?: string) {
    this.db = db;
    this.path = path;
    this.readonly = opts.readonly ?? false;
    this.payloads = new PayloadStore(payloadDir, this.readonly);
    this.recoveredFrom = recoveredFrom;
    this.session = opts.session ?? newSessionId('s');
    const payloadThreshold = opts.payloadThreshold ?? 8192;
    this.preparer = new EventPreparer(redactor, this.payloads, payloadThreshold);
    this.preparerConfig = { redaction: redactor.options, payloadDir, payloadThreshold };
    this.onWarning = opts.onWarning ?? ((m) => process.stderr.write(`scroll: ${m}\n`));
    this.headFiles = [headFileFor(path), ...(opts.headMirrors ?? []).map((p) => resolve(p))];
    this.heads = new HeadFiles(this.headFiles);
    if (!this.readonly) {
      this.logId = readMeta(db, 'log_id');
      this.insertEvent = db.prepare(
        `INSERT INTO events(seq, session, kind, role, name, content, payload, bytes, tokens, ts, step, tool_call_id, parent_seq, headline, meta, hash)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      this.insertFts = db.prepare('INSERT INTO events_fts(rowid, body, code, parts, headline) VALUES (?, ?, ?, ?, ?)');
    }
    this.selectOne = db.prepare(`SELECT ${SELECT_COLUMNS} FROM events WHERE seq = ?`);
    this.selectRange = db.prepare(`SELECT ${SELECT_COLUMNS} FROM events WHERE seq BETWEEN ? AND ? ORDER BY seq`);
    this.selectMax = db.prepare('SELECT COALESCE(MAX(seq), 0) AS m FROM events');
  }

  static open(opts: EventLogOptions = {}): EventLog {
    const path = resolve(opts.path ?? join(opts.workspace ?? process.cwd(), '.scroll', 'scroll.db'));
    const payloadDir = resolve(opts.payloadDir ?? join(dirname(path), 'payloads'));
    const warn = opts.onWarning ?? ((m: string) => process.stderr.write(`scroll: ${m}\n`));
    // Configuration errors (a bad extra redaction pattern) surface before any file is touched.
    const redact = opts.redact ?? true;
    // The key of the identifier markers lives beside the log (not in it): the same secret in a session
    // or a tool call id gets the same marker in every process that writes this log.
    const redactor = new Redactor({ ...(typeof redact === 'boolean' ? { enabled: redact } : redact), keyFile: join(dirname(path), 'redaction.key') });
    if (opts.payloadThreshold !== undefined && !(Number.isFinite(opts.payloadThreshold) && opts.payloadThreshold >= 0)) {
      throw new InvalidInputError(`payloadThreshold must be a number of bytes ≥ 0 (got ${opts.payloadThreshold})`);
    }
    if (opts.readonly) {
      if (!existsSync(path)) throw new DatabaseError(`no event log at ${path} (nothing has been recorded there yet)`);
      const db = openDatabase(path, { readonly: true, driver: opts.driver, mmapBytes: opts.mmapBytes });
      try {
        checkReadableVersion(db, path);
      } catch (e) {
        db.close();
        throw e;
      }
      if (!indexIsCurrent(db)) warn('the search index was built by an older Scroll: words in Chinese, Japanese and Korean are found once it is rebuilt (`scroll reindex`, or the next open for writing)');
      return new EventLog(db, redactor, opts, path, payloadDir);
    }
    prepareLogFolder(dirname(path));
    removeStaleSalvage(path);
    const headFiles = [headFileFor(path), ...(opts.headMirrors ?? []).map((p) => resolve(p))];
    let recovery: RecoveryReport | undefined;
    const recover = (reason: string) => {
      // Moves the file aside, carries every readable event over with its seq, records it.
      recovery = recoverDamagedLog(path, reason, { driver: opts.driver, headFiles, payloadDir, openWritable: (p) => openWritable(p, opts.driver, opts.mmapBytes) });
      warn(recovery.message);
    };
    const existed = existsSync(path);
    // A file exactly as a clean close of this log left it has nothing new to check (cleanClose.ts).
    const unchanged = existed && unchangedSinceCleanClose(path);
    const damage = unchanged ? undefined : inspectExisting(path, opts.driver, opts.mmapBytes);
    if (damage) recover(damage);
    let db: Database;
    try {
      db = openWritable(path, opts.driver, opts.mmapBytes);
    } catch (e) {
      // Damage the read-only inspection could not see (it surfaced once writing began).
      if (recovery || !isCorruptionError(e)) throw e;
      recover(errorMessage(e));
      db = openWritable(path, opts.driver, opts.mmapBytes);
    }
    const log = new EventLog(db, redactor, { ...opts, onWarning: warn }, path, payloadDir, recovery?.movedTo);
    log.recovery = recovery;
    log.openCheck = unchanged ? 'unchanged' : existed ? 'checked' : 'new';
    try {
      if (migratedHere.has(db)) {
        // This open migrated the log and appended the chain's first event: record its head.
        log.pendingHead = chainTip(db).last ?? undefined;
        log.publishHead();
      }
      // Cheap checks (no lock): triggers, the chain's start, the head files against the file.
      const repaired = repairOnOpen(db, headFiles, { wait: false });
      if (repaired === 'busy') log.repairPending = true;
      else if (repaired) log.noteRepair(repaired);
      // An index built by an older tokenizer is rebuilt from the log now, with progress told.
      if (!indexIsCurrent(db)) {
        if (opts.reindexStale === 'later') log.indexStale = true;
        else log.reindexStale();
      }
    } catch (e) {
      log.close();
      throw e;
    }
    return log;
  }

  get driver(): string {
    return this.db.driver;
  }

  /** The underlying connection, for the search module and read-only SQL. */
  get database(): Database {
    return this.db;
  }

  append(e: NewEvent): LogEvent {
    return this.appendMany([e])[0];
  }

  /** Appends all events in one transaction: either all are in the log or none is. */
  appendMany(events: NewEvent[]): LogEvent[] {
    if (this.readonly) throw new ReadonlyLogError();
    if (!Array.isArray(events)) throw new InvalidInputError('appendMany expects an array of events');
    if (events.length === 0) return [];
    if (this.repairPending) this.repairNow();
    // Everything that can fail on bad input, and the payload files, before taking the write lock.
    const batch = this.preparer.prepare(events, this.session, this.inBulk);
    const seqs = this.insertPrepared(batch);
    if (!this.db.inTransaction) this.publishHead();
    return toLogEvents(batch, seqs);
  }

  /**
   * Appends events in one transaction that no await falls inside: validation, redaction and the
   * payload files (flushed in parallel, as a bulk append does) all happen before the write
   * transaction opens, and then it runs and commits synchronously. So another caller's append on
   * this handle meanwhile commits on its own, instead of joining this transaction (and vanishing
   * with it if it rolled back), which is what a bulk append across awaits would do. For writers
   * that share the editor's handle (capture imports). `admit(i)`, asked inside the transaction just
   * before event i is inserted, may refuse it (a record another writer claimed meanwhile);
   * `inTransaction` runs in the same transaction after the inserts, with the appended events and
   * their indexes in `events`. Resolves to the appended events.
   */
  async appendDurably(
    events: NewEvent[],
    opts: { admit?: (index: number) => boolean; inTransaction?: (appended: LogEvent[], indexes: number[]) => void } = {},
  ): Promise<LogEvent[]> {
    if (this.readonly) throw new ReadonlyLogError();
    if (!Array.isArray(events)) throw new InvalidInputError('appendDurably expects an array of events');
    const batch = this.preparer.prepare(events, this.session, true);
    try {
      await this.payloads.syncPending();
    } catch (e) {
      this.payloads.dropPending();
      throw e;
    }
    if (this.repairPending) this.repairNow();
    const before = this.pendingHead;
    let appended: LogEvent[];
    try {
      appended = this.db.transaction(() => {
        const indexes: number[] = [];
        for (let i = 0; i < batch.events.length; i++) if (!opts.admit || opts.admit(i)) indexes.push(i);
        const kept = { events: indexes.map((i) => batch.events[i]), docs: indexes.map((i) => batch.docs[i]) };
        const out = toLogEvents(kept, kept.events.length ? this.insertRows(kept) : []);
        opts.inTransaction?.(out, indexes);
        return out;
      });
    } catch (e) {
      this.pendingHead = before;
      throw e;
    }
    if (!this.db.inTransaction) this.publishHead();
    return appended;
  }

  /** Inserts a batch atomically: its own transaction, or a savepoint inside an open one. */
  private insertPrepared(batch: PreparedBatch): number[] {
    const before = this.pendingHead;
    try {
      return this.db.transaction(() => this.insertRows(batch));
    } catch (e) {
      this.pendingHead = before; // rolled back (to the savepoint, inside a bulk append)
      throw e;
    }
  }

  /** The repair opening deferred (another writer held the lock then); waits for the lock. */
  private repairNow(): void {
    const r = repairOnOpen(this.db, this.headFiles);
    this.repairPending = false;
    if (r && r !== 'busy') this.noteRepair(r);
  }

  private noteRepair(r: OpenRepair): void {
    this.repaired = r;
    this.logId = readMeta(this.db, 'log_id'); // a new file that continues a log takes its id
    this.onWarning(r.message);
    if (!this.db.inTransaction) {
      this.pendingHead = chainTip(this.db).last ?? undefined;
      this.publishHead();
    }
  }

  /**
   * Writes the head of what has just been committed to the head files (`headFiles`): one 256-byte
   * write in place each, no fsync (as durable as the commit; see ARCHITECTURE.md, "Integrity").
   * A file that cannot be written is reported once and never fails the append.
   */
  private publishHead(): void {
    const head = this.pendingHead;
    this.pendingHead = undefined;
    if (!head) return;
    this.logId ??= readMeta(this.db, 'log_id');
    if (this.logId === undefined) return;
    const record = { format: 1 as const, log: this.logId, seq: head.seq, hash: head.hash, ts: new Date().toISOString() };
    for (const { file, error } of this.heads.write(record)) {
      if (this.headWriteFailed.has(file)) continue;
      this.headWriteFailed.add(file);
      this.onWarning(`cannot record the log's head in ${file} (${errorMessage(error)}); scroll check cannot compare it with the log until it can`);
    }
  }

  /**
   * Inserts a batch's rows into the transaction already open. Bulk submit uses it directly: a
   * batch that fails there fails the whole bulk append, so a savepoint per batch (which costs insert
   * time, for the pages it copies aside) would buy nothing.
   */
  private insertRows(batch: PreparedBatch): number[] {
    if (!this.insertEvent || !this.insertFts) throw new ReadonlyLogError();
    const insertEvent = this.insertEvent;
    const insertFts = this.insertFts;
    const { events: prepared, docs } = batch;
    const out: number[] = new Array(prepared.length);
    // Where the chain continues: read under the write lock, so it is exact (2 lookups per batch).
    const tip = chainTip(this.db);
    let prev = tip.last?.hash ?? GENESIS;
    let seq = tip.next;
    for (let i = 0; i < prepared.length; i++, seq++) {
      const p = prepared[i];
      // Every column the row stores (CHAINED_COLUMNS), as SQLite will hand it back.
      const row = asStored(this.db, {
        bytes: p.bytes, content: p.stored, headline: p.headline, kind: p.kind, meta: p.metaJson, name: p.name, parent_seq: p.parentSeq,
        payload: p.payload, role: p.role, seq, session: p.session, step: p.step, tokens: p.tokens, tool_call_id: p.toolCallId, ts: p.ts,
      });
      prev = chainHash(prev, row, CHAINED_COLUMNS);
      insertEvent.run(
        seq, p.session, p.kind, p.role, p.name, p.stored, p.payload, p.bytes, p.tokens, p.ts,
        p.step, p.toolCallId, p.parentSeq, p.headline, p.metaJson, prev,
      );
      const d = docs[i];
      insertFts.run(seq, d.body, d.code, d.parts, d.headline);
      out[i] = seq;
    }
    if (prepared.length) this.pendingHead = { seq: seq - 1, hash: prev };
    return out;
  }

  /**
   * A bulk append spanning async steps (e.g. a streamed file): every `append` or `submit` joins
   * one transaction that `commit()` makes durable and `rollback()` discards, so a failure midway
   * leaves the log as it was. Holds the write lock until then: other writers wait.
   * `worker`: prepare submitted batches on a worker thread (default: when there is more than one core).
   * `workerDir`: where the worker file is (default: beside this module; tests pass a wrapper).
   */
  beginBulk(opts: { worker?: boolean; workerDir?: string } = {}): BulkAppend {
    if (this.readonly) throw new ReadonlyLogError();
    if (this.repairPending) this.repairNow();
    return beginBulkAppend(
      {
        db: this.db,
        preparer: this.preparer,
        preparerConfig: this.preparerConfig,
        payloads: this.payloads,
        session: () => this.session,
        setInBulk: (on) => {
          this.inBulk = on;
        },
        appendMany: (events) => this.appendMany(events),
        insertRows: (batch) => this.insertRows(batch),
        dropPendingHead: () => {
          this.pendingHead = undefined;
        },
        publishHead: () => this.publishHead(),
      },
      opts,
    );
  }

  /** One event with its full content (payload read back and verified), or undefined. */
  get(seq: number, opts?: ReadOptions): ReadEvent | undefined {
    if (!Number.isSafeInteger(seq)) throw new InvalidInputError(`seq must be an integer (got ${String(seq)})`);
    const row = this.selectOne.get(seq) as EventRow | undefined;
    return row ? this.toEvent(row, opts) : undefined;
  }

  /**
   * Exact, untruncated events. A seq or a list: every one must exist (a clear error names the
   * missing ones). A range: the events inside it, possibly none.
   */
  expand(seqs: number | number[] | { from: number; to: number }, opts?: ReadOptions): ReadEvent[] {
    if (typeof seqs === 'number') seqs = [seqs];
    if (Array.isArray(seqs)) {
      const out: ReadEvent[] = [];
      const missing: number[] = [];
      for (const s of seqs) {
        const e = this.get(s, opts);
        if (e) out.push(e);
        else missing.push(s);
      }
      if (missing.length) {
        const max = this.maxSeq();
        const list = missing.slice(0, 10).join(', ') + (missing.length > 10 ? ', …' : '');
        throw new InvalidInputError(`no event with seq ${list} (the log holds ${max ? `1..${max}` : 'no events'})`);
      }
      return out;
    }
    if (!seqs || typeof seqs !== 'object') throw new InvalidInputError('expand expects a seq, a list of seqs or {from, to}');
    return this.range(seqs.from, seqs.to, opts);
  }

  range(from: number, to: number, opts?: ReadOptions): ReadEvent[] {
    if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to)) throw new InvalidInputError(`a range needs integer bounds (got ${from}..${to})`);
    return (this.selectRange.all(from, to) as EventRow[]).map((r) => this.toEvent(r, opts));
  }

  /** The last `n` events (of `session`, when given), oldest first. */
  recent(n: number, session?: string, opts?: ReadOptions): ReadEvent[] {
    const limit = Math.max(0, Math.floor(n));
    const rows = (session === undefined
      ? (this.selectRecent ??= this.db.prepare(`SELECT ${SELECT_COLUMNS} FROM events ORDER BY seq DESC LIMIT ?`)).all(limit)
      : (this.selectRecentOf ??= this.db.prepare(`SELECT ${SELECT_COLUMNS} FROM events WHERE session = ? ORDER BY seq DESC LIMIT ?`)).all(session, limit)) as EventRow[];
    return rows.reverse().map((r) => this.toEvent(r, opts));
  }

  /** Events of one session in seq order, `batch` rows at a time (for export without loading all). */
  *iterateSession(session: string, batch = 500, opts?: ReadOptions): Generator<ReadEvent> {
    const stmt = this.db.prepare(`SELECT ${SELECT_COLUMNS} FROM events WHERE session = ? AND seq > ? ORDER BY seq LIMIT ?`);
    let after = 0;
    for (;;) {
      const rows = stmt.all(session, after, batch) as EventRow[];
      if (rows.length === 0) return;
      for (const r of rows) yield this.toEvent(r, opts);
      after = rows[rows.length - 1].seq;
    }
  }

  search(query: string, opts?: SearchOptions): SearchResult {
    return loadSearch()(this.db, query, opts);
  }

  /** Eviction events (seq, session, meta) of a session, or of the whole log, oldest first. */
  evictions(session?: string): EvictionRow[] {
    return historyQueries.evictions(this, session);
  }

  /** The newest eviction event of a session (or of the log). */
  lastEviction(session?: string): EvictionRow | undefined {
    return historyQueries.lastEviction(this, session);
  }

  /** Seqs of a session's events, oldest first, optionally of some kinds only. */
  sessionSeqs(session: string, kinds?: readonly string[]): number[] {
    return historyQueries.sessionSeqs(this, session, kinds);
  }

  /** The session of the newest event. */
  latestSession(): string | undefined {
    return historyQueries.latestSession(this);
  }

  /** Every session, in order of first appearance (kept per connection; see sessionSummaries). */
  sessions(): SessionInfo[] {
    return historyQueries.sessionSummaries(this, this.db.inTransaction);
  }

  stats(): LogStats {
    const c = this.db.prepare('SELECT COUNT(*) AS events, COUNT(DISTINCT session) AS sessions FROM events').get() as { events: number; sessions: number };
    const fileSize = (p: string) => (existsSync(p) ? statSync(p).size : 0);
    const payloads = this.payloads.stats();
    return {
      events: Number(c.events),
      sessions: Number(c.sessions),
      bytes: fileSize(this.path) + fileSize(`${this.path}-wal`),
      payloads: payloads.count,
      payloadBytes: payloads.bytes,
      schemaVersion: readUserVersion(this.db),
      driver: this.db.driver,
      path: this.path,
    };
  }

  maxSeq(): number {
    return Number((this.selectMax.get() as { m: number }).m);
  }

  /**
   * The full integrity check (slow on large logs; the open check is the quick part of it): every
   * page, FTS5's own index check, every payload file against its hash. Reads only.
   */
  verify(opts: { headMirrors?: string[] } = {}): LogVerification {
    return verifyLog(this.db, this.payloads, { headFiles: [...this.headFiles, ...(opts.headMirrors ?? []).map((p) => resolve(p))] });
  }

  /**
   * Replaces text in the named events, their payload files and the search index, recomputes the
   * chain from the first of them and records a `purge` event (which never holds the text). The
   * one sanctioned rewrite of the log: for a secret that got in anyway. See purge.ts.
   */
  purge(opts: PurgeOptions): PurgeResult {
    if (this.readonly) throw new ReadonlyLogError();
    if (this.inBulk) throw new InvalidInputError('a purge cannot run inside a bulk append');
    const result = purgeLog(this.db, this.payloads, { ...opts, headFiles: opts.headFiles ?? this.headFiles });
    this.indexChanged();
    this.pendingHead = result.head;
    this.publishHead();
    return result;
  }

  /**
   * Refills the FTS index from the events (full payload content), in one transaction, on this
   * thread (`rebuildIndexInBackground` in maintenance.ts runs it on a worker). `onWarning` (default:
   * the log's) hears of each event indexed from its preview only. Returns the number of events indexed.
   */
  rebuildIndex(opts: RebuildOptions = {}): number {
    if (this.readonly) throw new ReadonlyLogError();
    const indexed = rebuildSearchIndex(this.db, this.payloads, { ...opts, onWarning: opts.onWarning ?? this.onWarning });
    this.indexChanged();
    this.indexStale = false;
    return indexed;
  }

  /**
   * Rebuilds an index built by another INDEX_VERSION (the tokenizer or the derived columns changed),
   * telling progress through `onWarning` (at the start, every few seconds, at the end). A failure
   * is told, not thrown: the old index still answers searches, and the next open tries again.
   */
  private reindexStale(): void {
    if (!writeLockFree(this.db)) {
      // An open never waits for another writer (a long ingest): the next open rebuilds it.
      this.onWarning('the search index was built by an older Scroll; another process is writing the log, so it is rebuilt at the next open (`scroll reindex` does it now)');
      return;
    }
    const total = Number((this.db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n);
    this.onWarning(`the search index was built by an older Scroll: rebuilding it from the log (${total} events)…`);
    const started = Date.now();
    let told = started;
    try {
      const n = this.rebuildIndex({
        onlyIfStale: true,
        onProgress: (done, all) => {
          if (Date.now() - told < 2000) return;
          told = Date.now();
          this.onWarning(`rebuilding the search index: ${done} of ${all} events`);
        },
      });
      if (n >= 0) this.onWarning(`search index rebuilt: ${n} events in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    } catch (e) {
      this.onWarning(`the search index could not be rebuilt now (${errorMessage(e)}); searches use the old one, and the next open tries again`);
    }
  }

  /**
   * Merges the FTS index toward one segment in short steps (see compactIndex.ts), on this thread
   * (`compactIndexInBackground` in maintenance.ts runs it on a worker).
   */
  compactIndex(opts: CompactOptions = {}): CompactResult {
    if (this.readonly) throw new ReadonlyLogError();
    return compactSearchIndex(this.db, opts);
  }

  /** Segments in the FTS index: more than a few make every search read more (compactIndex). */
  indexSegments(): number {
    return indexSegments(this.db);
  }

  /**
   * The index was rebuilt (here or by another connection): frequencies search cached from the old
   * one (which may have been damaged) are dropped.
   */
  indexChanged(): void {
    searchModule?.forgetCorpusStats(this.db);
  }

  /** Passes a message to the log's warning channel (`onWarning`, default stderr). */
  warn(message: string): void {
    this.onWarning(message);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    const head = this.readonly ? undefined : this.committedHead();
    this.heads.close();
    this.db.close();
    // The last connection to close folds the WAL into the file: then the next open can tell the
    // file is as it was left (cleanClose.ts).
    if (head) recordCleanClose(this.path, head, head.logId);
  }

  /** The committed chain head and the log's id, when nothing is in flight (else undefined). */
  private committedHead(): (ChainHead & { logId: string }) | undefined {
    try {
      if (this.db.inTransaction) return undefined;
      const last = chainTip(this.db).last;
      const logId = this.logId ?? readMeta(this.db, 'log_id');
      return last && logId ? { ...last, logId } : undefined;
    } catch {
      return undefined;
    }
  }

  private toEvent(row: EventRow, opts?: ReadOptions): ReadEvent {
    let content = row.content;
    let payloadError: string | undefined;
    if (row.payload) {
      if (opts?.keepPreview) {
        try {
          content = this.payloads.read(row.payload);
        } catch (e) {
          payloadError = errorMessage(e);
        }
      } else {
        content = this.payloads.read(row.payload);
      }
    }
    let meta: Record<string, unknown>;
    try {
      meta = JSON.parse(row.meta) as Record<string, unknown>;
    } catch {
      meta = { unparsedMeta: row.meta };
    }
    const event: ReadEvent = {
      seq: Number(row.seq),
      session: row.session,
      kind: row.kind,
      role: row.role,
      name: row.name,
      content,
      ts: row.ts,
      meta,
      step: row.step === null ? null : Number(row.step),
      toolCallId: row.tool_call_id,
      parentSeq: row.parent_seq === null ? null : Number(row.parent_seq),
      headline: row.headline,
      payload: row.payload,
      bytes: Number(row.bytes),
      tokens: Number(row.tokens),
    };
    if (payloadError !== undefined) event.payloadError = payloadError;
    return event;
  }
}

type SearchModule = typeof import('../search/search');
let searchModule: SearchModule | undefined;
/** The query side lives in src/core/search (loaded on first search: ingest never pays for it). */
function loadSearch(): SearchModule['searchEvents'] {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  searchModule ??= require('../search/search') as SearchModule;
  return searchModule.searchEvents;
}


function readUserVersion(db: Database): number {
  return Number((db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version);
}

function checkReadableVersion(db: Database, path: string): void {
  const v = readUserVersion(db);
  if (v > SCHEMA_VERSION) throw new DatabaseError(`${path} has schema version ${v}; this Scroll reads up to ${SCHEMA_VERSION} — update Scroll`);
  if (v === 0) throw new DatabaseError(`${path} is not a Scroll event log (no schema)`);
}

/** Retries a statement that takes a lock outside a transaction (journal_mode switch). */
function withBusyRetry<T>(fn: () => T): T {
  let delay = 5;
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      return fn();
    } catch (e) {
      if (!isBusyError(e) || Date.now() > deadline) throw e;
      sleepSync(delay + Math.random() * delay);
      delay = Math.min(delay * 2, 200);
    }
  }
}

const SQLITE_HEADER = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * Checks an existing database without changing it: the header bytes, then `quick_check` of every
 * ordinary table (the events, their indexes, the FTS5 index's own storage tables), on a read-only
 * connection (a read-write one would checkpoint and delete the WAL on close, and we must move a
 * damaged log aside exactly as found). Returns what is wrong, or undefined.
 *
 * Table by table, because an unrestricted quick_check also runs FTS5's semantic integrity check,
 * which reads every posting list: most of the check's time, and it grows with the log. The table
 * checks still cover every b-tree page, and read only those pages. The index they do not
 * re-verify is derived: `scroll reindex` (EventLog.rebuildIndex) rebuilds it from the events, and
 * `scroll check` (EventLog.verify) runs the full check on demand.
 */
function inspectExisting(path: string, driver?: DriverChoice, mmapBytes?: number): string | undefined {
  if (!existsSync(path)) return undefined;
  const size = statSync(path).size;
  if (size === 0) return undefined; // an empty file is an empty database to SQLite
  const head = Buffer.alloc(SQLITE_HEADER.length);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  // Under 100 bytes the file may be another process creating the log right now: let SQLite judge.
  if (size >= 100 && !head.equals(SQLITE_HEADER)) return 'file is not a database';
  let db: Database | undefined;
  try {
    db = openDatabase(path, { readonly: true, driver, mmapBytes });
    const problems = tableProblems(db);
    return problems.length ? `quick_check: ${problems.slice(0, 3).join('; ')}` : undefined;
  } catch (e) {
    if (isCorruptionError(e)) return errorMessage(e);
    throw e;
  } finally {
    db?.close();
  }
}

function openWritable(path: string, driver?: DriverChoice, mmapBytes?: number): Database {
  const db = openDatabase(path, { driver, mmapBytes });
  try {
    withBusyRetry(() => db.exec('PRAGMA journal_mode = WAL'));
    db.exec('PRAGMA synchronous = NORMAL');
    migrate(db, path);
    configureIndex(db);
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

function migrate(db: Database, path: string): void {
  if (readUserVersion(db) >= SCHEMA_VERSION) {
    const v = readUserVersion(db);
    if (v > SCHEMA_VERSION) throw new DatabaseError(`${path} has schema version ${v}; this Scroll knows up to ${SCHEMA_VERSION} — update Scroll`);
    return;
  }
  db.transaction(() => {
    // Re-read under the write lock: another process may have migrated meanwhile.
    const current = readUserVersion(db);
    if (current >= SCHEMA_VERSION) return;
    for (const m of MIGRATIONS) {
      if (m.version <= current) continue;
      db.exec(m.sql);
      db.prepare("INSERT INTO scroll_meta(key, value) VALUES ('schema_version', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(String(m.version));
      db.exec(`PRAGMA user_version = ${m.version}`);
    }
    // A new log's index is written by this version from its first event on.
    if (current === 0) stampIndexVersion(db);
    // The chain starts here: at the first event of a new log, or at an event recording the
    // migration of one that already holds events (chain.ts).
    if (ensureChainStart(db, { fromVersion: current, toVersion: SCHEMA_VERSION }) !== undefined) migratedHere.add(db);
  });
}

/** Connections whose open appended the migration's chain-start event (its head is published). */
const migratedHere = new WeakSet<Database>();

/**
 * FTS5 keeps its settings in the index's own config table, shared by every connection. Written
 * only when it differs (a log made before the setting existed), so an open normally only reads.
 * The setting is only a speed-up, so the open never waits for the write lock to write it (another
 * process may hold it through a long ingest or rebuild): the next open tries again.
 */
function configureIndex(db: Database): void {
  const row = db.prepare("SELECT v FROM events_fts_config WHERE k = 'hashsize'").get() as { v: unknown } | undefined;
  if (Number(row?.v) === INDEX_BUFFER_BYTES) return;
  const wait = Number((db.prepare('PRAGMA busy_timeout').get() as { timeout: number }).timeout);
  db.exec('PRAGMA busy_timeout = 0');
  try {
    db.exec(`INSERT INTO events_fts(events_fts, rank) VALUES('hashsize', ${INDEX_BUFFER_BYTES})`);
  } catch (e) {
    if (!isBusyError(e)) throw e;
  } finally {
    db.exec(`PRAGMA busy_timeout = ${wait}`);
  }
}

/** The events a prepared batch became, with the seqs they were given. */
function toLogEvents(batch: PreparedBatch, seqs: number[]): LogEvent[] {
  return batch.events.map((p, i) => ({
    seq: seqs[i],
    session: p.session,
    kind: p.kind,
    role: p.role,
    name: p.name,
    content: p.content,
    ts: p.ts,
    meta: p.meta,
    step: p.step,
    toolCallId: p.toolCallId,
    parentSeq: p.parentSeq,
    headline: p.headline,
    payload: p.payload,
    bytes: p.bytes,
    tokens: p.tokens,
  }));
}
