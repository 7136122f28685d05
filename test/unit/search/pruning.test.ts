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

test('pruning inside a session follows the log as it grows; the whole-log count only ever rules words out', () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-prune-'));
  const log = EventLog.open({ path: join(dir, 'scroll.db') });
  try {
    const say = (session: string, content: string) => ({ kind: 'user_message', role: 'user', content, session });
    const filler = (session: string, n: number) => Array.from({ length: n }, (_, i) => say(session, `filler line ${i} about nothing`));
    // "caroline" is rare in the whole log (3 of 44) but in 3 of the 4 events of session a.
    log.appendMany([say('a', 'caroline likes pottery'), say('a', 'caroline went hiking'), say('a', 'caroline painted'), say('a', 'the weather turned')]);
    log.appendMany(filler('b', 40));
    assert.deepEqual(log.search('caroline pottery', { session: 'a' }).pruned, ['caroline']);
    assert.deepEqual(log.search('caroline pottery').pruned, []);
    // "filler" is in 40 of 44 events, none of them in session a: not pruned there, pruned overall.
    assert.deepEqual(log.search('filler pottery', { session: 'a' }).pruned, []);
    assert.deepEqual(log.search('filler pottery').pruned, ['filler']);
    // "hiking" is read as rare (1 event) for the whole log and cached; then a new session c talks
    // of little else. The cached count must not hide that.
    assert.deepEqual(log.search('hiking trip', { session: 'a' }).pruned, []);
    log.appendMany([say('c', 'hiking trip planned'), say('c', 'hiking boots bought'), say('c', 'hiking again'), say('c', 'rest day')]);
    assert.deepEqual(log.search('hiking trip', { session: 'c' }).pruned, ['hiking']);
    assert.deepEqual(log.search('hiking trip').pruned, []);
  } finally {
    log.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
