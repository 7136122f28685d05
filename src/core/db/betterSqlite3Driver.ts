import type BetterSqlite3 from 'better-sqlite3';
import type { Database, RunResult, Statement } from './types';
import { normalizeParams } from './params';
import { TransactionRunner } from './transaction';

type BetterDb = BetterSqlite3.Database;
type BetterStatement = BetterSqlite3.Statement;

let constructorCache: typeof BetterSqlite3 | undefined;

/** Loads the module lazily: the native addon itself is only loaded by the first `new Database`. */
function betterSqlite3(): typeof BetterSqlite3 {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  constructorCache ??= require('better-sqlite3') as typeof BetterSqlite3;
  return constructorCache;
}

class BetterStatementAdapter implements Statement {
  constructor(private readonly stmt: BetterStatement) {}
  run(...params: unknown[]): RunResult {
    const r = this.stmt.run(...normalizeParams(params));
    return { changes: r.changes, lastInsertRowid: Number(r.lastInsertRowid) };
  }
  get(...params: unknown[]): any {
    return this.stmt.get(...normalizeParams(params));
  }
  all(...params: unknown[]): any[] {
    return this.stmt.all(...normalizeParams(params));
  }
}

export class BetterSqlite3Database implements Database {
  readonly driver = 'better-sqlite3' as const;
  private readonly db: BetterDb;
  private readonly tx: TransactionRunner;

  constructor(readonly path: string, readonly readonly: boolean) {
    const Ctor = betterSqlite3();
    this.db = new Ctor(path, { readonly, fileMustExist: readonly });
    this.tx = new TransactionRunner((sql) => this.db.exec(sql), path);
  }

  exec(sql: string): void {
    this.db.exec(sql);
  }
  prepare(sql: string): Statement {
    return new BetterStatementAdapter(this.db.prepare(sql));
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
  close(): void {
    if (this.db.open) this.db.close();
  }
}
