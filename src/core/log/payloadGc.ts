/**
 * Payload hygiene: which files in the payload store no event references (orphans), which temp files
 * were left behind, and removing them (`scroll gc`, "Scroll: Remove Unreferenced Payload Files").
 *
 * Where orphans come from: a payload file is written before the event that points at it commits, so
 * an append or ingest that fails, is rolled back or is killed leaves its files behind (and a kill
 * mid-write a `.tmp-*` file). They are harmless, but they take disk space: after a full disk they
 * keep it full.
 *
 * What is never removed:
 *  - a file an event references, in this log or in a moved-aside damaged log beside it
 *    (`<db>.corrupt-*`, read read-only, best effort);
 *  - a file written or claimed (`PayloadStore.claim`, the access time) within the grace period
 *    (default 1 hour): a concurrent writer's file whose event has not committed yet. A writer that
 *    reuses an old file claims it first, and gc re-checks the claim after taking a file out of
 *    place (renamed to `.gc-*`) and puts it back when it was claimed meanwhile;
 *  - while a moved-aside log cannot be read in full (not a database any more, a damaged page), any
 *    unreferenced file whose bytes were written (modification time) before that log's last write,
 *    plus 2 s for coarse clocks: its unreadable events may point at any of them. Moving such a log
 *    elsewhere (or deleting it) lets gc free them.
 * A gc killed midway leaves at most a `.gc-*` file: the next gc puts it back when its payload file is
 * missing (else removes it), before anything else.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, renameSync, statSync, unlinkSync, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { openDatabase, type Database } from '../db';
import { errorMessage } from '../errors';
import type { EventLog } from './eventLog';
import { PAYLOAD_TEMP_PREFIX } from './payloadStore';

/** Unreferenced files younger than this are left alone by default: a write may be in progress. */
export const DEFAULT_GC_GRACE_MS = 60 * 60 * 1000;
/** Name prefix of a file gc has taken out of place and is about to remove (`<shard>/.gc-<handle>-…`). */
export const GC_QUARANTINE_PREFIX = '.gc-';
/** A moved-aside log's last write may be stamped this much earlier than a payload written before it. */
const CLOCK_SLACK_MS = 2000;
/** Rows read per statement when collecting references (the caller's thread yields between them). */
const CHUNK = 5000;
/** Rows per statement in a damaged log: a statement that meets a damaged page returns nothing. */
const DAMAGED_CHUNK = 100;

const SHARD = /^[0-9a-f]{2}$/;
const HANDLE = /^[0-9a-f]{64}$/;
const QUARANTINED = /^\.gc-([0-9a-f]{64})-/;
const COMPANION = /-(wal|shm|journal)$/;

/** A damaged log moved aside by recovery (`<db>.corrupt-<time>`), and what could be read of it. */
export interface MovedAsideLog {
  path: string;
  /** 'all': every event row was read; 'part': reading stopped at damage; 'none': not readable at all. */
  read: 'all' | 'part' | 'none';
  /** Distinct payload handles found in what was read. */
  payloads: number;
  /** Its last write (the later modification time of the file and its -wal), ms since the epoch. */
  lastWriteMs: number;
  error?: string;
}

export interface FileCount {
  files: number;
  bytes: number;
}

/** What `scroll check` reports about the payload folder. Orphans are a warning, not damage. */
export interface PayloadHygiene {
  /** Payload files some event references (this log or a moved-aside one). */
  referenced: number;
  /** Payload files no event references. `young`: of those, written or claimed within the grace period. */
  orphans: FileCount & { young: number };
  /** Stray temp files (`.tmp-*` left by an interrupted write, `.gc-*` by an interrupted gc). */
  temps: FileCount & { young: number };
  /** Unreferenced files kept because a moved-aside log that could not be read in full may reference them. */
  keptForMovedAsideLogs: FileCount;
  movedAside: MovedAsideLog[];
  /** Set when the scan could not run (e.g. the events could not be read): the counts are then 0. */
  error?: string;
}

export interface GcProgress {
  phase: 'references' | 'moved-aside logs' | 'files';
  done: number;
  total: number;
}

export interface GcOptions {
  /** Unreferenced files written or claimed more recently than this are kept. Default 1 hour. */
  graceMs?: number;
  /** Report what would be removed, remove nothing. */
  dryRun?: boolean;
  /** Stops between two steps; the result says `stopped` (what was removed so far stays removed). */
  signal?: AbortSignal;
  onProgress?: (p: GcProgress) => void;
  /** The clock (tests). */
  now?: number;
}

export interface GcResult {
  payloadDir: string;
  graceMs: number;
  dryRun: boolean;
  /** Removed (or, with dryRun, removable): unreferenced payload files and stray temp files. */
  freed: { payloads: number; temps: number; bytes: number };
  kept: {
    referenced: number;
    /** Unreferenced or temp files within the grace period. */
    young: FileCount;
    forMovedAsideLogs: FileCount;
  };
  /** `.gc-*` files of an interrupted gc put back in place (their payload file was missing). */
  restored: number;
  movedAside: MovedAsideLog[];
  /** Files that could not be removed, with why. */
  failures: string[];
  /** The signal stopped it before the end. */
  stopped: boolean;
}

/** The moved-aside damaged logs beside `logPath` (`<name>.corrupt-*`, without their -wal/-shm). */
export function movedAsideLogs(logPath: string): string[] {
  const dir = dirname(logPath);
  const prefix = `${basename(logPath)}.corrupt-`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((n) => n.startsWith(prefix) && !COMPANION.test(n)).sort().map((n) => join(dir, n));
}

/** The check's report (synchronous; `scroll check` and the editor's check, on its worker). Never throws. */
export function payloadHygiene(db: Database, payloadDir: string, opts: { graceMs?: number; now?: number } = {}): PayloadHygiene {
  try {
    const scan = runSync(scanStore(db, payloadDir, opts.graceMs ?? DEFAULT_GC_GRACE_MS, opts.now ?? Date.now(), undefined));
    const orphans = { files: 0, bytes: 0, young: 0 };
    const temps = { files: 0, bytes: 0, young: 0 };
    const kept = { files: 0, bytes: 0 };
    for (const f of scan.files) {
      if (f.verdict === 'referenced') continue;
      if (f.verdict === 'moved-aside') {
        kept.files++;
        kept.bytes += f.size;
        continue;
      }
      const into = f.kind === 'payload' ? orphans : temps; // a `.gc-*` file counts as a temp file
      into.files++;
      into.bytes += f.size;
      if (f.verdict === 'young') into.young++;
    }
    return { referenced: scan.referencedFiles, orphans, temps, keptForMovedAsideLogs: kept, movedAside: scan.movedAside };
  } catch (e) {
    return {
      referenced: 0,
      orphans: { files: 0, bytes: 0, young: 0 },
      temps: { files: 0, bytes: 0, young: 0 },
      keptForMovedAsideLogs: { files: 0, bytes: 0 },
      movedAside: [],
      error: errorMessage(e),
    };
  }
}

/**
 * Removes the payload files no event references and the stray temp files, once older than the grace
 * period; what the editor command and `scroll gc` call. Yields to the event loop between steps (a
 * few thousand rows, one shard folder), so the editor stays responsive without a worker thread: the
 * walk is one directory read and a stat per file. Fails (removing nothing) when this log's events
 * cannot be read in full.
 */
export async function collectGarbage(log: EventLog, opts: GcOptions = {}): Promise<GcResult> {
  const graceMs = opts.graceMs ?? DEFAULT_GC_GRACE_MS;
  if (!(Number.isFinite(graceMs) && graceMs >= 0)) throw new RangeError(`graceMs must be a number of milliseconds ≥ 0 (got ${graceMs})`);
  const now = opts.now ?? Date.now();
  const payloadDir = log.payloads.dir;
  const result: GcResult = {
    payloadDir,
    graceMs,
    dryRun: opts.dryRun === true,
    freed: { payloads: 0, temps: 0, bytes: 0 },
    kept: { referenced: 0, young: { files: 0, bytes: 0 }, forMovedAsideLogs: { files: 0, bytes: 0 } },
    restored: 0,
    movedAside: [],
    failures: [],
    stopped: false,
  };
  const stop = () => opts.signal?.aborted === true;
  // First put back what an interrupted gc left out of place, so the scan sees the store as it is.
  if (!result.dryRun) result.restored = restoreQuarantined(payloadDir, result.failures);

  const scanning = scanStore(log.database, payloadDir, graceMs, now, opts.onProgress);
  let step = scanning.next();
  while (!step.done) {
    await yieldToEventLoop();
    if (stop()) {
      scanning.return(undefined as never);
      result.stopped = true;
      return result;
    }
    step = scanning.next();
  }
  const scan = step.value;
  result.kept.referenced = scan.referencedFiles;
  result.movedAside = scan.movedAside;

  const cutoff = now - graceMs;
  let done = 0;
  const total = scan.files.length;
  for (const f of scan.files) {
    if (++done % 200 === 0) {
      opts.onProgress?.({ phase: 'files', done, total });
      await yieldToEventLoop();
      if (stop()) {
        result.stopped = true;
        break;
      }
    }
    if (f.verdict === 'referenced') continue;
    if (f.verdict === 'moved-aside') {
      result.kept.forMovedAsideLogs.files++;
      result.kept.forMovedAsideLogs.bytes += f.size;
      continue;
    }
    if (f.verdict === 'young') {
      result.kept.young.files++;
      result.kept.young.bytes += f.size;
      continue;
    }
    const counter = f.kind === 'payload' ? 'payloads' : 'temps';
    if (result.dryRun) {
      result.freed[counter]++;
      result.freed.bytes += f.size;
      continue;
    }
    try {
      if (f.kind === 'quarantine') {
        // Taken aside by another gc that has died since this one started (its pid is gone): put
        // back when its payload file is missing, else removed.
        if (restoreOne(f.path)) result.restored++;
        else {
          result.freed.temps++;
          result.freed.bytes += f.size;
        }
        continue;
      }
      const removed = f.kind === 'payload' ? removePayload(f, cutoff) : removeFile(f.path);
      if (removed === undefined) {
        // Claimed by a writer meanwhile (put back), or gone already.
        if (f.kind === 'payload' && existsSync(f.path)) {
          result.kept.young.files++;
          result.kept.young.bytes += f.size;
        }
        continue;
      }
      result.freed[counter]++;
      result.freed.bytes += removed;
    } catch (e) {
      result.failures.push(`${f.path}: ${errorMessage(e)}`);
    }
  }
  opts.onProgress?.({ phase: 'files', done: total, total });
  return result;
}

/** Human-readable size: 1.2 MB, 830 kB, 12 B. */
export function formatBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let v = n;
  let u = -1;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u++;
  }
  return `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} ${units[u]}`;
}

/** "1h", "30m", "45s", "0": how `--grace` values are shown. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0';
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1000]] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

// ---------------------------------------------------------------------------------------------

interface ScannedFile {
  path: string;
  /** 'quarantine': a `.gc-*` file (a temp file too, for the check). */
  kind: 'payload' | 'temp' | 'quarantine';
  size: number;
  verdict: 'referenced' | 'moved-aside' | 'young' | 'removable';
}

interface Scan {
  files: ScannedFile[];
  referencedFiles: number;
  movedAside: MovedAsideLog[];
}

/**
 * Reads every reference (this log: must succeed; moved-aside logs: best effort), then classifies
 * every file of the store. A generator that yields between steps: run to the end synchronously
 * (the check) or with the event loop turning in between (gc in the editor).
 */
function* scanStore(db: Database, payloadDir: string, graceMs: number, now: number, onProgress: GcOptions['onProgress']): Generator<void, Scan, void> {
  const referenced = new Set<string>();
  yield* readReferences(db, referenced, (done) => onProgress?.({ phase: 'references', done, total: 0 }));

  const movedAside: MovedAsideLog[] = [];
  const aside = db.path ? movedAsideLogs(db.path) : [];
  for (const [i, path] of aside.entries()) {
    onProgress?.({ phase: 'moved-aside logs', done: i, total: aside.length });
    movedAside.push(yield* readMovedAside(path, referenced));
  }
  // Its unreadable rows may point at any file written before its last write.
  const unreadableUntil = Math.max(-Infinity, ...movedAside.filter((m) => m.read !== 'all').map((m) => m.lastWriteMs + CLOCK_SLACK_MS));

  const cutoff = now - graceMs;
  const files: ScannedFile[] = [];
  let referencedFiles = 0;
  const shards = listDir(payloadDir).filter((n) => SHARD.test(n)).sort();
  for (const [i, shard] of shards.entries()) {
    onProgress?.({ phase: 'files', done: i, total: shards.length });
    const shardDir = join(payloadDir, shard);
    for (const name of listDir(shardDir)) {
      const path = join(shardDir, name);
      let kind: ScannedFile['kind'];
      if (HANDLE.test(name) && name.startsWith(shard)) kind = 'payload';
      else if (name.startsWith(PAYLOAD_TEMP_PREFIX)) kind = 'temp';
      else if (QUARANTINED.test(name)) kind = 'quarantine';
      else continue; // not the store's: left alone
      let st: Stats;
      try {
        st = lstatSync(path);
      } catch {
        continue; // removed meanwhile
      }
      if (!st.isFile()) continue;
      let verdict: ScannedFile['verdict'];
      if (kind === 'payload' && referenced.has(name)) {
        verdict = 'referenced';
        referencedFiles++;
      } else if (kind === 'payload' && st.mtimeMs <= unreadableUntil) verdict = 'moved-aside';
      else if (kind === 'quarantine') verdict = quarantinedBy(name) !== undefined ? 'young' : 'removable';
      else if (Math.max(st.atimeMs, st.mtimeMs) >= cutoff) verdict = 'young';
      else verdict = 'removable';
      files.push({ path, kind, size: st.size, verdict });
    }
    yield;
  }
  return { files, referencedFiles, movedAside };
}

/** Every payload handle of `db`'s events, a chunk of rows at a time. Throws when they cannot all be read. */
function* readReferences(db: Database, into: Set<string>, onChunk: (rows: number) => void): Generator<void, void, void> {
  const stmt = db.prepare('SELECT seq, payload FROM events WHERE seq > ? AND payload IS NOT NULL ORDER BY seq LIMIT ?');
  let after = 0;
  let rows = 0;
  for (;;) {
    const chunk = stmt.all(after, CHUNK) as { seq: number; payload: string }[];
    for (const r of chunk) into.add(r.payload);
    rows += chunk.length;
    onChunk(rows);
    if (chunk.length < CHUNK) break;
    after = Number(chunk[chunk.length - 1].seq);
    yield;
  }
  // Binary payloads (images of captured transcripts) an event names in meta.binaries (schema 3).
  const hasBinaries = db.prepare("SELECT 1 AS x FROM sqlite_schema WHERE type = 'table' AND name = 'event_binaries'").get();
  if (hasBinaries) for (const r of db.prepare('SELECT DISTINCT handle FROM event_binaries').all() as { handle: string }[]) into.add(r.handle);
}

/**
 * Best effort: the payload handles of a moved-aside log, read-only. Reading forward stops at the
 * first damaged page; then it reads backward from the end down to it, so damage in the middle
 * loses only what lies there. Any failure makes the log 'part' or 'none' (see scanStore).
 */
function* readMovedAside(path: string, into: Set<string>): Generator<void, MovedAsideLog, void> {
  // A -wal holds writes only when it is not empty (opening read-only may create an empty one).
  const lastWrite = (p: string, ifNotEmpty: boolean) => {
    try {
      const st = statSync(p);
      return ifNotEmpty && st.size === 0 ? -Infinity : st.mtimeMs;
    } catch {
      return -Infinity;
    }
  };
  const info: MovedAsideLog = { path, read: 'none', payloads: 0, lastWriteMs: Math.max(lastWrite(path, false), lastWrite(`${path}-wal`, true)) };
  const found = new Set<string>();
  // SQLite makes a -wal and -shm beside a WAL-mode file it opens; removed again below when this
  // read made them (and nothing was written: an empty -wal), so the log stays as it was found.
  const hadWal = existsSync(`${path}-wal`);
  const hadShm = existsSync(`${path}-shm`);
  let db: Database | undefined;
  try {
    db = openDatabase(path, { readonly: true, busyTimeoutMs: 0 });
    let after = 0;
    let readSome = false;
    try {
      const forward = db.prepare('SELECT seq, payload FROM events WHERE seq > ? ORDER BY seq LIMIT ?');
      for (;;) {
        const chunk = forward.all(after, DAMAGED_CHUNK) as { seq: number; payload: string | null }[];
        readSome = true;
        for (const r of chunk) if (typeof r.payload === 'string') found.add(r.payload);
        if (chunk.length < DAMAGED_CHUNK) {
          info.read = 'all';
          break;
        }
        after = Number(chunk[chunk.length - 1].seq);
        yield;
      }
    } catch (e) {
      info.error = errorMessage(e);
      try {
        const backward = db.prepare('SELECT seq, payload FROM events WHERE seq > ? AND seq < ? ORDER BY seq DESC LIMIT ?');
        for (let before = Number.MAX_SAFE_INTEGER; ;) {
          const chunk = backward.all(after, before, DAMAGED_CHUNK) as { seq: number; payload: string | null }[];
          readSome = true;
          for (const r of chunk) if (typeof r.payload === 'string') found.add(r.payload);
          if (chunk.length < DAMAGED_CHUNK) break;
          before = Number(chunk[chunk.length - 1].seq);
          yield;
        }
      } catch {
        // stopped at the damage from this side too: what both passes read stands
      }
      info.read = readSome ? 'part' : 'none';
    }
  } catch (e) {
    info.error ??= errorMessage(e);
  } finally {
    try {
      db?.close();
    } catch {
      // a damaged file may refuse even that
    }
    tidyCompanions(path, hadWal, hadShm);
  }
  for (const h of found) into.add(h);
  info.payloads = found.size;
  return info;
}

function tidyCompanions(path: string, hadWal: boolean, hadShm: boolean): void {
  try {
    if (hadWal || (existsSync(`${path}-wal`) && statSync(`${path}-wal`).size > 0)) return;
    if (existsSync(`${path}-wal`)) unlinkSync(`${path}-wal`);
    if (!hadShm && existsSync(`${path}-shm`)) unlinkSync(`${path}-shm`);
  } catch {
    // left as they are: empty companions are harmless
  }
}

/**
 * Removes one unreferenced payload file unless a writer claims it meanwhile: takes it out of place
 * (rename, atomic: a writer now finds no file and writes it anew), re-reads its claim mark, and puts
 * it back when it was claimed since the scan. Returns the bytes freed, or undefined when kept/gone.
 */
function removePayload(f: ScannedFile, cutoff: number): number | undefined {
  const handle = basename(f.path);
  const aside = join(dirname(f.path), `${GC_QUARANTINE_PREFIX}${handle}-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    renameSync(f.path, aside);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  const st = lstatSync(aside);
  if (Math.max(st.atimeMs, st.mtimeMs) >= cutoff) {
    // Claimed between the scan and the rename: back in place (over a copy a writer may have made
    // meanwhile, which holds the same bytes: the name is their hash).
    renameSync(aside, f.path);
    return undefined;
  }
  unlinkSync(aside);
  return st.size;
}

function removeFile(path: string): number | undefined {
  let size: number;
  try {
    size = lstatSync(path).size;
    unlinkSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  return size;
}

/**
 * Puts back the `.gc-*` files of interrupted gcs whose payload file is missing and removes the
 * others; a file another gc that is still running has taken aside is its business and left alone.
 */
function restoreQuarantined(payloadDir: string, failures: string[]): number {
  let restored = 0;
  for (const shard of listDir(payloadDir)) {
    if (!SHARD.test(shard)) continue;
    const shardDir = join(payloadDir, shard);
    for (const name of listDir(shardDir)) {
      if (!QUARANTINED.test(name) || quarantinedBy(name) !== undefined) continue;
      const aside = join(shardDir, name);
      try {
        if (restoreOne(aside)) restored++;
      } catch (e) {
        failures.push(`${aside}: ${errorMessage(e)}`);
      }
    }
  }
  return restored;
}

/** A `.gc-*` file back under its payload name when that is missing (true), else removed (false). */
function restoreOne(aside: string): boolean {
  const m = QUARANTINED.exec(basename(aside));
  if (!m) return false;
  const target = join(dirname(aside), m[1]);
  try {
    if (existsSync(target)) {
      unlinkSync(aside);
      return false;
    }
    renameSync(aside, target);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false; // handled by someone else meanwhile
    throw e;
  }
}

/** The pid of the running gc (another process) that took this `.gc-<handle>-<pid>-…` file aside, if any. */
function quarantinedBy(name: string): number | undefined {
  const pid = Number(/^\.gc-[0-9a-f]{64}-(\d+)-/.exec(name)?.[1]);
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return undefined;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM' ? pid : undefined;
  }
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function runSync<T>(gen: Generator<void, T, void>): T {
  for (;;) {
    const step = gen.next();
    if (step.done) return step.value;
  }
}
