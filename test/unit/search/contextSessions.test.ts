/**
 * The context step reads neighbours' sessions from a per-connection seq→session map from the
 * second search on (the first reads event rows). Both must rank identically, also after other
 * processes append, with filters, and inside an open write transaction (where nothing is cached).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../src/core/log/eventLog';
import type { NewEvent, SearchOptions } from '../../../src/core/types';

/** Sessions interleave (two windows appending), so neighbours often belong to another session. */
function corpus(from: number, n: number): NewEvent[] {
  const words = ['deploy', 'rollback', 'cache', 'timeout', 'migration', 'token', 'retry', 'schema'];
  return Array.from({ length: n }, (_, j) => {
    const i = from + j;
    return {
      session: i % 7 < 4 ? 'alpha' : 'beta',
      kind: i % 5 === 0 ? 'tool_result' : 'model_turn',
      role: i % 5 === 0 ? 'tool' : 'assistant',
      content: `${words[i % 8]} ${words[(i * 3) % 8]} step ${i} ${i % 11 === 0 ? 'the deploy failed with a timeout' : 'ok'}`,
    };
  });
}

const QUERIES: Array<[string, SearchOptions]> = [
  ['deploy timeout', {}],
  ['rollback', { k: 20 }],
  ['cache migration', { session: 'beta' }],
  ['retry token', { kind: 'tool_result' }],
  ['schema deploy', { session: 'alpha', k: 15 }],
  ['deploy step', { session: 'solo' }],
  ['timeout step', { k: 40 }],
];

const ranked = (log: EventLog, q: string, o: SearchOptions) => log.search(q, o).hits.map((h) => [h.seq, h.score.toFixed(9), h.broadened]);

test('context ranking: the seq→session map gives the same hits as reading the rows, before and after appends', () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-ctx-'));
  const path = join(dir, 'scroll.db');
  const writer = EventLog.open({ path });
  const warm = EventLog.open({ path });
  try {
    // One session in an unbroken run (loaded as a range), then two that interleave (loaded per seq).
    writer.appendMany(corpus(0, 60).map((e) => ({ ...e, session: 'solo' })));
    writer.appendMany(corpus(60, 340));
    // The map is built by the second search of a connection that reaches the context step.
    warm.search('deploy', {});
    warm.search('deploy', {});
    for (const round of [0, 1]) {
      for (const [q, o] of QUERIES) {
        const fresh = EventLog.open({ path, readonly: true });
        try {
          assert.deepEqual(ranked(warm, q, o), ranked(fresh, q, o), `round ${round}: ${q} ${JSON.stringify(o)}`);
        } finally {
          fresh.close();
        }
      }
      writer.appendMany(corpus(400, 250)); // another connection appends: the map catches up
    }
  } finally {
    warm.close();
    writer.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('context ranking inside an open bulk append: rows read, nothing cached that a rollback could falsify', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-ctx-'));
  const path = join(dir, 'scroll.db');
  const log = EventLog.open({ path });
  try {
    log.appendMany(corpus(0, 100));
    log.search('deploy', {});
    log.search('deploy', {});
    const bulk = log.beginBulk();
    bulk.append(corpus(100, 100).map((e) => ({ ...e, session: 'gamma' })));
    assert.ok(log.search('deploy timeout', { session: 'gamma' }).hits.length > 0, 'uncommitted events are searchable by this connection');
    bulk.rollback();
    // The same seqs are used again by other sessions: context must see them as they are now.
    log.appendMany(corpus(100, 100));
    const fresh = EventLog.open({ path, readonly: true });
    try {
      for (const [q, o] of QUERIES) assert.deepEqual(ranked(log, q, o), ranked(fresh, q, o), `${q} ${JSON.stringify(o)}`);
    } finally {
      fresh.close();
    }
  } finally {
    log.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
