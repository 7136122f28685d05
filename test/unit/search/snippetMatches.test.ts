import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findMatches, makeSnippet, snippetPrefixes } from '../../../src/core/search/snippet';

/** Deterministic PRNG so a failure names a reproducible case. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = ['user', 'User', 'USER', 'id', 'Id', 'ID', 'get', 'Get', 'users', 'userId', 'get_user_by_id', 'getUserById', 'HTTPServer', 'idea', 'us', 'e', 'connect', 'Connection', 'happi', 'happy', 'a1', '2us'];
const SEPS = [' ', '_', '.', '/', '', '\n', '-', '(', ') '];
const PREFIXES = ['user', 'id', 'us', 'get', 'connect', 'happ', 'e', 'a1', 'http', 'server', 'useri'];

test('snippet matches: the indexOf scan visits exactly what the regex scan visits (random ASCII text)', () => {
  const rand = rng(20261129);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  for (let round = 0; round < 3000; round++) {
    let text = '';
    const n = 1 + Math.floor(rand() * 30);
    for (let i = 0; i < n; i++) text += pick(PIECES) + pick(SEPS);
    const prefixes = snippetPrefixes([...new Set(Array.from({ length: 1 + Math.floor(rand() * 4) }, () => pick(PREFIXES)))]);
    const norm = (ms: ReturnType<typeof findMatches>) => ms.map((m) => [m.start, m.end, [...m.keys].sort()]);
    assert.deepEqual(norm(findMatches(text, prefixes, 'indexOf')), norm(findMatches(text, prefixes, 'regex')), `text ${JSON.stringify(text)} prefixes ${prefixes.join(',')}`);
  }
});

test('snippet matches: overlapping prefixes take the longest at a position, then skip past it; parts of one word share its match', () => {
  const ms = findMatches('useri userid user_id', ['user', 'useri', 'id'], 'indexOf');
  assert.deepEqual(ms.map((m) => [m.start, m.end, [...m.keys].sort()]), [[0, 5, [1]], [6, 12, [1]], [13, 20, [0, 2]]]);
});

test('snippet matches: CJK keys are marked where they occur inside a run; a word around them is one mark', () => {
  assert.deepEqual(snippetPrefixes(['재시도', '重试上限', 'retri', 'привет', '𠀀𠀁']), ['재시도', '重试上限', 'retr']);
  assert.equal(makeSnippet('재시도를 세 번까지 허용합니다', ['재시도']), '«재시도»를 세 번까지 허용합니다');
  assert.equal(makeSnippet('重试上限是五次，超过就报错', ['重试上限']), '«重试上限»是五次，超过就报错');
  assert.equal(makeSnippet('重试上限是五次重试', ['重试', '上限']), '«重试»«上限»是五次«重试»');
  assert.equal(makeSnippet('リトライ上限を設定してください', ['上限を設定']), 'リトライ«上限を設定»してください');
  // The Latin key's word runs over the CJK key: one mark, not a mark inside a mark.
  assert.equal(makeSnippet('the retry上限 was reached twice', ['retri', '上限']), 'the «retry上限» was reached twice');
  assert.equal(makeSnippet('x上限上限_retry ok', ['上限', 'retri']), '«x上限上限_retry» ok');
});

test("snippet matches: a three-letter stem Porter ended in i also matches its word's y (day, key, buy were never marked)", () => {
  assert.deepEqual(snippetPrefixes(['dai', 'kei', 'bui', 'ski', 'happi']), ['dai', 'day', 'kei', 'key', 'bui', 'buy', 'ski', 'sky', 'happ']);
  assert.equal(makeSnippet('On that day I paid the key fee to buy a kayak.', ['dai', 'kei', 'bui']), 'On that «day» I paid the «key» fee to «buy» a kayak.');
  assert.equal(makeSnippet('two days later', ['dai']), 'two «days» later');
});
