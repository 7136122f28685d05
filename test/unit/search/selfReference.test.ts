import { test } from 'node:test';
import assert from 'node:assert/strict';
import { asksAboutUser } from '../../../src/core/search/selfReference';
import { parseQuery } from '../../../src/core/search/query';

test('a query in the first person singular, not in the second, asks about the user', () => {
  for (const q of ['What did I name my cat?', 'how many books have I read', "Where's the café I mentioned?", 'I’m sure I said the retry cap', 'my retry cap', 'Can you remind me what I named my cat?', 'Could you tell me which city I moved to?']) {
    assert.equal(asksAboutUser(q), true, q);
  }
  for (const q of ['What did you suggest for my trip?', 'What cat name did you recommend?', 'Which hotel did I ask you about?', 'your advice on my diet', 'retry cap', 'What did we decide?', 'iPhone mine-sweeper', "Can you remind me what you said about my cat?"]) {
    assert.equal(asksAboutUser(q), false, q);
  }
});

test('parseQuery marks a question about the user', () => {
  assert.equal(parseQuery('What did I name my cat?').aboutUser, true);
  assert.equal(parseQuery('cat name').aboutUser, undefined);
});
