/**
 * SQLite behind one small interface. `auto` uses better-sqlite3 and falls back to the built-in
 * `node:sqlite` when the native addon cannot load in this host (e.g. VS Code's Electron ABI).
 */
import { existsSync } from 'node:fs';
import { DatabaseError, errorMessage } from '../errors';
import { BetterSqlite3Database } from './betterSqlite3Driver';
import { NodeSqliteDatabase } from './nodeSqliteDriver';
import { isSqliteError } from './sqliteErrors';
import type { Database, DriverChoice, DriverName, OpenOptions } from './types';

export type { Database, Statement, RunResult, DriverChoice, DriverName, OpenOptions } from './types';
export { isBusyError, isCorruptionError, isSqliteError } from './sqliteErrors';

/** Per-connection read tuning (see openDatabase). */
export const MMAP_BYTES = 256 * 1024 * 1024;
export const CACHE_KIB = 32 * 1024;

/** Remembered after the first `auto` open so we do not retry a broken addon every time. */
let autoDriver: DriverName | undefined;
/** Why `auto` chose node:sqlite, when it did: better-sqlite3's load error. */
let autoFallbackError: unknown;

/**
 * One calm line saying which SQLite driver this process uses and why, e.g. "SQLite driver:
 * node:sqlite (built into Node v24.1.0), because the installed better-sqlite3 is built for another
 * Node (its NODE_MODULE_VERSION 115, this Node's 137)". For logs and test titles: a fallback is
 * expected in editors whose Node differs from the one npm built the addon for, not an error.
 */
export function driverChoiceLine(driver: DriverName): string {
  if (driver === 'better-sqlite3') return `SQLite driver: better-sqlite3 (native addon, loads in Node ${process.version})`;
  const env = process.env.SCROLL_SQLITE_DRIVER;
  if (env === 'node:sqlite') return `SQLite driver: node:sqlite (built into Node ${process.version}), as SCROLL_SQLITE_DRIVER asks`;
  if (autoFallbackError === undefined) return `SQLite driver: node:sqlite (built into Node ${process.version})`;
  return `SQLite driver: node:sqlite (built into Node ${process.version}), because ${nativeLoadReason(autoFallbackError)}`;
}

/** Why better-sqlite3 did not load, in words: an ABI mismatch names both versions. */
export function nativeLoadReason(e: unknown): string {
  const msg = errorMessage(e);
  const abi = /NODE_MODULE_VERSION (\d+)[\s\S]*?NODE_MODULE_VERSION (\d+)/.exec(msg);
  if (abi) return `the installed better-sqlite3 is built for another Node (its NODE_MODULE_VERSION ${abi[1]}, this Node's ${abi[2]})`;
  // A second load of an addon whose first load failed for its ABI says only this.
  if (/did not self-register/.test(msg)) return 'the installed better-sqlite3 is built for another Node';
  if (/Cannot find module/.test(msg)) return 'better-sqlite3 is not installed';
  return `better-sqlite3 did not load (${msg.split('\n')[0].slice(0, 160)})`;
}

function requestedDriver(opts: OpenOptions): DriverChoice {
  const env = process.env.SCROLL_SQLITE_DRIVER;
  if (env) {
    if (env !== 'better-sqlite3' && env !== 'node:sqlite' && env !== 'auto') {
      throw new DatabaseError(`SCROLL_SQLITE_DRIVER must be better-sqlite3, node:sqlite or auto (got "${env}")`);
    }
    return env;
  }
  return opts.driver ?? 'auto';
}

function construct(driver: DriverName, path: string, readonly: boolean): Database {
  return driver === 'better-sqlite3' ? new BetterSqlite3Database(path, readonly) : new NodeSqliteDatabase(path, readonly);
}

function openWith(driver: DriverName, path: string, readonly: boolean): Database {
  try {
    return construct(driver, path, readonly);
  } catch (e) {
    if (isSqliteError(e)) throw e;
    throw new DatabaseError(`cannot load the ${driver} SQLite driver: ${errorMessage(e)}`, { cause: e });
  }
}

export function openDatabase(path: string, opts: OpenOptions = {}): Database {
  const readonly = opts.readonly ?? false;
  if (readonly && path !== ':memory:' && !existsSync(path)) {
    throw new DatabaseError(`no database at ${path}`);
  }
  const choice = requestedDriver(opts);
  let db: Database;
  if (choice !== 'auto') {
    db = openWith(choice, path, readonly);
  } else if (autoDriver) {
    db = openWith(autoDriver, path, readonly);
  } else {
    try {
      db = construct('better-sqlite3', path, readonly);
      autoDriver = 'better-sqlite3';
    } catch (nativeErr) {
      // A SQLite error (bad file, permissions) is about the database, not the driver: report it.
      if (isSqliteError(nativeErr)) throw nativeErr;
      try {
        db = construct('node:sqlite', path, readonly);
        autoDriver = 'node:sqlite';
        autoFallbackError = nativeErr;
      } catch (builtinErr) {
        if (isSqliteError(builtinErr)) throw builtinErr;
        throw new DatabaseError(
          `no usable SQLite driver: better-sqlite3 failed (${errorMessage(nativeErr)}) and node:sqlite failed (${errorMessage(builtinErr)}; it needs Node ≥ 22.5)`,
          { cause: builtinErr },
        );
      }
    }
  }
  try {
    db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs ?? 5000))}`);
    // Searches walk FTS5 segment pages and event rows all over the file: reading them through a
    // memory map instead of one read() per page, and caching more than SQLite's default 2 MB,
    // cuts search time on large logs (bench/search.bench.mjs, docs/PERFORMANCE.md). Both are limits,
    // not allocations: a small log maps and caches only what it has.
    db.exec(`PRAGMA mmap_size = ${Math.max(0, Math.floor(opts.mmapBytes ?? MMAP_BYTES))}`);
    db.exec(`PRAGMA cache_size = -${CACHE_KIB}`);
  } catch (e) {
    db.close();
    throw e;
  }
  return db;
}
