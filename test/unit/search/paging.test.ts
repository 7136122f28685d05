import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../src/core/log/eventLog';
import type { NewEvent } from '../../../src/core/types';

/** 300 events, a third mentioning "retry" with varying weight, the rest neighbours and filler. */
export function pagingCorpus(): NewEvent[] {
  const events: NewEvent[] = [];
  for (let i = 0; i < 300; i++) {
    const session = `s${i % 3}`;
    const content =
      i % 3 === 0
        ? `retry ${'retry '.repeat(i % 5)}the upload of chunk ${i} after a timeout number ${i * 7}`
        : `filler line ${i} about caching, logging and ${i % 2 ? 'queues' : 'workers'}`;
    events.push({ kind: 'tool_result', role: 'tool', content, session });
  }
  return events;
}

test('paging with offset walks one fixed list: no hit repeated or skipped', () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-paging-'));
  const log = EventLog.open({ path: join(dir, 'scroll.db') });
  try {
    log.appendMany(pagingCorpus());
    const all = log.search('retry timeout', { k: 500 }).hits.map((h) => h.seq);
    assert.ok(all.length >= 100, `enough hits to page through (${all.length})`);
    assert.equal(new Set(all).size, all.length, 'no duplicates in one call');
    const paged: number[] = [];
    for (let offset = 0; offset < all.length; offset += 7) {
      paged.push(...log.search('retry timeout', { k: 7, offset }).hits.map((h) => h.seq));
    }
    assert.deepEqual(paged, all);
    // A shorter ranking is the start of a longer one (the panel extends its list this way).
    for (const k of [10, 40, 100, 250]) assert.deepEqual(log.search('retry timeout', { k }).hits.map((h) => h.seq), all.slice(0, k), `k=${k}`);
  } finally {
    log.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
