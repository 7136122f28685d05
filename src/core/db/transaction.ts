import { DatabaseError } from '../errors';
import { isBusyError, sleepSync } from './sqliteErrors';

/** Total time we keep retrying to take the write lock before reporting failure. */
const LOCK_RETRY_BUDGET_MS = 60_000;

/**
 * Shared transaction logic for both drivers: `BEGIN IMMEDIATE` with retry and jittered
 * backoff (busy_timeout already waits inside SQLite; the retry covers the cases where SQLite
 * returns BUSY without calling the busy handler), savepoints for nesting.
 */
export class TransactionRunner {
  private depth = 0;
  private savepointCounter = 0;

  constructor(private readonly exec: (sql: string) => void, private readonly label: string) {}

  /** True inside a transaction this runner opened (its writes are not committed yet). */
  get active(): boolean {
    return this.depth > 0;
  }

  run<T>(fn: () => T): T {
    if (this.depth > 0) return this.runNested(fn);
    this.beginImmediate();
    this.depth++;
    let result: T;
    try {
      result = fn();
    } catch (e) {
      this.depth--;
      this.rollbackQuietly();
      throw e;
    }
    this.depth--;
    this.commitWithRetry();
    return result;
  }

  /**
   * Opens a transaction that outlives one synchronous call (a streamed bulk append). `transaction()`
   * calls made before `commit()`/`rollback()` nest inside it as savepoints.
   */
  begin(): void {
    if (this.depth > 0) throw new DatabaseError(`${this.label}: begin() inside an open transaction`);
    this.beginImmediate();
    this.depth++;
  }

  commit(): void {
    if (this.depth !== 1) throw new DatabaseError(`${this.label}: commit() without a matching begin()`);
    this.depth--;
    this.commitWithRetry();
  }

  rollback(): void {
    if (this.depth !== 1) throw new DatabaseError(`${this.label}: rollback() without a matching begin()`);
    this.depth--;
    this.rollbackQuietly();
  }

  private runNested<T>(fn: () => T): T {
    const name = `scroll_sp_${++this.savepointCounter}`;
    this.exec(`SAVEPOINT ${name}`);
    this.depth++;
    try {
      const result = fn();
      this.exec(`RELEASE ${name}`);
      return result;
    } catch (e) {
      this.exec(`ROLLBACK TO ${name}`);
      this.exec(`RELEASE ${name}`);
      throw e;
    } finally {
      this.depth--;
    }
  }

  private beginImmediate(): void {
    const deadline = Date.now() + LOCK_RETRY_BUDGET_MS;
    let delay = 5;
    for (;;) {
      try {
        this.exec('BEGIN IMMEDIATE');
        return;
      } catch (e) {
        if (!isBusyError(e)) throw e;
        if (Date.now() >= deadline) {
          throw new DatabaseError(`${this.label}: another process has held the write lock for over ${LOCK_RETRY_BUDGET_MS / 1000} s`, { cause: e });
        }
        sleepSync(delay + Math.random() * delay);
        delay = Math.min(delay * 2, 200);
      }
    }
  }

  private commitWithRetry(): void {
    const deadline = Date.now() + LOCK_RETRY_BUDGET_MS;
    let delay = 5;
    for (;;) {
      try {
        this.exec('COMMIT');
        return;
      } catch (e) {
        // COMMIT can be BUSY while readers block a checkpoint; the transaction stays open, retry.
        if (!isBusyError(e) || Date.now() >= deadline) {
          this.rollbackQuietly();
          throw e;
        }
        sleepSync(delay + Math.random() * delay);
        delay = Math.min(delay * 2, 200);
      }
    }
  }

  private rollbackQuietly(): void {
    try {
      this.exec('ROLLBACK');
    } catch {
      // Already rolled back by SQLite (e.g. after an I/O error): nothing left to undo.
    }
  }
}
