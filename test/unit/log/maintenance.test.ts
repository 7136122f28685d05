// The full check and the index rebuild off the caller's thread (what the editor's commands use):
// same results as EventLog.verify()/rebuildIndex(), the caller's event loop keeps running, a
// cancelled rebuild leaves the index as it was, appends meanwhile wait and are not lost, and
// without the worker file the same jobs run in-thread.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { EventLog } from '../../../src/core/log/eventLog';
import { CancelledError } from '../../../src/core/errors';
import { rebuildIndexInBackground, verifyInBackground } from '../../../src/core/log/maintenance';
import { ReadonlyLogError } from '../../../src/core/errors';

const EVENTS = 3000;
const WORDS = ['parser', 'lexer', 'retry', 'timeout', 'socket', 'cache', 'index', 'budget', 'kernel', 'window'];

function withLog(fn: (log: EventLog, dir: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scroll-maintenance-'));
    const log = EventLog.open({ path: join(dir, 'scroll.db'), onWarning: () => undefined });
    try {
      log.appendMany(
        Array.from({ length: EVENTS }, (_, i) => ({
          kind: i % 2 ? 'tool_result' : 'model_turn',
          role: i % 2 ? 'tool' : 'assistant',
          content: `step ${i}: ${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} getUserById handler_${i % 97} ` + 'filler text '.repeat(20),
        })),
      );
      // Two payload files, one of which will go missing.
      log.append({ kind: 'tool_result', role: 'tool', content: 'needle payload one\n' + 'y'.repeat(20_000) });
      log.append({ kind: 'tool_result', role: 'tool', content: 'needle payload two\n' + 'z'.repeat(20_000) });
      await fn(log, dir);
    } finally {
      log.close();
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

/** Overwrites FTS5's segment blobs through a connection of its own (what a damaged index looks like). */
function scrambleIndex(path: string): void {
  const r = spawnSync('python3', ['-c', 'import sqlite3, sys\nc = sqlite3.connect(sys.argv[1])\nc.execute("UPDATE events_fts_data SET block = X\'00\' WHERE id > 10")\nc.commit()', path], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
}

const hitSeqs = (log: EventLog, q: string) => log.search(q, { k: 20 }).hits.map((h) => h.seq);
/** The best hit (search also ranks in the neighbours of a strong match). */
const topSeq = (log: EventLog, q: string) => log.search(q).hits[0]?.seq;

test(
  'rebuildIndexInBackground repairs a damaged index on a worker while the caller keeps running',
  withLog(async (log) => {
    const before = hitSeqs(log, 'retry socket');
    assert.equal(before.length, 20);
    scrambleIndex(log.path);
    const damaged = await verifyInBackground(log);
    assert.equal(damaged.ok, false);
    assert.deepEqual(damaged.database, []);
    assert.ok(damaged.index.length > 0, 'the check reports the index as damaged');

    const progress: Array<[number, number]> = [];
    let settled = false;
    const job = rebuildIndexInBackground(log, { onProgress: (d, t) => progress.push([d, t]) }).finally(() => {
      settled = true;
    });
    // In-thread, the whole rebuild would already be over here; on the worker it has barely begun.
    await new Promise((r) => setImmediate(r));
    assert.equal(settled, false, "the caller's event loop turns while the rebuild runs");
    assert.equal(await job, EVENTS + 2);

    assert.ok(progress.length >= 2, 'progress is reported page by page');
    assert.deepEqual(progress.at(-1), [EVENTS + 2, EVENTS + 2]);
    for (let i = 1; i < progress.length; i++) assert.ok(progress[i][0] > progress[i - 1][0]);
    assert.deepEqual(hitSeqs(log, 'retry socket'), before, 'the same hits as before the damage');
    assert.equal((await verifyInBackground(log)).ok, true);
  }),
);

test(
  'verifyInBackground finds what verify() finds (a missing payload file)',
  withLog(async (log) => {
    const withPayload = log.get(EVENTS + 1);
    assert.ok(withPayload?.payload);
    unlinkSync(log.payloads.pathFor(withPayload.payload));
    const here = log.verify();
    const there = await verifyInBackground(log);
    assert.deepEqual(there, here);
    assert.deepEqual(there.payloads.missing, [EVENTS + 1]);
    assert.equal(there.payloads.checked, 2);
  }),
);

test(
  'a cancelled rebuild rolls back: the index is as it was and the write lock is free',
  withLog(async (log) => {
    const before = hitSeqs(log, 'lexer kernel');
    const controller = new AbortController();
    let pages = 0;
    await assert.rejects(
      rebuildIndexInBackground(log, {
        signal: controller.signal,
        onProgress: () => {
          pages++;
          controller.abort();
        },
      }),
      (e: unknown) => e instanceof CancelledError && /index is as it was/.test(e.message),
    );
    assert.ok(pages >= 1, 'it was cancelled midway, after a page was indexed');
    assert.deepEqual(hitSeqs(log, 'lexer kernel'), before);
    const added = log.append({ kind: 'note', role: 'user', content: 'after the cancel: zebrafish' });
    assert.equal(topSeq(log, 'zebrafish'), added.seq);
    assert.equal((await verifyInBackground(log)).ok, true);

    // Cancelled before it starts: nothing runs.
    const early = new AbortController();
    early.abort();
    await assert.rejects(rebuildIndexInBackground(log, { signal: early.signal }), CancelledError);
    await assert.rejects(verifyInBackground(log, { signal: early.signal }), CancelledError);
  }),
);

test(
  'an append while the worker rebuilds waits for it and is indexed',
  withLog(async (log) => {
    let added: number | undefined;
    const indexed = await rebuildIndexInBackground(log, {
      onProgress: () => {
        // The worker holds the write lock: this waits (busy_timeout) until the rebuild commits.
        added ??= log.append({ kind: 'note', role: 'user', content: 'decided during the rebuild: quokka' }).seq;
      },
    });
    assert.equal(indexed, EVENTS + 2, 'the rebuild indexed the events that existed when it began');
    assert.equal(added, EVENTS + 3);
    assert.equal(topSeq(log, 'quokka'), added);
    assert.equal((await verifyInBackground(log)).ok, true);
  }),
);

test(
  'without the worker file both jobs run in-thread with the same results',
  withLog(async (log, dir) => {
    const noWorker = join(dir, 'no-worker-here');
    scrambleIndex(log.path);
    const damaged = await verifyInBackground(log, { workerDir: noWorker });
    assert.ok(damaged.index.length > 0);
    const progress: number[] = [];
    assert.equal(await rebuildIndexInBackground(log, { workerDir: noWorker, onProgress: (d) => progress.push(d) }), EVENTS + 2);
    assert.equal(progress.at(-1), EVENTS + 2);
    assert.equal((await verifyInBackground(log, { workerDir: noWorker })).ok, true);
    assert.deepEqual(log.search('needle payload').hits.slice(0, 2).map((h) => h.seq).sort(), [EVENTS + 1, EVENTS + 2]);
  }),
);

test(
  'a read-only log is checked in the background but never rebuilt',
  withLog(async (log) => {
    const ro = EventLog.open({ path: log.path, readonly: true });
    try {
      assert.equal((await verifyInBackground(ro)).ok, true);
      await assert.rejects(rebuildIndexInBackground(ro), ReadonlyLogError);
    } finally {
      ro.close();
    }
  }),
);
