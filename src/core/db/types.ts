/** The one SQLite interface the rest of Scroll uses; drivers in this folder implement it. */

export type DriverName = 'better-sqlite3' | 'node:sqlite';
export type DriverChoice = 'auto' | DriverName;

export interface RunResult {
  changes: number;
  lastInsertRowid: number;
}

export interface Statement {
  run(...params: unknown[]): RunResult;
  get(...params: unknown[]): any;
  all(...params: unknown[]): any[];
}

export interface Database {
  readonly driver: DriverName;
  readonly path: string;
  readonly readonly: boolean;
  /** True between begin()/transaction() and their commit or rollback: writes not yet committed. */
  readonly inTransaction: boolean;
  exec(sql: string): void;
  prepare(sql: string): Statement;
  /**
   * Runs `fn` inside `BEGIN IMMEDIATE … COMMIT` (rolled back if it throws). Nested calls use a
   * savepoint. Taking the write lock is retried with backoff, so a busy database waits instead of
   * surfacing SQLITE_BUSY.
   */
  transaction<T>(fn: () => T): T;
  /** A transaction spanning async steps: `begin()` (BEGIN IMMEDIATE, retried), then `commit()` or `rollback()`. */
  begin(): void;
  commit(): void;
  rollback(): void;
  close(): void;
}

export interface OpenOptions {
  readonly?: boolean;
  driver?: DriverChoice;
  /** Milliseconds SQLite waits on a lock before giving up (PRAGMA busy_timeout). Default 5000. */
  busyTimeoutMs?: number;
  /** Bytes of the file SQLite reads through a memory map (PRAGMA mmap_size). Default MMAP_BYTES; 0 reads with read(). */
  mmapBytes?: number;
}
