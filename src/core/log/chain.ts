/**
 * The hash chain over the events, and the chain's head kept outside the database file.
 *
 * Each event row stores `hash` = sha256 over a canonical encoding of every other column of the row
 * (seq included; the payload's handle is its sha256, so the payload is covered too) and the
 * previous event's hash:
 *
 *     hash = sha256( "scroll-chain-1\n" + prev + "\n" + for each column, sorted by name:
 *                    name + "=" + ("n" | "i" + integer | "r" + real | "t" + length + ":" + text | "b" + hex) + "\n" )
 *
 * hashed as UTF-8, `length` in UTF-16 code units, `prev` the hex hash of the event before (64 zeros for the first), text as
 * SQLite returns it (so both sides agree on text that is not well-formed UTF-16), NULL as "n". The
 * verifier reads the column list from the row itself, so a column added to `events` is covered
 * (and an append that does not bind it fails the chain tests: CHAINED_COLUMNS).
 *
 * A chain inside the file can be recomputed by whoever can write the file. So the head (seq +
 * hash) is also written beside the log (`<db>.head.json`) and to any mirrors the caller names (the
 * editor's own storage) after every commit, and `scroll check` compares them with the file: a cut
 * tail or a rewritten chain shows there. See docs/ARCHITECTURE.md, "Integrity".
 */
import * as crypto from 'node:crypto';
import { closeSync, constants as fsConstants, existsSync, fstatSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Database, Statement } from '../db';
import { errorMessage } from '../errors';
import { sleepSync } from '../db/sqliteErrors';
import { buildIndexDocument } from '../search/indexText';
import { estimateTokens } from '../types';
import { APPEND_ONLY_TRIGGERS } from './schema';

/** `prev` of the first event of a chain. */
export const GENESIS = '0'.repeat(64);
const CHAIN_PREFIX = 'scroll-chain-1\n';

/**
 * Every column of `events` but `hash`, sorted: what an append binds and the chain covers. A test
 * compares it with `PRAGMA table_info(events)`: a column added to the table must be added here
 * (and to the INSERT in eventLog.ts), or appends would stop verifying.
 */
export const CHAINED_COLUMNS = [
  'bytes', 'content', 'headline', 'kind', 'meta', 'name', 'parent_seq', 'payload', 'role', 'seq', 'session', 'step', 'tokens', 'tool_call_id', 'ts',
] as const;

/** The session that the log's own records (integrity, recovery, purge events) are filed under. */
export const MAINTENANCE_SESSION = 'scroll-maintenance';

/** Kinds of the events the log writes about itself; `check` lists them. */
export const RECORD_KINDS = ['integrity', 'recovery', 'purge'] as const;

export interface ChainHead {
  seq: number;
  hash: string;
}

export type Row = Record<string, unknown>;

const short = (h: string | null | undefined) => (h ? `${h.slice(0, 12)}…` : 'none');
export { short as shortHash };

/** One column's value in the chain's encoding (see the module comment). */
function encode(v: unknown): string {
  if (v === undefined || v === null) return '=n\n';
  if (typeof v === 'string') return `=t${v.length}:${v}\n`;
  if (typeof v === 'number') return `${Number.isInteger(v) ? '=i' : '=r'}${String(v)}\n`;
  if (typeof v === 'bigint') return `=i${v.toString()}\n`;
  if (v instanceof Uint8Array) return `=b${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}\n`;
  return `=t${String(v).length}:${String(v)}\n`;
}

/** The chain hash of `row` after `prev`, over `columns` (sorted; default: the row's own, minus `hash`). */
export function chainHash(prev: string, row: Row, columns?: readonly string[]): string {
  const cols = columns ?? rowColumns(row);
  let text = CHAIN_PREFIX + prev + '\n';
  for (let i = 0; i < cols.length; i++) text += cols[i] + encode(row[cols[i]]);
  return sha256Hex(text);
}

/**
 * sha256 of a string's UTF-8, hex. `crypto.hash` (Node >= 20.12) skips the Hash object, which for a
 * short text is most of what createHash().update().digest() costs (docs/PERFORMANCE.md).
 */
const oneShot = (crypto as unknown as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;
const sha256Hex: (text: string) => string = oneShot
  ? (text) => oneShot('sha256', text, 'hex')
  : (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

/** A row's columns as the chain sees them: every one but `hash`, sorted. */
export function rowColumns(row: Row): string[] {
  return Object.keys(row).filter((c) => c !== 'hash').sort();
}

/**
 * Strings the writer binds, as SQLite will return them. Text that is not well-formed UTF-16 (a
 * lone surrogate) is stored as the driver converts it, which differs between drivers; asking
 * SQLite for the round trip (`SELECT ?`) gives the value every reader will see.
 */
export function asStored(db: Database, row: Row): Row {
  let out: Row | undefined;
  for (const k of Object.keys(row)) {
    const v = row[k];
    if (typeof v === 'string' && !isWellFormed(v)) {
      out ??= { ...row };
      out[k] = (roundTrip(db).get(v) as { v: string }).v;
    }
  }
  return out ?? row;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** String.prototype.isWellFormed (Node 20; not in this project's ES2022 typings), or a scan. */
function isWellFormed(s: string): boolean {
  const native = (s as unknown as { isWellFormed?: () => boolean }).isWellFormed;
  return native ? native.call(s) : !LONE_SURROGATE.test(s);
}

const roundTrip = (db: Database) => cached(db, 'SELECT ? AS v');

/** Statements prepared once per connection (every append asks for the tip). */
const statements = new WeakMap<Database, Map<string, Statement>>();
function cached(db: Database, sql: string): Statement {
  let m = statements.get(db);
  if (!m) statements.set(db, (m = new Map()));
  let s = m.get(sql);
  if (!s) m.set(sql, (s = db.prepare(sql)));
  return s;
}

// --- the tip of the chain in the file ---------------------------------------------------------

export interface ChainTip {
  /** The last event and its hash (its virtual hash when it has none stored: a pre-chain row). */
  last: ChainHead | null;
  /** The seq the next event gets: after the last event and after every seq ever handed out. */
  next: number;
}

/** Where the next event goes. Inside a write transaction this is exact. */
export function chainTip(db: Database): ChainTip {
  const last = cached(db, 'SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1').get() as { seq: number; hash: string | null } | undefined;
  const used = highestSeqUsed(db);
  if (!last) return { last: null, next: used + 1 };
  const seq = Number(last.seq);
  const hash = last.hash ?? virtualHashAt(db, seq);
  return { last: { seq, hash }, next: Math.max(seq, used) + 1 };
}

/** AUTOINCREMENT's high-water mark in the file (sqlite_sequence), 0 when none. */
export function highestSeqUsed(db: Database): number {
  try {
    const r = cached(db, "SELECT seq FROM sqlite_sequence WHERE name = 'events'").get() as { seq: number } | undefined;
    return r ? Number(r.seq) : 0;
  } catch {
    return 0; // no sqlite_sequence yet
  }
}

/** The chain hash of the last event before `seq` (GENESIS when there is none). */
export function hashBefore(db: Database, seq: number): string {
  const r = db.prepare('SELECT seq, hash FROM events WHERE seq < ? ORDER BY seq DESC LIMIT 1').get(seq) as { seq: number; hash: string | null } | undefined;
  if (!r) return GENESIS;
  return r.hash ?? virtualHashAt(db, Number(r.seq));
}

/**
 * The hash an event without a stored one (a row from before the chain) has in the chain: computed
 * from the last stored hash before it (or the start) forward. Only reached for such rows.
 */
function virtualHashAt(db: Database, seq: number): string {
  const anchor = db.prepare('SELECT seq, hash FROM events WHERE seq < ? AND hash IS NOT NULL ORDER BY seq DESC LIMIT 1').get(seq) as
    | { seq: number; hash: string }
    | undefined;
  let prev = anchor?.hash ?? GENESIS;
  let after = anchor ? Number(anchor.seq) : 0;
  const page = db.prepare('SELECT * FROM events WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT 500');
  for (;;) {
    const rows = page.all(after, seq) as Row[];
    if (rows.length === 0) return prev;
    for (const r of rows) prev = (r.hash as string | null) ?? chainHash(prev, r);
    after = Number(rows[rows.length - 1].seq);
  }
}

// --- events the log writes about itself -------------------------------------------------------

export interface SystemEvent {
  kind: (typeof RECORD_KINDS)[number];
  content: string;
  meta: Record<string, unknown>;
}

const insertStatements = new WeakMap<Database, { event: Statement; fts: Statement }>();

/**
 * Appends one of the log's own records (integrity, recovery, purge, the migration's chain start),
 * chained after the tip, indexed like any event; the caller holds the write transaction.
 * `seq`: where it goes (default: the tip's next). Returns the new head.
 */
export function appendRecord(db: Database, e: SystemEvent, at?: number): ChainHead {
  let st = insertStatements.get(db);
  if (!st) {
    st = {
      event: db.prepare(`INSERT INTO events(${CHAINED_COLUMNS.join(', ')}, hash) VALUES (${CHAINED_COLUMNS.map(() => '?').join(', ')}, ?)`),
      fts: db.prepare('INSERT INTO events_fts(rowid, body, code, parts, headline) VALUES (?, ?, ?, ?, ?)'),
    };
    insertStatements.set(db, st);
  }
  const tip = chainTip(db);
  const seq = at ?? tip.next;
  const row: Row = {
    bytes: Buffer.byteLength(e.content, 'utf8'),
    content: e.content,
    headline: null,
    kind: e.kind,
    meta: JSON.stringify(e.meta),
    name: null,
    parent_seq: null,
    payload: null,
    role: 'system',
    seq,
    session: MAINTENANCE_SESSION,
    step: null,
    tokens: estimateTokens(e.content),
    tool_call_id: null,
    ts: new Date().toISOString(),
  };
  const hash = chainHash(tip.last?.hash ?? GENESIS, row, CHAINED_COLUMNS);
  st.event.run(...CHAINED_COLUMNS.map((c) => row[c]), hash);
  const d = buildIndexDocument(e.content, null);
  st.fts.run(seq, d.body, d.code, d.parts, d.headline);
  return { seq, hash };
}

// --- scroll_meta -------------------------------------------------------------------------------

export function readMeta(db: Database, key: string): string | undefined {
  try {
    const r = db.prepare('SELECT value FROM scroll_meta WHERE key = ?').get(key) as { value: string } | undefined;
    return r?.value;
  } catch {
    return undefined;
  }
}

export function writeMeta(db: Database, key: string, value: string): void {
  db.prepare('INSERT INTO scroll_meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
}

/** True when `events` has the `hash` column (schema 2 and later). */
export function hasChainColumn(db: Database): boolean {
  return (db.prepare("SELECT name FROM pragma_table_info('events')").all() as { name: string }[]).some((c) => c.name === 'hash');
}

/**
 * Makes sure the chain has a start (`chain_start` in scroll_meta): a fresh log's chain starts at
 * its first event; a log that already holds events (one migrated from schema 1) gets an event
 * that starts the chain, covering the events before it (their hashes are computed, not stored:
 * the chain runs through them). Inside the caller's write transaction. Returns the event's seq,
 * or undefined when none was needed.
 */
export function ensureChainStart(db: Database, reason: { fromVersion: number; toVersion: number }): number | undefined {
  if (readMeta(db, 'chain_start') !== undefined) return undefined;
  const count = Number((db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n);
  if (count === 0) {
    writeMeta(db, 'chain_start', String(highestSeqUsed(db) + 1));
    return undefined;
  }
  const range = db.prepare('SELECT min(seq) AS a, max(seq) AS b FROM events').get() as { a: number; b: number };
  const tip = chainTip(db);
  const legacy = { events: count, firstSeq: Number(range.a), lastSeq: Number(range.b), head: tip.last?.hash ?? GENESIS };
  const head = appendRecord(db, {
    kind: 'integrity',
    content:
      reason.fromVersion < 2
        ? `The hash chain starts here: this log was migrated from schema ${reason.fromVersion} to ${reason.toVersion}. ` +
          `The ${count} events before (seqs ${legacy.firstSeq}..${legacy.lastSeq}) were not chained when written; ` +
          `this event's hash covers them as they were at the migration.`
        : `The hash chain starts here; the ${count} events before (seqs ${legacy.firstSeq}..${legacy.lastSeq}) had no chain hash and are covered as they are now.`,
    meta: { action: 'chain-start', fromVersion: reason.fromVersion, toVersion: reason.toVersion, legacy },
  });
  writeMeta(db, 'chain_start', String(head.seq));
  return head.seq;
}

// --- triggers ----------------------------------------------------------------------------------

export interface TriggerState {
  missing: string[];
  altered: string[];
  /** Triggers no schema of Scroll defines (one could drop or change inserts unseen). */
  unexpected: string[];
}

const normaliseSql = (s: string) => s.replace(/\s+/g, ' ').trim();

export function triggerState(db: Database): TriggerState {
  const rows = db.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'trigger'").all() as { name: string; sql: string }[];
  const found = new Map(rows.map((r) => [r.name, r.sql]));
  const state: TriggerState = { missing: [], altered: [], unexpected: [] };
  for (const [name, sql] of Object.entries(APPEND_ONLY_TRIGGERS)) {
    const have = found.get(name);
    if (have === undefined) state.missing.push(name);
    else if (normaliseSql(have) !== normaliseSql(sql)) state.altered.push(name);
  }
  for (const name of found.keys()) if (!(name in APPEND_ONLY_TRIGGERS)) state.unexpected.push(name);
  return state;
}

export const triggersOk = (t: TriggerState) => !t.missing.length && !t.altered.length && !t.unexpected.length;

/** Restores the append-only triggers and drops foreign ones; in the caller's transaction. */
export function restoreTriggers(db: Database, state: TriggerState): void {
  for (const name of [...state.altered, ...state.unexpected]) db.exec(`DROP TRIGGER IF EXISTS "${name.replace(/"/g, '""')}"`);
  for (const name of [...state.missing, ...state.altered]) db.exec(APPEND_ONLY_TRIGGERS[name]);
}

export function describeTriggers(t: TriggerState): string[] {
  const out: string[] = [];
  if (t.missing.length) out.push(`append-only trigger${t.missing.length > 1 ? 's' : ''} missing: ${t.missing.join(', ')}`);
  if (t.altered.length) out.push(`append-only trigger${t.altered.length > 1 ? 's' : ''} altered: ${t.altered.join(', ')}`);
  if (t.unexpected.length) out.push(`trigger${t.unexpected.length > 1 ? 's' : ''} Scroll never defines: ${t.unexpected.join(', ')}`);
  return out;
}

// --- the head outside the file -----------------------------------------------------------------

/** What a head file holds. */
export interface HeadRecord extends ChainHead {
  format: 1;
  /** The log's id (scroll_meta `log_id`): a head of another log is not compared. */
  log: string;
  ts: string;
  /**
   * Written only by a clean close (cleanClose.ts): the database file's identity as the close left
   * it. Every commit's record leaves it out, so it says nothing once anything was appended.
   */
  closed?: string;
}

/** The head file beside a database: `<db>.head.json`. Never moved aside with a damaged file. */
export function headFileFor(dbPath: string): string {
  return `${dbPath}.head.json`;
}

/**
 * A head file is one fixed-size record (JSON padded with spaces) rewritten in place: one pwrite of
 * 256 bytes per commit, much cheaper than a temp file and a rename (no file created, no directory
 * entry changed). A write of less than a sector lands whole or not at all, a crashed process leaves the
 * previous record, concurrent writers never interleave within one write (the kernel serialises
 * writes to a file), and a reader that catches a write half-copied retries (readHeadFile). No
 * fsync: the head is as durable as the commit it follows (WAL with synchronous=NORMAL).
 */
export const HEAD_RECORD_BYTES = 256;

function encodeHead(record: HeadRecord): Buffer {
  const json = JSON.stringify(record);
  if (json.length >= HEAD_RECORD_BYTES) throw new Error('head record too long');
  return Buffer.from(json.padEnd(HEAD_RECORD_BYTES - 1, ' ') + '\n', 'utf8');
}

function openHeadFile(path: string): number {
  const flags = fsConstants.O_RDWR | fsConstants.O_CREAT;
  let fd: number;
  try {
    fd = openSync(path, flags, 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    mkdirSync(dirname(path), { recursive: true });
    fd = openSync(path, flags, 0o600);
  }
  return fd;
}

function writeRecord(fd: number, data: Buffer): void {
  writeSync(fd, data, 0, data.length, 0);
  if (fstatSync(fd).size !== data.length) ftruncateSync(fd, data.length);
}

/** Writes one head file (opened and closed for this one write). */
export function writeHeadFile(path: string, record: HeadRecord): void {
  const fd = openHeadFile(path);
  try {
    writeRecord(fd, encodeHead(record));
  } finally {
    closeSync(fd);
  }
}

/** The head files of an open log, kept open between commits. */
export class HeadFiles {
  private readonly fds = new Map<string, number>();

  constructor(readonly files: readonly string[]) {}

  /** Writes the record to every file; returns those that failed (never throws). */
  write(record: HeadRecord): { file: string; error: unknown }[] {
    const data = encodeHead(record);
    const failed: { file: string; error: unknown }[] = [];
    for (const file of this.files) {
      try {
        let fd = this.fds.get(file);
        // Removed (or replaced) since it was opened: the next write goes to a new file there.
        if (fd !== undefined && fstatSync(fd).nlink === 0) {
          closeSync(fd);
          this.fds.delete(file);
          fd = undefined;
        }
        if (fd === undefined) {
          fd = openHeadFile(file);
          this.fds.set(file, fd);
        }
        writeRecord(fd, data);
      } catch (error) {
        failed.push({ file, error });
      }
    }
    return failed;
  }

  close(): void {
    for (const fd of this.fds.values()) {
      try {
        closeSync(fd);
      } catch {
        // already closed
      }
    }
    this.fds.clear();
  }
}

export type HeadRead = { file: string; state: 'missing' } | { file: string; state: 'unreadable'; error: string } | { file: string; state: 'read'; record: HeadRecord };

export function readHeadFile(file: string): HeadRead {
  for (let attempt = 0; ; attempt++) {
    const r = readHeadOnce(file);
    // A record caught while another process rewrote it reads as garbage: read it again.
    if (r.state !== 'unreadable' || attempt >= 3) return r;
    sleepSync(2);
  }
}

function readHeadOnce(file: string): HeadRead {
  if (!existsSync(file)) return { file, state: 'missing' };
  try {
    const r = JSON.parse(readFileSync(file, 'utf8')) as HeadRecord;
    if (!r || r.format !== 1 || !Number.isSafeInteger(r.seq) || r.seq < 0 || typeof r.hash !== 'string' || !/^[0-9a-f]{64}$/.test(r.hash) || typeof r.log !== 'string') {
      return { file, state: 'unreadable', error: 'not a Scroll head record' };
    }
    return { file, state: 'read', record: r };
  } catch (e) {
    return { file, state: 'unreadable', error: errorMessage(e) };
  }
}

/**
 * How a head recorded outside the file compares with the file:
 *  ok         the file holds that event with that hash (it may have grown since)
 *  missing    no head file (never written there, or removed)
 *  unreadable not a head record
 *  other-log  a head of another log (this one was created or replaced since)
 *  explained  the file differs there, and an event the log recorded after it says why (a purge,
 *             a recovery, a repair it found at open)
 *  cut        the file ends before the head: its tail was cut
 *  rewritten  the file has another hash at the head's seq: events up to it were changed
 */
export type HeadState = 'ok' | 'missing' | 'unreadable' | 'other-log' | 'explained' | 'cut' | 'rewritten';

export interface HeadFinding {
  file: string;
  state: HeadState;
  /** The head the file recorded, when it could be read. */
  head?: ChainHead;
  message: string;
}

/** Damage, as opposed to a note. `missing` counts only for the head beside the log (`required`). */
export function headIsDamage(f: HeadFinding, required: boolean): boolean {
  if (f.state === 'missing') return required;
  return f.state !== 'ok' && f.state !== 'explained';
}

/** What a recorded event says about earlier heads (meta.chain of purge, recovery and integrity events). */
export interface ChainExplanation {
  /** The head before the event's rewrite. */
  oldHead?: ChainHead | null;
  /** Heads at or after this seq (and before the event) may differ: the chain was recomputed from here. */
  rechainedFrom?: number;
  /** Head records of this other log id are explained (the log was replaced or re-created). */
  otherLogs?: string[];
}

/** Compares one head file with the file (cheap: a few indexed lookups). */
export function classifyHead(db: Database, read: HeadRead, logId: string | undefined, last: ChainHead | null): HeadFinding {
  const file = read.file;
  if (read.state === 'missing') return { file, state: 'missing', message: `${file}: no head recorded there` };
  if (read.state === 'unreadable') return { file, state: 'unreadable', message: `${file}: unreadable (${read.error})` };
  const rec = read.record;
  const head = { seq: rec.seq, hash: rec.hash };
  const explanation = () => explainedBy(db, rec);
  if (logId !== undefined && rec.log !== logId) {
    const by = explanation();
    if (by) return { file, state: 'explained', head, message: `${file}: a head of another log (${rec.log}); this log was re-created or replaced since (recorded at seq ${by})` };
    return { file, state: 'other-log', head, message: `${file} holds the head of another log (id ${rec.log}; this log is ${logId}): the log was replaced or re-created since` };
  }
  const at = db.prepare('SELECT hash FROM events WHERE seq = ?').get(rec.seq) as { hash: string | null } | undefined;
  const stored = at ? (at.hash ?? virtualHashAt(db, rec.seq)) : undefined;
  if (stored === rec.hash) {
    return { file, state: 'ok', head, message: `${file}: seq ${rec.seq} matches${last && last.seq > rec.seq ? ` (the log has grown to seq ${last.seq} since)` : ''}` };
  }
  const by = explanation();
  if (by !== undefined) return { file, state: 'explained', head, message: `${file}: seq ${rec.seq} (hash ${short(rec.hash)}) predates the rewrite recorded at seq ${by}` };
  if (!last || rec.seq > last.seq) {
    return {
      file, state: 'cut', head,
      message: `the log's tail was cut or rewritten after seq ${last?.seq ?? 0}: ${file} says the head is seq ${rec.seq} (hash ${short(rec.hash)})`,
    };
  }
  if (stored === undefined) {
    return { file, state: 'cut', head, message: `the log was cut at seq ${rec.seq}: ${file} names it as the head, the file has no such event` };
  }
  return {
    file, state: 'rewritten', head,
    message: `the log was rewritten at or before seq ${rec.seq}: ${file} recorded hash ${short(rec.hash)} there, the file has ${short(stored)}`,
  };
}

/** The seq of a recorded event after `rec` that explains why the file differs from it, if any. */
function explainedBy(db: Database, rec: HeadRecord): number | undefined {
  const rows = db
    .prepare(`SELECT seq, meta FROM events WHERE kind IN (${RECORD_KINDS.map(() => '?').join(', ')}) ORDER BY seq`)
    .all(...RECORD_KINDS) as { seq: number; meta: string }[];
  for (const r of rows) {
    let chain: ChainExplanation | undefined;
    try {
      chain = (JSON.parse(r.meta) as { chain?: ChainExplanation }).chain;
    } catch {
      continue;
    }
    if (!chain) continue;
    if (chain.otherLogs?.includes(rec.log)) return Number(r.seq);
    if (Number(r.seq) > rec.seq && chain.rechainedFrom !== undefined && chain.rechainedFrom <= rec.seq) return Number(r.seq);
    if (chain.oldHead && chain.oldHead.seq === rec.seq && chain.oldHead.hash === rec.hash) return Number(r.seq);
  }
  return undefined;
}

// --- seq ranges ------------------------------------------------------------------------------

/** Sorted seqs as inclusive ranges: [1,2,3,7] -> [[1,3],[7,7]]. */
export function toRanges(seqs: Iterable<number>): [number, number][] {
  const out: [number, number][] = [];
  for (const s of [...seqs].sort((a, b) => a - b)) {
    const last = out[out.length - 1];
    if (last && s <= last[1] + 1) last[1] = Math.max(last[1], s);
    else out.push([s, s]);
  }
  return out;
}

export function rangesText(ranges: [number, number][], max = 8): string {
  const parts = ranges.slice(0, max).map(([a, b]) => (a === b ? `${a}` : `${a}..${b}`));
  return parts.join(', ') + (ranges.length > max ? `, … (${ranges.length} ranges)` : '');
}

export function rangesCount(ranges: [number, number][]): number {
  return ranges.reduce((n, [a, b]) => n + b - a + 1, 0);
}

/** Whether every seq of [a, b] lies in one of `ranges`. */
export function covered(a: number, b: number, ranges: [number, number][]): boolean {
  let need = a;
  for (const [x, y] of [...ranges].sort((p, q) => p[0] - q[0])) {
    if (x > need) break;
    if (y >= need) need = y + 1;
    if (need > b) return true;
  }
  return need > b;
}

// --- the full verification ---------------------------------------------------------------------

export interface ChainVerification {
  ok: boolean;
  /** False for a schema-1 log (no chain yet: it starts when the log is next opened for writing). */
  chained: boolean;
  events: number;
  chainStart: number | null;
  /** The last event and its hash. */
  head: ChainHead | null;
  /** The first seq at which something is wrong (an event that does not verify, a hole, a cut). */
  firstBad: number | null;
  /** Events whose stored hash differs from the one recomputed from their row (first 100). */
  badSeqs: number[];
  holes: { declared: [number, number][]; undeclared: [number, number][] };
  triggers: TriggerState;
  heads: HeadFinding[];
  /** The log's own records (integrity, recovery, purge events), oldest first. */
  recorded: { seq: number; kind: string; summary: string }[];
  /** Every problem, one sentence each, naming its seq. */
  problems: string[];
}

export interface ChainVerifyOptions {
  /** Head files to compare: the one beside the log first (it must exist once the log has a chain), then mirrors. */
  headFiles?: string[];
  /** Rows per read. */
  page?: number;
}

/**
 * Verifies the chain, seq continuity (a missing seq is accepted only where a `recovery` event
 * declared it lost), the triggers, and the head files. Reads only.
 */
export function verifyChain(db: Database, opts: ChainVerifyOptions = {}): ChainVerification {
  const problems: { seq: number; text: string }[] = [];
  const chained = hasChainColumn(db);
  const startMeta = readMeta(db, 'chain_start');
  const chainStart = chained && startMeta !== undefined ? Number(startMeta) : null;
  const triggers = triggerState(db);
  for (const t of describeTriggers(triggers)) problems.push({ seq: 0, text: t });
  const purging = readMeta(db, 'purge_in_progress');
  if (purging !== undefined) problems.push({ seq: 0, text: `a purge began and did not finish (${purging}): the rows it changed may not verify` });

  const badSeqs: number[] = [];
  const gaps: [number, number][] = [];
  const declared: [number, number][] = [];
  const recorded: ChainVerification['recorded'] = [];
  const page = db.prepare(`SELECT * FROM events WHERE seq > ? ORDER BY seq LIMIT ${Math.max(1, opts.page ?? 1000)}`);
  let prev = GENESIS;
  let lastSeq = 0;
  let events = 0;
  let cols: string[] | undefined;
  /** Events right after an undeclared hole whose hash chained to the missing event. */
  const unverifiable: number[] = [];
  /** The run of events before the chain started (no stored hash) that `prev` covers, if any. */
  let legacy: [number, number] | null = null;
  for (;;) {
    const rows = page.all(lastSeq) as Row[];
    if (rows.length === 0) break;
    for (const r of rows) {
      const seq = Number(r.seq);
      events++;
      const afterGap = seq > lastSeq + 1;
      if (afterGap) gaps.push([lastSeq + 1, seq - 1]);
      lastSeq = seq;
      if (RECORD_KINDS.includes(r.kind as (typeof RECORD_KINDS)[number])) {
        let meta: { holes?: [number, number][] } = {};
        try {
          meta = JSON.parse(String(r.meta)) as typeof meta;
        } catch {
          // an unparsable meta declares nothing
        }
        if (r.kind === 'recovery' && Array.isArray(meta.holes)) {
          for (const h of meta.holes) if (Array.isArray(h) && Number.isSafeInteger(h[0]) && Number.isSafeInteger(h[1]) && h[1] < seq) declared.push([h[0], h[1]]);
        }
        recorded.push({ seq, kind: String(r.kind), summary: String(r.content).split('\n')[0].slice(0, 200) });
      }
      if (!chained) continue;
      cols ??= rowColumns(r);
      const expected = chainHash(prev, r, cols);
      const stored = r.hash as string | null;
      if (stored === null) {
        if (chainStart === null || seq >= chainStart) {
          if (badSeqs.length < 100) badSeqs.push(seq);
          problems.push({ seq, text: `seq ${seq} has no chain hash (written outside Scroll, or the chain was removed)` });
        } else {
          legacy = legacy ? [legacy[0], seq] : [seq, seq];
        }
        prev = expected;
      } else {
        if (stored !== expected && afterGap && !covered(gaps[gaps.length - 1][0], gaps[gaps.length - 1][1], declared)) {
          // Its predecessor is gone (the hole is reported): this event cannot be checked, not blamed.
          unverifiable.push(seq);
        } else if (stored !== expected) {
          if (badSeqs.length < 100) badSeqs.push(seq);
          problems.push({
            seq,
            text: legacy
              ? `seq ${seq} does not match its chain hash: it covers seqs ${legacy[0]}..${legacy[1]}, written before the chain started, and one of them or it was changed since (stored ${short(stored)}, recomputed ${short(expected)})`
              : `seq ${seq} does not match its chain hash: its row was changed after it was written (stored ${short(stored)}, recomputed ${short(expected)})`,
          });
        }
        legacy = null;
        prev = stored;
      }
    }
  }
  const head = lastSeq > 0 ? { seq: lastSeq, hash: prev } : null;
  const undeclared = gaps.filter(([a, b]) => !covered(a, b, declared));
  for (const [a, b] of undeclared) {
    const next = unverifiable.find((s) => s === b + 1);
    problems.push({
      seq: a,
      text: (a === b ? `seq ${a} is missing (deleted, and no recovery declared it lost)` : `seqs ${a}..${b} are missing (deleted, and no recovery declared them lost)`) +
        (next !== undefined ? `; seq ${next}, chained to it, cannot be verified` : ''),
    });
  }
  // seqs handed out past the last event: the file's own high-water mark says the tail was cut.
  const used = highestSeqUsed(db);
  if (used > lastSeq && !covered(lastSeq + 1, used, declared)) {
    problems.push({ seq: lastSeq + 1, text: `the log's tail was cut after seq ${lastSeq}: seqs up to ${used} were handed out (sqlite_sequence)` });
  }

  const logId = readMeta(db, 'log_id');
  const heads: HeadFinding[] = [];
  (opts.headFiles ?? []).forEach((file, i) => {
    const f = classifyHead(db, readHeadFile(file), logId, head);
    heads.push(f);
    // The head beside the log is written at every commit once the log has a chain.
    const required = i === 0 && chained && chainStart !== null && lastSeq >= chainStart;
    if (headIsDamage(f, required)) {
      problems.push({ seq: f.state === 'cut' ? Math.min((head?.seq ?? 0) + 1, f.head?.seq ?? Infinity) : (f.head?.seq ?? 0), text: f.state === 'missing' ? `${file} is missing: it is written at every commit, and without it a cut tail goes unseen` : f.message });
    }
  });
  const seqProblems = problems.filter((p) => p.seq > 0).map((p) => p.seq);
  return {
    ok: problems.length === 0,
    chained,
    events,
    chainStart,
    head,
    firstBad: seqProblems.length ? Math.min(...seqProblems) : null,
    badSeqs,
    holes: { declared: mergeRanges(declared), undeclared },
    triggers,
    heads,
    recorded,
    // Those naming a seq first, in seq order; then the rest (triggers, a marker) as found.
    problems: [...problems.filter((p) => p.seq > 0).sort((a, b) => a.seq - b.seq), ...problems.filter((p) => p.seq <= 0)].map((p) => p.text),
  };
}

/** Overlapping or adjacent ranges merged, sorted. */
export function mergeRanges(ranges: [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  for (const [a, b] of [...ranges].sort((p, q) => p[0] - q[0])) {
    const last = out[out.length - 1];
    if (last && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}
