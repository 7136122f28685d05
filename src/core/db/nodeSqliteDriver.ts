import type { RunResult, Statement } from './types';
import { normalizeParams } from './params';
import { SqliteDatabase } from './sqliteDatabase';

/** The subset of `node:sqlite` we use (typed here: @types/node 20 does not declare it). */
interface NodeStatementSync {
  run(...p: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...p: unknown[]): unknown;
  all(...p: unknown[]): unknown[];
}
interface NodeDatabaseSync {
  exec(sql: string): void;
  prepare(sql: string): NodeStatementSync;
  close(): void;
  readonly isOpen?: boolean;
}
interface NodeSqliteModule {
  DatabaseSync: new (path: string, options?: { readOnly?: boolean; open?: boolean }) => NodeDatabaseSync;
}

let moduleCache: NodeSqliteModule | undefined;

/**
 * `node:sqlite` exists from Node 22.5 (flag-free from 22.13/23.4). Required lazily so this file
 * still loads on Node 20, where only better-sqlite3 is available.
 */
export function loadNodeSqlite(): NodeSqliteModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  moduleCache ??= require('node:sqlite') as NodeSqliteModule;
  return moduleCache;
}

class NodeStatementAdapter implements Statement {
  constructor(private readonly stmt: NodeStatementSync) {}
  run(...params: unknown[]): RunResult {
    const r = this.stmt.run(...normalizeParams(params));
    return { changes: Number(r.changes), lastInsertRowid: Number(r.lastInsertRowid) };
  }
  get(...params: unknown[]): any {
    return this.stmt.get(...normalizeParams(params));
  }
  all(...params: unknown[]): any[] {
    return this.stmt.all(...normalizeParams(params));
  }
}

export class NodeSqliteDatabase extends SqliteDatabase {
  readonly driver = 'node:sqlite' as const;
  private readonly db: NodeDatabaseSync;
  private closed = false;

  constructor(path: string, readonly: boolean) {
    super(path, readonly);
    const { DatabaseSync } = loadNodeSqlite();
    this.db = new DatabaseSync(path, { readOnly: readonly });
  }

  protected execSql(sql: string): void {
    this.db.exec(sql);
  }
  prepare(sql: string): Statement {
    return new NodeStatementAdapter(this.db.prepare(sql));
  }
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }
}
