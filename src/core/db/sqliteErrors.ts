/** Recognising SQLite error classes across both drivers (their error objects differ). */

interface SqliteLikeError {
  code?: unknown;
  errcode?: unknown;
  message?: unknown;
}

function primaryCode(e: SqliteLikeError): number | undefined {
  return typeof e.errcode === 'number' ? e.errcode & 0xff : undefined;
}

/** SQLITE_BUSY (5) or SQLITE_LOCKED (6): another connection holds the lock; worth retrying. */
export function isBusyError(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as SqliteLikeError;
  const pc = primaryCode(e);
  if (pc === 5 || pc === 6) return true;
  if (typeof e.code === 'string' && /^SQLITE_(BUSY|LOCKED)/.test(e.code)) return true;
  return typeof e.message === 'string' && /database is locked|database table is locked/i.test(e.message);
}

/** SQLITE_CORRUPT (11) or SQLITE_NOTADB (26): the file is damaged or not a database at all. */
export function isCorruptionError(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as SqliteLikeError;
  const pc = primaryCode(e);
  if (pc === 11 || pc === 26) return true;
  if (typeof e.code === 'string' && /^SQLITE_(CORRUPT|NOTADB)/.test(e.code)) return true;
  return typeof e.message === 'string' && /file is not a database|database disk image is malformed/i.test(e.message);
}

/** An error raised by SQLite itself (as opposed to the driver failing to load). */
export function isSqliteError(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as SqliteLikeError;
  return (typeof e.code === 'string' && e.code.startsWith('SQLITE_')) || e.code === 'ERR_SQLITE_ERROR' || typeof e.errcode === 'number';
}

const sleepCell = new Int32Array(new SharedArrayBuffer(4));
/** Blocks the thread for `ms` (the drivers are synchronous, so the retry must be too). */
export function sleepSync(ms: number): void {
  Atomics.wait(sleepCell, 0, 0, ms);
}
