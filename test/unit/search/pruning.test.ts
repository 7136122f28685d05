import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../src/core/log/eventLog';

test('pruning follows the log as it grows (cached frequencies never give a stale answer)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-prune-'));
  const log = EventLog.open({ path: join(dir, 'scroll.db') });
  try {
    const note = (content: string) => ({ kind: 'note', role: 'assistant', content, session: 's' });
    log.appendMany([note('deploy timeout on staging'), note('health check ok'), note('database migrated'), note('cache warmed')]);
    assert.deepEqual(log.search('deploy timeout').pruned, []);
    // "deploy" goes from 1 of 4 events to 5 of 8: now in more than half, so pruned.
    log.appendMany([note('deploy one'), note('deploy two'), note('deploy three'), note('deploy four')]);
    assert.deepEqual(log.search('deploy timeout').pruned, ['deploy']);
    // And back under half after more growth: 5 of 12.
    log.appendMany([note('a'), note('b'), note('c'), note('d')]);
    assert.deepEqual(log.search('deploy timeout').pruned, []);
  } finally {
    log.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
