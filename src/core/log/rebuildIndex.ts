/**
 * Refilling the derived FTS index from the events: shared by `EventLog.rebuildIndex` (the CLI's
 * `scroll reindex`, in-thread) and the maintenance worker (the editor, off the extension host's
 * thread). One transaction: a rebuild that fails or is cancelled leaves the index as it was.
 */
import type { Database } from '../db';
import { CancelledError, errorMessage } from '../errors';
import { buildIndexDocument } from '../search/indexText';
import type { PayloadStore } from './payloadStore';

export interface RebuildOptions {
  /** Hears of each event indexed from its preview only (payload file missing or damaged). */
  onWarning?: (message: string) => void;
  /** Events indexed so far and the total, after each page. */
  onProgress?: (done: number, total: number) => void;
  /** Asked between pages; true rolls the rebuild back with a `CancelledError`. */
  shouldStop?: () => boolean;
}

export const REBUILD_CANCELLED = 'the search index rebuild was cancelled; the index is as it was before';

/** Events per page read: small enough that progress and cancellation are prompt. */
const PAGE = 200;

/** Rebuilds the index on `db` (opened for writing); returns the number of events indexed. */
export function rebuildSearchIndex(db: Database, payloads: PayloadStore, opts: RebuildOptions = {}): number {
  const warn = opts.onWarning ?? (() => undefined);
  const insertFts = db.prepare('INSERT INTO events_fts(rowid, body, code, parts, headline) VALUES (?, ?, ?, ?, ?)');
  const page = db.prepare(`SELECT seq, content, payload, headline FROM events WHERE seq > ? ORDER BY seq LIMIT ${PAGE}`);
  return db.transaction(() => {
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
    return indexed;
  });
}
