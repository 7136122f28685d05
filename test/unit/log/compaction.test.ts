// Compacting the search index: merging FTS5 segments changes no result, leaves a valid index when
// stopped midway, lets appends from other connections through, and runs off the caller's thread.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../src/core/log/eventLog';
import { NoWorkerError, compactIndexInBackground } from '../../../src/core/log/maintenance';
import { COMPACT_ABOVE_SEGMENTS } from '../../../src/core/log/compactIndex';
import { ReadonlyLogError } from '../../../src/core/errors';

const WORDS = ['parser', 'lexer', 'retry', 'timeout', 'socket', 'cache', 'index', 'budget', 'kernel', 'window'];

/** A log written the way the editor writes it: one small transaction per event, so many segments. */
function withFragmentedLog(fn: (log: EventLog, dir: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scroll-compact-'));
    const log = EventLog.open({ path: join(dir, 'scroll.db'), onWarning: () => undefined });
    try {
      for (let i = 0; i < 400; i++) {
        log.append({ kind: 'note', role: i % 2 ? 'assistant' : 'user', content: `turn ${i}: ${WORDS[i % 10]} ${WORDS[(i * 3) % 10]} getUserById handler_${i % 13} ` + 'filler '.repeat(i % 40) });
      }
      // Enough rows that a merge takes several 100-page steps.
      log.appendMany(Array.from({ length: 3000 }, (_, i) => ({ kind: 'tool_result', role: 'tool', content: `bulk ${i} ${WORDS[i % 10]} token_${i % 311} ` + 'lorem ipsum dolor '.repeat(30) })));
      for (let i = 0; i < 40; i++) log.append({ kind: 'note', role: 'user', content: `late ${i} ${WORDS[(i * 7) % 10]}` });
      assert.ok(log.indexSegments() > COMPACT_ABOVE_SEGMENTS, `a fragmented index (${log.indexSegments()} segments)`);
      await fn(log, dir);
    } finally {
      log.close();
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

const ranked = (log: EventLog, q: string) => log.search(q, { k: 50 }).hits.map((h) => `${h.seq}:${h.score.toFixed(9)}`);
const QUERIES = ['parser retry', 'getUserById', 'user', 'handler_7 kernel', 'lorem socket', 'late window'];

test(
  'compactIndex merges the index into one segment and changes no search result',
  withFragmentedLog(async (log) => {
    const before = QUERIES.map((q) => ranked(log, q));
    const r = log.compactIndex();
    assert.equal(r.segmentsBefore > COMPACT_ABOVE_SEGMENTS, true);
    assert.equal(r.segmentsAfter, 1);
    assert.equal(r.stopped, false);
    assert.ok(r.steps >= 1);
    assert.deepEqual(QUERIES.map((q) => ranked(log, q)), before, 'same hits, same scores');
    assert.equal(log.verify().ok, true);
    // Nothing left to do: no step is taken.
    assert.deepEqual(log.compactIndex(), { segmentsBefore: 1, segmentsAfter: 1, steps: 0, stopped: false });
  }),
);

test(
  'a compaction stopped midway leaves a valid, partly merged index',
  withFragmentedLog(async (log) => {
    const before = QUERIES.map((q) => ranked(log, q));
    let asked = 0;
    const r = log.compactIndex({ stepPages: 2, shouldStop: () => ++asked > 1 });
    assert.equal(r.stopped, true);
    assert.equal(r.steps, 1);
    // Midway, the partly written output segment sits beside the inputs it has not consumed yet.
    assert.ok(r.segmentsAfter > 1, JSON.stringify(r));
    assert.deepEqual(QUERIES.map((q) => ranked(log, q)), before);
    assert.equal(log.verify().ok, true);
    // The next compaction picks up where this one stopped.
    assert.equal(log.compactIndex().segmentsAfter, 1);
    assert.deepEqual(QUERIES.map((q) => ranked(log, q)), before);
  }),
);

test(
  'compactIndexInBackground runs on a worker while this connection keeps appending',
  withFragmentedLog(async (log) => {
    // Appends change the bm25 statistics, so the comparison is of what matches, not of scores.
    const matches = (q: string) => log.search(q, { k: 1000 }).hits.filter((h) => !h.broadened).map((h) => h.seq).sort((a, b) => a - b);
    const before = QUERIES.map(matches);
    let where = '';
    let done = false;
    const job = compactIndexInBackground(log, { onStarted: (w) => (where = w) }).finally(() => {
      done = true;
    });
    const added: number[] = [];
    // Appends between merge steps: each waits at most for one step's transaction. Bounded: on a slow
    // machine many appends shift the document frequencies search uses to prune common terms, and
    // with them what the earlier queries match (the assertion failed once on node:sqlite under load).
    while (!done && added.length < 50) {
      added.push(log.append({ kind: 'note', role: 'user', content: `during compaction ${added.length} zebrafish` }).seq);
      await new Promise((r) => setImmediate(r));
    }
    const r = await job;
    assert.equal(where, 'worker');
    assert.ok(added.length >= 1);
    assert.ok(r.segmentsAfter < r.segmentsBefore, JSON.stringify(r));
    assert.deepEqual(QUERIES.map(matches), before, 'the events before it match as before');
    const found = log.search('zebrafish', { k: 1000 }).hits.filter((h) => !h.broadened).map((h) => h.seq).sort((a, b) => a - b);
    assert.deepEqual(found, added, 'every event appended meanwhile is indexed');
    assert.equal(log.verify().ok, true);
  }),
);

test(
  'compaction refuses a read-only log, and workerOnly without a worker does nothing',
  withFragmentedLog(async (log, dir) => {
    const ro = EventLog.open({ path: log.path, readonly: true });
    try {
      assert.throws(() => ro.compactIndex(), ReadonlyLogError);
      await assert.rejects(compactIndexInBackground(ro), ReadonlyLogError);
    } finally {
      ro.close();
    }
    const segments = log.indexSegments();
    await assert.rejects(compactIndexInBackground(log, { workerOnly: true, workerDir: join(dir, 'no-worker') }), NoWorkerError);
    assert.equal(log.indexSegments(), segments, 'nothing was merged');
    const here = await compactIndexInBackground(log, { workerDir: join(dir, 'no-worker') });
    assert.equal(here.segmentsAfter, 1, 'without workerOnly it runs in-thread');
  }),
);
