/**
 * The editor's open of a log indexed by an older tokenizer: `reindexStale: 'later'` returns at
 * once with `indexStale` set (the CLI's default rebuilds during the open), the rebuild then runs on
 * the maintenance worker (`rebuildIndexInBackground` with `onlyIfStale`), and searches meanwhile
 * answer from the previous index instead of waiting.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../src/core/log/eventLog';
import { rebuildIndexInBackground } from '../../../src/core/log/maintenance';
import { indexIsCurrent } from '../../../src/core/log/rebuildIndex';

const EVENTS = 3_000;

/** A log as an older Scroll left it: index rows without CJK bigrams, no index_version. */
function staleLog(path: string): void {
  const log = EventLog.open({ path, onWarning: () => undefined });
  log.appendMany(Array.from({ length: EVENTS }, (_, i) => ({ kind: 'note', role: 'user', session: 's', content: i === 7 ? '재시도를 세 번까지 허용합니다 retry cap' : `filler event ${i} about the build` })));
  const db = log.database;
  db.exec("INSERT INTO events_fts(events_fts) VALUES('delete-all')");
  const insert = db.prepare("INSERT INTO events_fts(rowid, body, code, parts, headline) VALUES (?, ?, '', '', '')");
  db.transaction(() => {
    for (const r of db.prepare('SELECT seq, content FROM events').all() as { seq: number; content: string }[]) insert.run(r.seq, r.content);
  });
  db.prepare("DELETE FROM scroll_meta WHERE key = 'index_version'").run();
  log.close();
}

test("reindexStale 'later': the open returns before any rebuild; the background rebuild runs on a worker while searches use the old index", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-deferred-'));
  const path = join(dir, 'scroll.db');
  try {
    staleLog(path);
    const said: string[] = [];
    const log = EventLog.open({ path, reindexStale: 'later', onWarning: (m) => said.push(m) });
    try {
      assert.equal(log.indexStale, true);
      assert.equal(indexIsCurrent(log.database), false, 'the open did not rebuild the index');
      assert.deepEqual(said.filter((m) => /rebuil/.test(m)), [], 'and said nothing of a rebuild');
      assert.deepEqual(log.search('시도').hits.filter((h) => h.match !== 'context'), [], 'the old index: no Korean substring yet');

      let where: string | undefined;
      const searchedDuring: number[][] = [];
      let settled = false;
      const job = rebuildIndexInBackground(log, {
        onlyIfStale: true,
        onStarted: (w) => (where = w),
        onProgress: (done, total) => {
          // The worker holds the write lock; this thread's connection still searches, from the old index.
          if (done < total && searchedDuring.length === 0) searchedDuring.push(log.search('retry cap').hits.map((h) => h.seq));
        },
      }).finally(() => (settled = true));
      assert.equal(settled, false);
      assert.equal(await job, EVENTS);
      assert.equal(where, 'worker');
      assert.ok(searchedDuring.length === 1 && searchedDuring[0][0] === 8, `searched during the rebuild: ${JSON.stringify(searchedDuring)}`);
      assert.equal(log.indexStale, false);
      assert.equal(indexIsCurrent(log.database), true);
      assert.deepEqual(log.search('시도').hits.filter((h) => h.match !== 'context').map((h) => h.seq), [8]);
      // Asked again (another window rebuilt it meanwhile): nothing to do.
      assert.equal(await rebuildIndexInBackground(log, { onlyIfStale: true }), -1);
    } finally {
      log.close();
    }
    // The default (the CLI) still rebuilds during the open.
    staleLog(path);
    said.length = 0;
    const cli = EventLog.open({ path, onWarning: (m) => said.push(m) });
    assert.equal(cli.indexStale, false);
    assert.equal(indexIsCurrent(cli.database), true);
    assert.ok(said.some((m) => /search index rebuilt/.test(m)), said.join('\n'));
    cli.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
