/**
 * Compacting the derived FTS index. Every transaction that adds events writes a new index segment;
 * FTS5 merges them as they accumulate (automerge) but leaves several, and a search reads every
 * segment for every term: a search costs less on one segment than on the several a bulk ingest
 * leaves (bench/search.bench.mjs, docs/PERFORMANCE.md). Merging runs in short
 * steps (FTS5 'merge' of at most STEP_PAGES pages, a bounded amount of work each), each its own
 * transaction, so appends from other connections wait for one step at most. The events are not
 * touched, and an interrupted compaction leaves a consistent index (merely less compact).
 */
import type { Database } from '../db';

/** Pages merged per step (see above). */
export const STEP_PAGES = 100;
/** More segments than this and a compaction is worth its cost (a rewrite of the whole index). */
export const COMPACT_ABOVE_SEGMENTS = 4;

export interface CompactOptions {
  /** Asked between steps; true ends the compaction there (what is merged so far stays merged). */
  shouldStop?: () => boolean;
  /** Steps done so far. */
  onProgress?: (steps: number) => void;
  /** Pages merged per step; default STEP_PAGES. */
  stepPages?: number;
}

export interface CompactResult {
  segmentsBefore: number;
  segmentsAfter: number;
  steps: number;
  /** True when it ended before the index was one segment (shouldStop). */
  stopped: boolean;
}

/** Segments in the FTS index now (one row per segment and leaf range in its `_idx` table). */
export function indexSegments(db: Database): number {
  return Number((db.prepare('SELECT count(DISTINCT segid) AS n FROM events_fts_idx').get() as { n: number }).n);
}

/** Merges the index toward a single segment; `db` must be open for writing. */
export function compactSearchIndex(db: Database, opts: CompactOptions = {}): CompactResult {
  const segmentsBefore = indexSegments(db);
  // FTS5 keeps its segment list in the structure record (id 10 of its _data table); a merge step
  // that changed nothing leaves it byte for byte the same: that is how the end is known.
  const structure = db.prepare('SELECT block FROM events_fts_data WHERE id = 10');
  // A negative page count merges any segments, across levels, until one is left.
  const merge = db.prepare("INSERT INTO events_fts(events_fts, rank) VALUES('merge', ?)");
  const pages = Math.max(1, Math.floor(opts.stepPages ?? STEP_PAGES));
  let steps = 0;
  let stopped = false;
  if (segmentsBefore > 1) {
    // A guard, not an expectation: merging n index pages takes about n / pages steps; should FTS5
    // ever keep rewriting its structure record without progress, this ends the loop.
    const indexPages = Number((db.prepare('SELECT count(*) AS n FROM events_fts_data').get() as { n: number }).n);
    const maxSteps = 4 * Math.ceil(indexPages / pages) + 16;
    while (steps < maxSteps) {
      if (opts.shouldStop?.()) {
        stopped = true;
        break;
      }
      const changed = db.transaction(() => {
        const before = (structure.get() as { block: Uint8Array } | undefined)?.block;
        merge.run(-pages);
        const after = (structure.get() as { block: Uint8Array } | undefined)?.block;
        return !before || !after || Buffer.compare(Buffer.from(before), Buffer.from(after)) !== 0;
      });
      if (!changed) break;
      steps++;
      opts.onProgress?.(steps);
    }
  }
  return { segmentsBefore, segmentsAfter: indexSegments(db), steps, stopped };
}
