import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseQuery } from '../../../src/core/search/query';
import { nearPairShare, termPrefixes } from '../../../src/core/search/proximity';
import { PROXIMITY_WINDOW } from '../../../src/core/search/constants';

const share = (query: string, text: string) => nearPairShare(text, termPrefixes(parseQuery(query).terms));

test('proximity: the share of adjacent query terms whose words start within PROXIMITY_WINDOW characters', () => {
  assert.equal(share('red barn', 'the red barn by the road'), 1);
  assert.equal(share('red barn', `red ${'x'.repeat(PROXIMITY_WINDOW)} barn`), 0);
  assert.equal(share('red barn', `red ${'x'.repeat(PROXIMITY_WINDOW - 10)} barn`), 1);
  // Either order, and any occurrence of the pair: the closest counts.
  assert.equal(share('red barn', `barn ${'x'.repeat(80)} the barn was red`), 1);
  // Three terms, two pairs (night+train, train+ticket): one of them found.
  assert.equal(share('night train ticket', `the night train left; ${'z'.repeat(70)} a ticket`), 0.5);
  // Terms that are not adjacent in the query do not make a pair.
  assert.equal(share('night train ticket', `night ticket ${'z'.repeat(70)} train`), 0);
});

test('proximity: stems, irregular forms and compound parts count as their term; one term or no match gives 0', () => {
  assert.equal(share('what did Melanie buy', 'Melanie: we bought a tent'), 1);
  assert.equal(share('what did Melanie buy', 'Melanie: I want to buy a kayak'), 1);
  assert.equal(share('retries exhausted', 'the retry budget was exhausted'), 1);
  assert.equal(share('user id', 'getUserById(user_id)'), 1);
  assert.equal(share('barn', 'the red barn'), 0);
  assert.equal(share('red barn', 'nothing here'), 0);
  assert.equal(share('red barn', ''), 0);
});

test('proximity: offsets are code points, as the Python port counts them (an emoji is one character)', () => {
  const gap = 'x'.repeat(PROXIMITY_WINDOW - 7);
  // red at 0, barn at 4 + gap + 2 emoji: within the window in code points, beyond it in UTF-16 units.
  const text = `red ${gap}😀😀 barn`;
  assert.ok([...text].indexOf('b') <= PROXIMITY_WINDOW && text.indexOf('barn') > PROXIMITY_WINDOW);
  assert.equal(share('red barn', text), 1);
  assert.equal(share('재시도 上限', '재시도 上限'), 1);
});
