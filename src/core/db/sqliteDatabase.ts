import type { Database, DriverName, Statement } from './types';
import { TransactionRunner } from './transaction';

/**
 * What both drivers share: SQL execution and the transaction protocol (BEGIN IMMEDIATE with
 * retry, savepoints) go through one `TransactionRunner`. A driver supplies only `execSql`,
 * `prepare` and `close`.
 */
export abstract class SqliteDatabase implements Database {
  abstract readonly driver: DriverName;
  private readonly tx: TransactionRunner;

  protected constructor(readonly path: string, readonly readonly: boolean) {
    this.tx = new TransactionRunner((sql) => this.execSql(sql), path);
  }

  protected abstract execSql(sql: string): void;
  abstract prepare(sql: string): Statement;
  abstract close(): void;

  get inTransaction(): boolean {
    return this.tx.active;
  }
  exec(sql: string): void {
    this.execSql(sql);
  }
  transaction<T>(fn: () => T): T {
    return this.tx.run(fn);
  }
  begin(): void {
    this.tx.begin();
  }
  commit(): void {
    this.tx.commit();
  }
  rollback(): void {
    this.tx.rollback();
  }
}
