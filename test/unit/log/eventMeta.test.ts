/** The event-meta contract (src/core/log/eventMeta.ts) and the history queries (historyQueries.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { evictionMeta } from '../../../src/core/agent/agentLoop';
import { EventLog } from '../../../src/core/log/eventLog';
import {
  MISSING_TITLE_FIELD,
  parseMeta,
  readEvictionMeta,
  readIndexTitle,
  readModelTurnMeta,
  readToolResultMeta,
  writeEvictionMeta,
  writeModelTurnMeta,
  writeToolResultMeta,
  type EvictionMeta,
  type ModelTurnMeta,
} from '../../../src/core/log/eventMeta';
import { evictions, lastEviction, latestSession, sessionSeqs, sessionsWithEvictions } from '../../../src/core/log/historyQueries';

function withLog(fn: (log: EventLog) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-eventmeta-'));
  const log = EventLog.open({ path: join(dir, 'scroll.db'), session: 'a', redact: false });
  try {
    fn(log);
  } finally {
    log.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const title = { task: 'fix the parser', state: 'found the off-by-one', next: 'run the tests' };

test('model_turn: the writer keeps the logged field order and optional fields; the reader returns what it wrote', () => {
  const m: ModelTurnMeta = { step: 3, viewTokens: 900, budget: 1200, viewMessages: 7, squeeze: 0, evicted: 4, evictionSeq: 20, evictedTotal: 9, model: 'm', toolCalls: 2 };
  const plain = writeModelTurnMeta(m);
  assert.deepEqual(Object.keys(plain), ['step', 'viewTokens', 'budget', 'viewMessages', 'squeeze', 'evicted', 'evictionSeq', 'evictedTotal', 'model', 'toolCalls']);
  const full = writeModelTurnMeta({ ...m, evictionSeq: null, usage: { inputTokens: 10, outputTokens: 2 }, cancelled: true });
  assert.deepEqual(Object.keys(full).slice(-2), ['usage', 'cancelled']);
  assert.deepEqual(readModelTurnMeta(JSON.parse(JSON.stringify(plain))), { ...m, cancelled: false });
  assert.deepEqual(readModelTurnMeta(JSON.parse(JSON.stringify(full))), { ...m, evictionSeq: null, usage: { inputTokens: 10, outputTokens: 2 }, cancelled: true });
  // A meta of another shape (a bench's `{ step }`, junk): only what has the written type.
  assert.deepEqual(readModelTurnMeta({ step: 2 }), { step: 2, cancelled: false });
  assert.deepEqual(readModelTurnMeta({ step: '2', viewTokens: Infinity, model: 3, evictionSeq: 'x', usage: { inputTokens: 'a' } }), { cancelled: false, usage: {} });
  assert.deepEqual(readModelTurnMeta(null), { cancelled: false });
});

test('eviction: the writer is what the agent loop logs; the reader gives the level-0 block', () => {
  const index = [{ level: 0, from_seq: 4, to_seq: 9, segments: 1, title }];
  const m: EvictionMeta = {
    level: 0, from_seq: 4, to_seq: 9, title, title_source: 'model', session: 'a', step: 5, groups: 2, events: 6,
    view_tokens_before: 1100, view_tokens_after: 600, budget: 1200, index,
  };
  const written = writeEvictionMeta(m);
  assert.deepEqual(Object.keys(written), ['level', 'from_seq', 'to_seq', 'title', 'title_source', 'session', 'step', 'groups', 'events', 'view_tokens_before', 'view_tokens_after', 'budget', 'index']);
  assert.deepEqual(Object.keys(writeEvictionMeta({ ...m, title_error: 'bad JSON' })).slice(4, 6), ['title_source', 'title_error']);
  // The agent loop's evictionMeta(plan, …) is this writer.
  const plan = { fromSeq: 4, toSeq: 9, groups: 2, seqs: [4, 5, 6, 7, 8, 9], tokensBefore: 1100, tokensAfter: 600 };
  assert.deepEqual(evictionMeta(plan, title, 'model', undefined, 'a', 5, 1200, index), written);
  assert.deepEqual(JSON.stringify(evictionMeta(plan, title, 'fallback', 'timeout', 'a', 5, 1200, index)), JSON.stringify(writeEvictionMeta({ ...m, title_source: 'fallback', title_error: 'timeout' })));
  assert.deepEqual(readEvictionMeta(JSON.parse(JSON.stringify(written))), { fromSeq: 4, toSeq: 9, title, events: 6 });
});

test('eviction reader: the spellings logs hold, and nothing else', () => {
  // The seeded sample history's shape.
  assert.deepEqual(readEvictionMeta({ block: { fromSeq: 1, toSeq: 18, title } }), { fromSeq: 1, toSeq: 18, title, events: 0 });
  assert.deepEqual(readEvictionMeta({ fromSeq: 1, toSeq: 3, title }), { fromSeq: 1, toSeq: 3, title, events: 0 });
  assert.deepEqual(readEvictionMeta({ from_seq: 2, to_seq: 2 }), { fromSeq: 2, toSeq: 2, title: readIndexTitle(undefined), events: 0 });
  for (const junk of [
    { from: 1, to: 2 }, { span: [1, 2] }, { blocks: [{ from_seq: 1, to_seq: 2 }] }, { from_seq: 3, to_seq: 2 }, { from_seq: '1', to_seq: 2 },
    { from_seq: 0, to_seq: 2 }, { from_seq: 1.5, to_seq: 2 }, { from_seq: 1 }, {}, null, [1, 2], 'text',
  ]) {
    assert.equal(readEvictionMeta(junk), null, JSON.stringify(junk));
  }
  // Titles: a field that is missing, blank or not a string reads as the one placeholder everywhere.
  assert.equal(MISSING_TITLE_FIELD, '—');
  assert.deepEqual(readIndexTitle({ task: ' ', state: 3, next: 'n' }), { task: '—', state: '—', next: 'n' });
  assert.deepEqual(readIndexTitle('a string'), { task: '—', state: '—', next: '—' });
  assert.deepEqual(readIndexTitle({ task: ' kept as written ', state: 's', next: 'n' }).task, ' kept as written ');
});

test('tool_result: the writer puts isError last over the tool meta; the reader gives isError and the variables', () => {
  assert.deepEqual(writeToolResultMeta(undefined, false), { isError: false });
  const m = writeToolResultMeta({ variables: [{ name: 'df', type: 'list', size: '3 items' }], durationMs: 12, isError: false }, true);
  assert.deepEqual(Object.keys(m), ['variables', 'durationMs', 'isError']);
  assert.equal(m.isError, true);
  assert.deepEqual(readToolResultMeta(m), { isError: true, variables: [{ name: 'df', type: 'list', size: '3 items' }] });
  assert.deepEqual(readToolResultMeta({ isError: false }), { isError: false });
  assert.deepEqual(readToolResultMeta({ variables: [] }), { isError: false, variables: [] });
  assert.deepEqual(readToolResultMeta({ variables: [{ name: 'x' }, { type: 'int' }, 'y', null, { name: 'n', type: 1, size: 2 }] }), {
    isError: false,
    variables: [{ name: 'x', type: '?', size: '' }, { name: 'n', type: '1', size: '2' }],
  });
  assert.deepEqual(readToolResultMeta({ variables: 'x', isError: 'yes' }), { isError: false });
});

test('parseMeta reads the meta column as scroll_types._json_obj does', () => {
  assert.deepEqual(parseMeta('{"a":1}'), { a: 1 });
  assert.deepEqual(parseMeta(''), {});
  assert.deepEqual(parseMeta(null), {});
  assert.deepEqual(parseMeta('not json'), { raw: 'not json' });
  assert.deepEqual(parseMeta('[1,2]'), { value: [1, 2] });
  assert.deepEqual(parseMeta('3'), { value: 3 });
});

test('history queries: evictions, the last eviction, session seqs, the latest session', () => {
  withLog((log) => {
    assert.equal(latestSession(log), undefined);
    assert.deepEqual(evictions(log), []);
    assert.equal(lastEviction(log), undefined);
    log.append({ kind: 'user_message', role: 'user', content: 'one' });
    const e1 = log.append({ kind: 'eviction', role: 'system', content: 'e1', meta: { from_seq: 1, to_seq: 1, title } }).seq;
    log.append({ kind: 'user_message', role: 'user', content: 'two', session: 'b' });
    const e2 = log.append({ kind: 'eviction', role: 'system', content: 'e2', meta: { from_seq: 3, to_seq: 3 }, session: 'b' }).seq;
    log.append({ kind: 'model_turn', role: 'assistant', content: 'three' });
    assert.deepEqual(evictions(log, 'a'), [{ seq: e1, meta: { from_seq: 1, to_seq: 1, title } }]);
    assert.deepEqual(evictions(log).map((r) => r.seq), [e1, e2]);
    assert.deepEqual(evictions(log, 'nobody'), []);
    assert.equal(lastEviction(log)?.seq, e2);
    assert.equal(lastEviction(log, 'a')?.seq, e1);
    assert.deepEqual(sessionSeqs(log, 'a'), [1, 2, 5]);
    assert.deepEqual(sessionSeqs(log, 'a', ['eviction', 'model_turn']), [2, 5]);
    assert.deepEqual(sessionSeqs(log, 'a', []), [1, 2, 5]);
    assert.equal(latestSession(log), 'a');
    log.append({ kind: 'note', role: 'system', content: 'x', session: 'c' });
    assert.equal(latestSession(log), 'c');
    // Statements are cached per connection, and a cached one sees later appends.
    assert.deepEqual(sessionSeqs(log, 'c'), [6]);
  });
});

test('sessionsWithEvictions: the sessions that evicted, most recent first, with their counts', () => {
  withLog((log) => {
    assert.deepEqual(sessionsWithEvictions(log), []);
    log.append({ kind: 'user_message', role: 'user', content: 'q', session: 'new' });
    log.append({ kind: 'eviction', role: 'system', content: 'a1', meta: { from_seq: 1, to_seq: 1 }, session: 'a' });
    log.append({ kind: 'eviction', role: 'system', content: 'b1', meta: { from_seq: 1, to_seq: 1 }, session: 'b' });
    const a2 = log.append({ kind: 'eviction', role: 'system', content: 'a2', meta: { from_seq: 2, to_seq: 2 }, session: 'a' }).seq;
    assert.deepEqual(sessionsWithEvictions(log), [
      { session: 'a', evictions: 2, lastEvictionSeq: a2 },
      { session: 'b', evictions: 1, lastEvictionSeq: a2 - 1 },
    ]);
  });
});
