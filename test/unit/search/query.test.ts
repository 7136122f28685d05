import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_TERMS } from '../../../src/core/search/constants';
import { parseQuery } from '../../../src/core/search/query';
import { makeSnippet } from '../../../src/core/search/snippet';

test('every term is a quoted FTS5 string; operators in user text are words', () => {
  const q = parseQuery('(pool OR size) AND NOT "exact phrase" NEAR(a b) col:x foo* -bar ^baz');
  for (const t of q.terms) assert.match(t.fts, /^(\("[^"]*"( OR "[^"]*")?\)|"[^"]*")$/);
  assert.deepEqual(q.stopped, ['or', 'and', 'not', 'a']);
  assert.ok(q.terms.some((t) => t.type === 'phrase' && t.text === 'exact phrase'));
  assert.ok(q.terms.some((t) => t.text === 'col x'));
});

test('compound identifiers match whole or as the phrase of their parts', () => {
  const [t] = parseQuery('getUserById').terms;
  assert.equal(t.fts, '("getuserbyid" OR "get user by id")');
  assert.equal(parseQuery('user_id').terms[0].fts, '("user_id" OR "user id")');
  assert.equal(parseQuery('src/core/log.ts').terms[0].fts, '"src core log ts"');
});

test('possessives, apostrophes, stop words', () => {
  assert.deepEqual(parseQuery("What is Caroline's job?").terms.map((t) => t.text), ['caroline', 'job']);
  assert.deepEqual(parseQuery("don't stop").terms.map((t) => t.text), ['don', 'stop']);
  assert.deepEqual(parseQuery('the of').terms.map((t) => t.text), ['the', 'of']);
});

test('limits: long input and many terms are cut with a message', () => {
  const long = parseQuery('a'.repeat(10_000));
  assert.match(long.message ?? '', /only its start/);
  const many = parseQuery(Array.from({ length: 50 }, (_, i) => `w${i}`).join(' '));
  assert.equal(many.terms.length, MAX_TERMS);
  assert.match(many.message ?? '', /first 32/);
  assert.deepEqual(parseQuery(undefined as unknown as string).terms, []);
});

test('snippet: best window, matched words marked', () => {
  const text = Array.from({ length: 200 }, (_, i) => `w${i}`).join(' ') + ' the getUserById call failed ' + 'x '.repeat(300);
  const s = makeSnippet(text, ['user', 'fail']);
  assert.ok(s.startsWith('…') && s.endsWith('…'));
  assert.ok(s.includes('«getUserById»') && s.includes('«failed»'));
  assert.ok(s.length <= 400, String(s.length));
  assert.equal(makeSnippet('short   text\n\nhere', []), 'short text here');
});
