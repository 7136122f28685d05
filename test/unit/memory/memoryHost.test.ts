import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EvictionIndex, evictionMeta, type IndexTitle } from '../../../src/core/agent';
import { PayloadError } from '../../../src/core/errors';
import { EventLog } from '../../../src/core/log/eventLog';
import { PREVIEW_CHARS } from '../../../src/core/log/eventPreparer';
import { MemoryCallError, MemoryHost, replyFor } from '../../../src/core/memory';
import { searchEvents } from '../../../src/core/search/search';
import type { NewEvent } from '../../../src/core/types';

function withLog(fn: (log: EventLog, dir: string) => void | Promise<void>, session = 'S1'): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scroll-memhost-'));
    const log = EventLog.open({ path: join(dir, 'scroll.db'), session, redact: false });
    try {
      await fn(log, dir);
    } finally {
      log.close();
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

/** A small history in two sessions, with one event big enough for the payload store. */
function fill(log: EventLog): { big: number; bigContent: string } {
  const events: NewEvent[] = [
    { kind: 'user_message', role: 'user', content: 'The retry cap in the HTTP client is too low; requests fail after 3 tries.', session: 'S1' },
    { kind: 'model_turn', role: 'assistant', content: 'I will look at src/http/client.ts for the retry logic.', session: 'S1' },
    { kind: 'tool_call', role: 'tool', name: 'read_file', content: 'read_file src/http/client.ts', session: 'S1' },
    { kind: 'tool_result', role: 'tool', name: 'read_file', content: 'const MAX_RETRIES = 3; // retry cap\nexport function fetchWithRetry() {}', session: 'S1' },
    { kind: 'user_message', role: 'user', content: 'Unrelated: how is the database pool configured?', session: 'S2' },
    { kind: 'model_turn', role: 'assistant', content: 'The pool size is set in config/database.yml.', session: 'S2' },
    { kind: 'model_turn', role: 'assistant', content: 'Raised the retry cap to 5 with exponential backoff.', session: 'S1', headline: 'Decision: retry cap 5' },
  ];
  log.appendMany(events);
  const bigContent = `BEGIN ${'retry cap backoff log line\n'.repeat(600)} END`;
  const big = log.append({ kind: 'tool_result', role: 'tool', name: 'run_command', content: bigContent, session: 'S1' }).seq;
  log.append({ kind: 'model_turn', role: 'assistant', content: 'Tests pass now.', session: 'S1' });
  return { big, bigContent };
}

async function rejectsWith(p: Promise<unknown>, type: string, message?: RegExp | string): Promise<MemoryCallError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof MemoryCallError, `expected a MemoryCallError, got ${String(e)}`);
    assert.equal(e.type, type, e.message);
    if (typeof message === 'string') assert.equal(e.message, message);
    else if (message) assert.match(e.message, message);
    return e;
  }
  assert.fail(`expected a ${type}`);
}

test('search: the hits, flags and terms are exactly searchEvents on the same log, for every filter', withLog(async (log) => {
  fill(log);
  const host = new MemoryHost({ log });
  const cases: Array<[Record<string, unknown>, Parameters<typeof searchEvents>[2]]> = [
    [{ query: 'retry cap', k: 10 }, { k: 10 }],
    [{ query: 'retry cap', k: 2, offset: 1 }, { k: 2, offset: 1 }],
    [{ query: 'retry', kind: 'tool_result' }, { kind: 'tool_result' }],
    [{ query: 'retry', kind: ['tool_result', 'tool_call'], role: 'tool' }, { kind: ['tool_result', 'tool_call'], role: 'tool' }],
    [{ query: 'retry', scope: 'session' }, { session: 'S1' }],
    [{ query: 'pool', session: 'S2' }, { session: 'S2' }],
    [{ query: 'retry', seq_range: [2, 4] }, { seqFrom: 2, seqTo: 4 }],
    [{ query: 'retry', seq_range: [null, 3] }, { seqTo: 3 }],
    [{ query: 'retry', name: 'read_file', snippet: false }, { name: 'read_file', snippet: false }],
    [{ query: 'retry', ts_range: ['2000-01-01T00:00:00Z', null] }, { tsFrom: '2000-01-01T00:00:00Z' }],
    [{ query: 'cap database zebra' }, {}],
    [{ query: 'the of and' }, {}],
    [{ query: '' }, {}],
  ];
  for (const [args, opts] of cases) {
    const got = (await host.call('search', args)) as Record<string, unknown>;
    const want = searchEvents(log.database, args.query as string, opts);
    assert.deepEqual(got, { ...want, message: want.message ?? null }, JSON.stringify(args));
  }
  const r = (await host.call('search', { query: 'retry cap', k: 10 })) as { hits: Array<Record<string, unknown>> };
  assert.ok(r.hits.length >= 3);
  assert.deepEqual(Object.keys(r.hits[0]).sort(), ['broadened', 'headline', 'kind', 'match', 'name', 'role', 'score', 'seq', 'session', 'snippet', 'ts']);
  assert.match(String(r.hits[0].snippet), /«/);
  host.dispose();
}));

test('search: bad arguments are TypeError / ValueError with scroll_ms.py messages', withLog(async (log) => {
  fill(log);
  const host = new MemoryHost({ log });
  await rejectsWith(host.call('search', { query: 5 }), 'TypeError', 'ms.search: query must be a string, got int');
  await rejectsWith(host.call('search', { query: 'x', scope: 'mine' }), 'ValueError', "ms.search: scope must be 'all' or 'session', got 'mine'");
  await rejectsWith(host.call('search', { query: 'x', seq_range: [1] }), 'ValueError', 'ms.search: seq_range must be a pair (a, b), got [1]');
  await rejectsWith(host.call('search', { query: 'x', k: 'ten' }), 'TypeError');
  await rejectsWith(host.call('search', { query: 'x', kind: 3 }), 'TypeError');
  const noSession = new MemoryHost({ log, session: null });
  await rejectsWith(noSession.call('search', { query: 'x', scope: 'session' }), 'ValueError', "ms.search: scope='session' but this memory space has no session");
}));

test('expand: full events in the order asked, payload content resolved, snake_case fields', withLog(async (log) => {
  const { big, bigContent } = fill(log);
  const host = new MemoryHost({ log });
  const stored = log.database.prepare('SELECT content, payload FROM events WHERE seq = ?').get(big);
  assert.ok(stored.payload, 'the big event went to the payload store');
  assert.ok(stored.content.length <= PREVIEW_CHARS + 100 && stored.content.length < bigContent.length);
  const r = (await host.call('expand', { seqs: [big, 1, big] })) as { events: Array<Record<string, unknown>> };
  assert.deepEqual(r.events.map((e) => e.seq), [big, 1, big]);
  assert.equal(r.events[0].content, bigContent);
  assert.equal(r.events[0].payload, stored.payload);
  assert.equal(r.events[0].payload_error, undefined);
  const e = log.get(1)!;
  assert.deepEqual(r.events[1], {
    seq: 1, session: 'S1', kind: 'user_message', role: 'user', name: null, content: e.content, ts: e.ts, meta: {},
    step: null, tool_call_id: null, parent_seq: null, headline: null, payload: null, bytes: e.bytes, tokens: e.tokens,
  });
  // A hit or a bare seq are accepted too (the client normalises, the host checks again).
  assert.deepEqual(((await host.call('expand', { seqs: 3 })) as { events: Array<{ seq: number }> }).events.map((x) => x.seq), [3]);
  assert.deepEqual(((await host.call('expand', { seqs: [{ seq: 2 }] })) as { events: Array<{ seq: number }> }).events.map((x) => x.seq), [2]);
  assert.deepEqual(await host.call('expand', { seqs: [] }), { events: [] });
}));

test('expand: unknown seqs are a KeyError naming them and the max seq, as scroll_ms.py', withLog(async (log) => {
  const host = new MemoryHost({ log });
  await rejectsWith(host.call('expand', { seqs: [1] }), 'KeyError', 'ms.expand: no event with seq 1 (max seq is None)');
  log.appendMany([1, 2, 3, 4].map((i) => ({ kind: 'note', role: 'user', content: `n${i}` })));
  await rejectsWith(host.call('expand', { seqs: [5, 2, 6] }), 'KeyError', 'ms.expand: no event with seq 5, 6 (max seq is 4)');
  const many = Array.from({ length: 12 }, (_, i) => 100 + i);
  await rejectsWith(host.call('expand', { seqs: many }), 'KeyError', `ms.expand: no event with seq ${many.slice(0, 10).join(', ')} ... (max seq is 4)`);
  await rejectsWith(host.call('expand', { seqs: ['1'] }), 'TypeError', "seq must be an integer seq, got '1'");
  await rejectsWith(host.call('expand', { seqs: 'abc' }), 'TypeError', 'ms.expand: expected a seq, a list of seqs or hits, got a string');
  await rejectsWith(host.call('expand', { seqs: [{ id: 1 }] }), 'TypeError', "ms.expand: a dict needs a 'seq' key");
  await rejectsWith(host.call('expand', { seqs: [1.5] }), 'TypeError');
}));

test('an unreadable payload keeps the stored preview and says so in payload_error; the other events still come', withLog(async (log) => {
  const { big } = fill(log);
  const host = new MemoryHost({ log });
  const handle = log.database.prepare('SELECT payload FROM events WHERE seq = ?').get(big).payload as string;
  unlinkSync(log.payloads.pathFor(handle));
  const r = (await host.call('range', { a: big - 1, b: big + 1 })) as { events: Array<Record<string, unknown>> };
  assert.equal(r.events.length, 3);
  const ev = r.events[1];
  assert.equal(ev.content, log.database.prepare('SELECT content FROM events WHERE seq = ?').get(big).content);
  assert.match(String(ev.payload_error), /^Only the first \d+ characters of this event \(\d+ bytes\) can be shown: its payload file cannot be read \(.*missing.*\)\./);
  assert.equal(r.events[0].payload_error, undefined);
  // ms.payload of that handle: a KeyError naming it.
  await rejectsWith(host.call('payload', { handle }), 'KeyError', new RegExp(`^ms\\.payload: payload ${handle} is missing`));
}));

test('EventLog.get/range/recent with keepPreview (the read methods the host uses); without it a lost payload throws', withLog((log) => {
  const { big } = fill(log);
  const handle = log.get(big)!.payload!;
  assert.equal(log.get(big, { keepPreview: true })!.payloadError, undefined);
  unlinkSync(log.payloads.pathFor(handle));
  assert.throws(() => log.get(big), PayloadError);
  assert.throws(() => log.range(big, big), PayloadError);
  const kept = log.get(big, { keepPreview: true })!;
  assert.match(kept.payloadError!, /is missing/);
  assert.ok(kept.content.startsWith('BEGIN '));
  assert.equal(log.range(1, big, { keepPreview: true }).length, big);
  assert.equal(log.recent(3, 'S1', { keepPreview: true }).filter((e) => e.payloadError).length, 1);
  // Events whose payload is fine carry no payloadError key at all.
  assert.equal('payloadError' in log.get(1, { keepPreview: true })!, false);
}));

test('range: inclusive, oldest first, at most 10,000 seqs wide; bad bounds are TypeError/ValueError', withLog(async (log) => {
  fill(log);
  const host = new MemoryHost({ log });
  const r = (await host.call('range', { a: 2, b: 4 })) as { events: Array<{ seq: number }> };
  assert.deepEqual(r.events.map((e) => e.seq), [2, 3, 4]);
  assert.deepEqual(await host.call('range', { a: 500, b: 600 }), { events: [] });
  assert.equal(((await host.call('range', { a: 1, b: 10_000 })) as { events: unknown[] }).events.length, 9);
  await rejectsWith(host.call('range', { a: 1, b: 10_001 }), 'ValueError', 'ms.range: span of 10001 seqs is too wide (limit 10000); narrow it or page through it');
  await rejectsWith(host.call('range', { a: 5, b: 3 }), 'ValueError', 'ms.range: a (5) must be <= b (3)');
  await rejectsWith(host.call('range', { a: 'x', b: 3 }), 'TypeError', "a must be an integer seq, got 'x'");
  await rejectsWith(host.call('range', { a: 1, b: true }), 'TypeError', 'b must be an integer seq, got True');
  await rejectsWith(host.call('range', { a: 1 }), 'TypeError', 'b must be an integer seq, got None');
}));

test("recent: the host session's last n events, oldest first; another session when asked; the whole log without one", withLog(async (log) => {
  fill(log);
  const host = new MemoryHost({ log, session: 'S2' });
  const seqs = async (h: MemoryHost, args: Record<string, unknown>) => ((await h.call('recent', args)) as { events: Array<{ seq: number; session: string }> }).events;
  assert.deepEqual((await seqs(host, { n: 5 })).map((e) => e.seq), [5, 6]);
  assert.deepEqual((await seqs(host, { n: 2, session: 'S1' })).map((e) => e.seq), [8, 9]);
  assert.deepEqual((await seqs(host, { n: 0 })), []);
  assert.deepEqual((await seqs(host, { n: -3 })), []);
  const s1 = new MemoryHost({ log }); // default: the log's session (S1)
  assert.deepEqual((await seqs(s1, { n: 3 })).map((e) => e.seq), [7, 8, 9]);
  assert.equal((await seqs(s1, {})).length, 7); // default n=20, only S1's events
  const all = new MemoryHost({ log, session: null });
  assert.deepEqual((await seqs(all, { n: 4 })).map((e) => e.seq), [6, 7, 8, 9]);
  await rejectsWith(host.call('recent', { n: '3' }), 'TypeError', "n must be an integer seq, got '3'");
  await rejectsWith(host.call('recent', { n: 3, session: 4 }), 'TypeError');
}));

function title(i: number): IndexTitle {
  return { task: `task ${i}`, state: `state ${i}`, next: `next ${i}` };
}

test('index: the last eviction event\'s meta.index snapshot (as the agent loop writes it), scoped to the session', withLog(async (log) => {
  for (let i = 0; i < 30; i++) log.append({ kind: 'note', role: 'user', content: `event ${i}`, session: i % 2 ? 'S1' : 'S2' });
  // Eviction events exactly as AgentLoop.evictIfNeeded writes them: evictionMeta() with the index after the sweep.
  let index = new EvictionIndex(3);
  const evictionSeqs: number[] = [];
  for (let i = 0; i < 4; i++) {
    const plan = { fromSeq: 1 + i * 5, toSeq: 5 + i * 5, groups: 2, seqs: [1 + i * 5, 2 + i * 5], tokensBefore: 1000, tokensAfter: 400 };
    index = index.withBlock({ fromSeq: plan.fromSeq, toSeq: plan.toSeq, title: title(i), evictionSeq: null });
    const meta = evictionMeta(plan, title(i), 'fallback', undefined, 'S1', i + 1, 2000, index.snapshot());
    evictionSeqs.push(log.append({ kind: 'eviction', role: 'system', content: `Evicted ${plan.fromSeq}-${plan.toSeq}`, step: i + 1, meta, session: 'S1' }).seq);
  }
  // Another session's eviction, later in the log: never part of S1's index.
  log.append({ kind: 'eviction', role: 'system', content: 'other', session: 'S2', meta: { level: 0, from_seq: 2, to_seq: 4, title: title(9), index: [] } });
  const host = new MemoryHost({ log, session: 'S1' });
  const r = (await host.call('index', {})) as { blocks: Array<Record<string, unknown>> };
  const last = evictionSeqs[evictionSeqs.length - 1];
  assert.deepEqual(r.blocks, index.snapshot().map((b) => ({ ...b, event_seq: last })));
  assert.ok(r.blocks.some((b) => Number(b.level) > 0), 'the snapshot holds a merged block');
  assert.deepEqual(await host.call('index', { session: 'S2' }), { blocks: [] }); // its snapshot is empty
  assert.deepEqual(await host.call('index', { session: 'nobody' }), { blocks: [] });
  // Without a session: the last eviction of the whole log (S2's).
  assert.deepEqual(await new MemoryHost({ log, session: null }).call('index', {}), { blocks: [] });
}));

test('index: without snapshots, the blocks each eviction event recorded (blocks, block, or the meta itself)', withLog(async (log) => {
  log.append({ kind: 'note', role: 'user', content: 'x' });
  const a = log.append({ kind: 'eviction', role: 'system', content: 'e1', meta: { level: 0, from_seq: 1, to_seq: 1, title: title(1) } }).seq;
  const b = log.append({ kind: 'eviction', role: 'system', content: 'e2', meta: { blocks: [{ from_seq: 2, to_seq: 3 }, { from_seq: 4, to_seq: 5, event_seq: 99 }] } }).seq;
  const c = log.append({ kind: 'eviction', role: 'system', content: 'e3', meta: { block: { from_seq: 6, to_seq: 7 } } }).seq;
  const host = new MemoryHost({ log });
  assert.deepEqual(await host.call('index', {}), {
    blocks: [
      { level: 0, from_seq: 1, to_seq: 1, title: title(1), event_seq: a },
      { from_seq: 2, to_seq: 3, event_seq: b },
      { from_seq: 4, to_seq: 5, event_seq: 99 },
      { from_seq: 6, to_seq: 7, event_seq: c },
    ],
  });
}));

test('payload: text when UTF-8, base64 otherwise; bad handle ValueError; damaged ValueError', withLog(async (log) => {
  const host = new MemoryHost({ log });
  const text = log.payloads.put('{"a": [1, 2]} ✓');
  assert.deepEqual(await host.call('payload', { handle: text.handle }), { text: '{"a": [1, 2]} ✓' });
  const bom = log.payloads.put(Buffer.from('\ufeffhi', 'utf8'));
  assert.deepEqual(await host.call('payload', { handle: bom.handle }), { text: '\ufeffhi' });
  const bin = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0x41]);
  const binary = log.payloads.put(bin);
  assert.deepEqual(await host.call('payload', { handle: binary.handle }), { base64: bin.toString('base64') });
  await rejectsWith(host.call('payload', { handle: 'nope' }), 'ValueError', "ms.payload: 'nope' is not a payload handle (64 lowercase hex characters)");
  await rejectsWith(host.call('payload', { handle: 'A'.repeat(64) }), 'ValueError');
  await rejectsWith(host.call('payload', { handle: 'a'.repeat(64) }), 'KeyError', /is missing/);
  writeFileSync(log.payloads.pathFor(text.handle), 'tampered');
  await rejectsWith(host.call('payload', { handle: text.handle }), 'ValueError', /^ms\.payload: payload [0-9a-f]{64} is damaged/);
}));

test('replyFor: {ms_reply, result} or {ms_reply, error: {type, message}}; unknown methods and junk never throw', withLog(async (log) => {
  fill(log);
  const host = new MemoryHost({ log });
  const ok = await replyFor(host, { ms_call: 7, method: 'range', args: { a: 1, b: 1 } });
  assert.equal(ok.ms_reply, 7);
  assert.equal((ok.result as { events: unknown[] }).events.length, 1);
  assert.deepEqual(await replyFor(host, { ms_call: 8, method: 'expand', args: { seqs: [99] } }), {
    ms_reply: 8,
    error: { type: 'KeyError', message: 'ms.expand: no event with seq 99 (max seq is 9)' },
  });
  assert.deepEqual(await replyFor(host, { ms_call: 9, method: 'drop_table', args: {} }), { ms_reply: 9, error: { type: 'ValueError', message: "ms: unknown method 'drop_table'" } });
  assert.deepEqual((await replyFor(host, { ms_call: 10, method: 'recent' })).ms_reply, 10); // args omitted
  assert.equal((await replyFor(host, { ms_call: 11, method: 'toString', args: {} })).error?.type, 'ValueError');
  assert.equal((await replyFor(host, { ms_call: 12, method: 'range', args: [1, 2] })).error?.type, 'TypeError');
  assert.equal((await replyFor(host, { ms_call: 13, method: 5 as unknown as string })).error?.type, 'TypeError');
  // Hostile arguments: every method answers with a MemoryCallError of a protocol type, never a crash.
  const junk: unknown[] = [null, true, -1, 1e300, NaN, 'x', '', [], [null], [[1]], { seq: 'x' }, { a: { b: 1 } }, '\u0000', 2 ** 60];
  const types = new Set(['KeyError', 'ValueError', 'TypeError', 'PermissionError', 'TimeoutError', 'RuntimeError']);
  for (const method of ['search', 'expand', 'range', 'recent', 'payload', 'index']) {
    for (const v of junk) {
      for (const key of ['query', 'seqs', 'a', 'b', 'n', 'handle', 'session', 'k', 'kind', 'seq_range', 'ts_range', 'offset', 'snippet', 'scope']) {
        const reply = await replyFor(host, { ms_call: 1, method, args: { query: 'retry', seqs: [1], a: 1, b: 2, n: 1, handle: 'a'.repeat(64), [key]: v } });
        if (reply.error) assert.ok(types.has(reply.error.type), `${method} ${key}=${String(v)}: ${reply.error.type}`);
        assert.ok(reply.error ? !/at .*\.js/.test(reply.error.message) : true);
      }
    }
  }
  host.dispose();
  assert.deepEqual(await replyFor(host, { ms_call: 14, method: 'recent', args: {} }), { ms_reply: 14, error: { type: 'RuntimeError', message: 'ms: the memory host is closed' } });
}));

test('sql through the host: the default helper is shared per log and answers honest reads', withLog(async (log) => {
  fill(log);
  const a = new MemoryHost({ log });
  const b = new MemoryHost({ log, session: 'S2' });
  try {
    const r = (await a.call('sql', { query: 'SELECT session, count(*) AS n FROM events GROUP BY session ORDER BY session' })) as Record<string, unknown>;
    assert.deepEqual(r, { columns: ['session', 'n'], rows: [['S1', 7], ['S2', 2]], truncated: false });
    const r2 = (await b.call('sql', { query: 'SELECT seq FROM events WHERE session = ? ORDER BY seq', params: ['S2'] })) as { rows: unknown[][] };
    assert.deepEqual(r2.rows, [[5], [6]]);
    await rejectsWith(a.call('sql', { query: 'DELETE FROM events' }), 'PermissionError', /^ms\.sql: the event log is read-only \(DELETE from events refused\)$/);
    await rejectsWith(a.call('sql', { query: 42 }), 'TypeError', 'ms.sql: query must be a string');
    await rejectsWith(a.call('sql', { query: 'SELECT 1', params: 'x' }), 'TypeError');
  } finally {
    a.dispose();
    b.dispose();
  }
}));
