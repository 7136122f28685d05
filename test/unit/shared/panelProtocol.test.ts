import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  HIT_CAP,
  NEIGHBOUR_RADIUS_MAX,
  PAYLOAD_CHUNK_MAX,
  PanelProtocolError,
  SEARCH_PAGE_SIZE,
  parseSeqSpec,
  parseWebviewMessage,
  scrollUriFor,
  splitSnippet,
} from '../../../src/shared/panelProtocol';
import { scrollUriString } from '../../../src/shared/scrollUri';

test('parseWebviewMessage: a valid search is typed, filters cleaned, limits clamped', () => {
  const m = parseWebviewMessage({
    type: 'search', id: 7, query: 'parser', offset: 50_000, limit: 10_000,
    filters: { kind: ['tool_result', ''], role: 'user', session: 'alpha', seqFrom: 3, seqTo: 9, tsFrom: '2026-03-01', tsTo: '' },
  });
  assert.deepEqual(m, {
    type: 'search', id: 7, query: 'parser', offset: HIT_CAP, limit: SEARCH_PAGE_SIZE,
    filters: { kind: ['tool_result'], role: ['user'], session: 'alpha', seqFrom: 3, seqTo: 9, tsFrom: '2026-03-01' },
  });
});

test('parseWebviewMessage: ready, sessions, facets, index, timeline, segment, open', () => {
  assert.deepEqual(parseWebviewMessage({ type: 'ready' }), { type: 'ready' });
  assert.deepEqual(parseWebviewMessage({ type: 'sessions', id: 1 }), { type: 'sessions', id: 1 });
  assert.deepEqual(parseWebviewMessage({ type: 'facets', id: 2, extra: 'ignored' }), { type: 'facets', id: 2 });
  assert.deepEqual(parseWebviewMessage({ type: 'index', id: 3, session: 's' }), { type: 'index', id: 3, session: 's' });
  assert.deepEqual(parseWebviewMessage({ type: 'timeline', id: 4, session: 's' }), { type: 'timeline', id: 4, session: 's' });
  assert.deepEqual(parseWebviewMessage({ type: 'segment', id: 5, evictionSeq: 12 }), { type: 'segment', id: 5, evictionSeq: 12 });
  assert.deepEqual(parseWebviewMessage({ type: 'open', id: 6, target: { kind: 'range', from: 2, to: 4 } }), {
    type: 'open', id: 6, target: { kind: 'range', from: 2, to: 4 },
  });
  assert.deepEqual(parseWebviewMessage({ type: 'expand', id: 8, from: 5 }), { type: 'expand', id: 8, from: 5, to: 5 });
  assert.deepEqual(parseWebviewMessage({ type: 'neighbours', id: 9, seq: 5, radius: 500 }), { type: 'neighbours', id: 9, seq: 5, radius: NEIGHBOUR_RADIUS_MAX });
  assert.deepEqual(parseWebviewMessage({ type: 'payload', id: 10, seq: 5, offset: 0, length: 1e9 }), { type: 'payload', id: 10, seq: 5, offset: 0, length: PAYLOAD_CHUNK_MAX });
});

test('parseWebviewMessage: bad input gets a clear error naming the field', () => {
  const bad: [unknown, RegExp][] = [
    [null, /must be an object/],
    [{ type: 'drop_table', id: 1 }, /unknown panel request type "drop_table"/],
    [{ type: 'search', query: 'x' }, /"id" must be an integer/],
    [{ type: 'search', id: 1, query: 42 }, /"query" must be a string/],
    [{ type: 'search', id: 1, query: 'x'.repeat(3000) }, /longer than 2000/],
    [{ type: 'search', id: 1, query: 'x', filters: { seqFrom: 9, seqTo: 3 } }, /seq range 9\.\.3 is empty/],
    [{ type: 'search', id: 1, query: 'x', filters: { seqFrom: -1 } }, /"seqFrom" must be a whole number/],
    [{ type: 'search', id: 1, query: 'x', filters: { tsFrom: 'yesterday' } }, /"tsFrom" must be an ISO date/],
    [{ type: 'search', id: 1, query: 'x', filters: { kind: [1, 2] } }, /"kind" must be a list of strings/],
    [{ type: 'expand', id: 1, from: 9, to: 3 }, /"to" \(3\) is before "from" \(9\)/],
    [{ type: 'expand', id: 1, from: 1.5 }, /"from" must be a whole number/],
    [{ type: 'open', id: 1, target: { kind: 'file', path: '/etc/passwd' } }, /unknown target kind "file"/],
    [{ type: 'open', id: 1, target: 'scroll:/event/1.md' }, /"target" must be an object/],
    [{ type: 'index', id: 1 }, /"session" must be a string/],
  ];
  for (const [raw, re] of bad) {
    assert.throws(() => parseWebviewMessage(raw), (e: unknown) => e instanceof PanelProtocolError && re.test(e.message), JSON.stringify(raw)?.slice(0, 80));
  }
});

test('scrollUriFor matches the document provider URI space', () => {
  assert.equal(scrollUriFor({ kind: 'event', seq: 12 }), 'scroll:/event/12.md');
  assert.equal(scrollUriFor({ kind: 'range', from: 3, to: 9 }), 'scroll:/range/3-9.md');
  assert.equal(scrollUriFor({ kind: 'segment', evictionSeq: 41 }), 'scroll:/segment/41.md');
  for (const t of [{ kind: 'event', seq: 1 }, { kind: 'range', from: 1, to: 2 }, { kind: 'segment', evictionSeq: 5 }] as const) {
    assert.equal(scrollUriFor(t), scrollUriString(t));
  }
});

test('parseSeqSpec: seqs and ranges in the forms people type', () => {
  assert.deepEqual(parseSeqSpec('42'), { from: 42, to: 42 });
  assert.deepEqual(parseSeqSpec(' #40..60 '), { from: 40, to: 60 });
  assert.deepEqual(parseSeqSpec('40-60'), { from: 40, to: 60 });
  assert.deepEqual(parseSeqSpec('60 – 40'), { from: 40, to: 60 });
  assert.deepEqual(parseSeqSpec('1 to 3'), { from: 1, to: 3 });
  for (const bad of ['', 'abc', '1..', '-3', '1.5', '1,2']) assert.equal(parseSeqSpec(bad), null, bad);
});

test('splitSnippet: « » marks become match parts; markup stays plain text', () => {
  assert.deepEqual(splitSnippet('a «b» c «d»'), [
    { text: 'a ', match: false }, { text: 'b', match: true }, { text: ' c ', match: false }, { text: 'd', match: true },
  ]);
  assert.deepEqual(splitSnippet('<img src=x onerror=alert(1)> «img»'), [
    { text: '<img src=x onerror=alert(1)> ', match: false }, { text: 'img', match: true },
  ]);
  assert.deepEqual(splitSnippet('unclosed «mark'), [{ text: 'unclosed «mark', match: false }]);
  assert.deepEqual(splitSnippet(''), []);
});
