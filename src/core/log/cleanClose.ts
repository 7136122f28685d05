/**
 * Opening a log for writing checks every b-tree page of it first (`inspectExisting` in
 * eventLog.ts: about a second per GB, on the thread that opens it), so a damaged file is moved
 * aside and salvaged before anything is appended to it. A file that is exactly as a clean close of
 * this log left it needs no second look: the close recorded the file's identity — device, inode,
 * size and change time — in the head file beside it, after SQLite had folded the WAL into the file
 * and removed it. Any later write to the file (by Scroll or anything else, a damaged page, a cut
 * tail) changes its change time, which no one can set back without changing it again; a pending
 * WAL means writes the file does not hold yet. Either way the next open checks the pages as before.
 * `scroll check` always verifies everything.
 */
import { statSync } from 'node:fs';
import { sleepSync } from '../db/sqliteErrors';
import { headFileFor, readHeadFile, writeHeadFile, type ChainHead } from './chain';

/**
 * File times come from a clock that ticks every few milliseconds (a jiffy on Linux): a write in
 * the same tick as the close's own last write would leave the change time as it was. The mark is
 * written only once this much has passed since that write (the close waits for the rest).
 */
const TIMESTAMP_TICK_MS = 25;

/** The database file as it is now: `dev:ino:size:ctimeNs`; undefined when it cannot be read. */
export function fileIdentity(path: string): string | undefined {
  try {
    const s = statSync(path, { bigint: true });
    return `${s.dev}:${s.ino}:${s.size}:${s.ctimeNs}`;
  } catch {
    return undefined;
  }
}

/** True when SQLite has no writes pending for the file in its WAL (none, or an empty one). */
function noPendingWal(dbPath: string): boolean {
  try {
    return statSync(`${dbPath}-wal`).size === 0;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/**
 * After the last connection closed cleanly (the WAL is gone): writes the head beside the log with
 * the file's identity. A connection still open elsewhere keeps the WAL, and then nothing is marked.
 * Best effort: a head file that cannot be written only means the next open checks the pages.
 */
export function recordCleanClose(dbPath: string, head: ChainHead, logId: string): boolean {
  if (!noPendingWal(dbPath)) return false;
  let ctimeNs: bigint;
  try {
    ctimeNs = statSync(dbPath, { bigint: true }).ctimeNs;
  } catch {
    return false;
  }
  // Whole milliseconds: a file system with coarse times (FAT, HFS+, some network shares), where a
  // later write could keep the time for up to seconds. Such a log is always checked.
  if (ctimeNs % 1_000_000n === 0n) return false;
  const sinceMs = Date.now() - Number(ctimeNs / 1_000_000n);
  if (sinceMs < 0) return false; // a file time ahead of this clock (a network share): no claim
  if (sinceMs < TIMESTAMP_TICK_MS) sleepSync(TIMESTAMP_TICK_MS - sinceMs);
  const closed = fileIdentity(dbPath);
  if (!closed) return false;
  try {
    writeHeadFile(headFileFor(dbPath), { format: 1, log: logId, seq: head.seq, hash: head.hash, ts: new Date().toISOString(), closed });
    return true;
  } catch {
    return false;
  }
}

/** True when the file is exactly as the clean close recorded in its head file left it. */
export function unchangedSinceCleanClose(dbPath: string): boolean {
  const read = readHeadFile(headFileFor(dbPath));
  if (read.state !== 'read' || typeof read.record.closed !== 'string') return false;
  return noPendingWal(dbPath) && fileIdentity(dbPath) === read.record.closed;
}
