/**
 * Refilling the derived FTS index from the events: shared by `EventLog.rebuildIndex` (the CLI's
 * `scroll reindex`, in-thread) and the maintenance worker (the editor, off the extension host's
 * thread). One transaction: a rebuild that fails or is cancelled leaves the index as it was.
 */
import type { Database } from '../db';
import { CancelledError, errorMessage } from '../errors';
import { buildIndexDocument } from '../search/indexText';
import { INDEX_VERSION } from '../search/constants';
import type { PayloadStore } from './payloadStore';

export interface RebuildOptions {
  /** Hears of each event indexed from its preview only (payload file missing or damaged). */
  onWarning?: (message: string) => void;
  /** Events indexed so far and the total, after each page. */
  onProgress?: (done: number, total: number) => void;
  /** Asked between pages; true rolls the rebuild back with a `CancelledError`. */
  shouldStop?: () => boolean;
  /** Rebuild only when the index was built by another INDEX_VERSION (checked under the write lock). */
  onlyIfStale?: boolean;
}

export const REBUILD_CANCELLED = 'the search index rebuild was cancelled; the index is as it was before';

/** Events per page read: small enough that progress and cancellation are prompt. */
const PAGE = 200;

/** scroll_meta key of the version of the index text the index was built with. */
export const INDEX_VERSION_KEY = 'index_version';

/**
 * The INDEX_VERSION the log's index was built with: absent means before the key existed (1), or
 * a log with no event yet, whose index is empty and so current (see `stampIndexVersion`).
 */
export function indexVersionOf(db: Database): number {
  const row = db.prepare('SELECT value FROM scroll_meta WHERE key = ?').get(INDEX_VERSION_KEY) as { value: string } | undefined;
  if (row) return Number(row.value);
  const any = db.prepare('SELECT 1 AS x FROM events LIMIT 1').get();
  return any ? 1 : INDEX_VERSION;
}

/** True when the index holds what this Scroll's index text would write (tokenizer, derived columns). */
export function indexIsCurrent(db: Database): boolean {
  return indexVersionOf(db) === INDEX_VERSION;
}

/** Records that the index holds this INDEX_VERSION's text (a rebuild, or a new log's first migration). */
export function stampIndexVersion(db: Database): void {
  db.prepare('INSERT INTO scroll_meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(INDEX_VERSION_KEY, String(INDEX_VERSION));
}

/**
 * Rebuilds the index on `db` (opened for writing) and records INDEX_VERSION; returns the number of
 * events indexed (-1 when `onlyIfStale` found it current).
 */
export function rebuildSearchIndex(db: Database, payloads: PayloadStore, opts: RebuildOptions = {}): number {
  const warn = opts.onWarning ?? (() => undefined);
  const insertFts = db.prepare('INSERT INTO events_fts(rowid, body, code, parts, headline) VALUES (?, ?, ?, ?, ?)');
  const page = db.prepare(`SELECT seq, content, payload, headline FROM events WHERE seq > ? ORDER BY seq LIMIT ${PAGE}`);
  return db.transaction(() => {
    if (opts.onlyIfStale && indexIsCurrent(db)) return -1; // another process rebuilt it meanwhile
    // Counted under the write lock: no event can be added until this transaction ends.
    const total = Number((db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n);
    db.exec("INSERT INTO events_fts(events_fts) VALUES('delete-all')");
    let after = 0;
    let indexed = 0;
    for (;;) {
      if (opts.shouldStop?.()) throw new CancelledError(REBUILD_CANCELLED);
      const rows = page.all(after) as { seq: number; content: string; payload: string | null; headline: string | null }[];
      if (rows.length === 0) break;
      for (const r of rows) {
        let text = r.content;
        if (r.payload) {
          try {
            text = payloads.read(r.payload);
          } catch (e) {
            // Index what the row has rather than lose the whole rebuild; say which event.
            warn(`rebuildIndex: event ${r.seq} indexed from its preview only: ${errorMessage(e)}`);
          }
        }
        const d = buildIndexDocument(text, r.headline);
        insertFts.run(r.seq, d.body, d.code, d.parts, d.headline);
      }
      indexed += rows.length;
      after = Number(rows[rows.length - 1].seq);
      opts.onProgress?.(indexed, total);
    }
    stampIndexVersion(db);
    return indexed;
  });
}
