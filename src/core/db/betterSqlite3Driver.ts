import type BetterSqlite3 from 'better-sqlite3';
import type { RunResult, Statement } from './types';
import { normalizeParams } from './params';
import { SqliteDatabase } from './sqliteDatabase';

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

export class BetterSqlite3Database extends SqliteDatabase {
  readonly driver = 'better-sqlite3' as const;
  private readonly db: BetterDb;

  constructor(path: string, readonly: boolean) {
    super(path, readonly);
    const Ctor = betterSqlite3();
    this.db = new Ctor(path, { readonly, fileMustExist: readonly });
  }

  protected execSql(sql: string): void {
    this.db.exec(sql);
  }
  prepare(sql: string): Statement {
    return new BetterStatementAdapter(this.db.prepare(sql));
  }
  close(): void {
    if (this.db.open) this.db.close();
  }
}
