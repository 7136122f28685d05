/**
 * Answer-type matching (answerType.ts): the question's form names the kind of answer ("when" → a
 * time, "how many" → a number, "who" → a person, "where" → a place), and a ranked event holding an
 * expression of that kind is lifted. Only questions with such a form change; nothing is added.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../src/core/log/eventLog';
import { answerTypeOf, holdsAnswerType } from '../../../src/core/search/answerType';
import { parseQuery } from '../../../src/core/search/query';

test('the first question word and the words after it name the kinds of answer', () => {
  assert.deepEqual(answerTypeOf('When did Caroline go to the support group?'), ['time']);
  assert.deepEqual(answerTypeOf('when did I buy the tent'), ['time']);
  assert.deepEqual(answerTypeOf('What year did Jon open his studio?'), ['time']);
  assert.deepEqual(answerTypeOf('How long ago did I move?'), ['time'], 'the longest form wins over "how long"');
  assert.deepEqual(answerTypeOf('How long has Melanie been painting?'), ['number', 'time']);
  assert.deepEqual(answerTypeOf('How many tournaments did I win?'), ['number']);
  assert.deepEqual(answerTypeOf('how often do I go running'), ['number']);
  assert.deepEqual(answerTypeOf('Who performed at the concert?'), ['person']);
  assert.deepEqual(answerTypeOf('Where did I camp?'), ['place']);
  assert.deepEqual(answerTypeOf('In which city did John play?'), ['place']);
  assert.deepEqual(answerTypeOf('According to John, who is his favourite character?'), ['person']);
  // The first question word decides: "when" inside a "what" question is not asked for.
  assert.equal(answerTypeOf('What did Nate do when he won?'), undefined);
  assert.equal(answerTypeOf('How did Melanie feel?'), undefined);
  assert.equal(answerTypeOf('Would Caroline move back?'), undefined);
  assert.equal(answerTypeOf('pottery class'), undefined);
  // A question word inside a keyword query or a relative clause asks for nothing.
  assert.equal(answerTypeOf('throw new RetryError when'), undefined);
  assert.equal(answerTypeOf('sql where clause'), undefined);
  assert.equal(answerTypeOf('Is the friend who wrote the quote alive?'), undefined);
  assert.deepEqual(answerTypeOf('For how long has Nate had his turtles?'), ['number', 'time']);
  assert.deepEqual(answerTypeOf('After how many weeks did Tim call?'), ['number']);
  assert.deepEqual(parseQuery('When was the pottery class?').answer, ['time']);
  assert.equal(parseQuery('pottery class').answer, undefined);
});

test('each kind is recognised by its cues, whole words only', () => {
  assert.ok(holdsAnswerType('I signed up yesterday.', ['time']));
  assert.ok(holdsAnswerType('We went there last   week.', ['time']));
  assert.ok(holdsAnswerType('It opened in 2021.', ['time']));
  assert.ok(!holdsAnswerType('We went there lastweek.', ['time']));
  assert.ok(!holdsAnswerType('We went there.', ['time']));
  assert.ok(holdsAnswerType('We made 3 bowls.', ['number']));
  assert.ok(holdsAnswerType('We made three bowls.', ['number']));
  assert.ok(holdsAnswerType('I won my second tournament.', ['number']));
  assert.ok(!holdsAnswerType('Someone made bowls.', ['number']), '"one" inside a word is no number');
  assert.ok(holdsAnswerType('It was Matt Patterson, so talented.', ['person']));
  assert.ok(holdsAnswerType('My aunt helped us.', ['person']));
  assert.ok(!holdsAnswerType('Anna helped us. It was great.', ['person']), 'a capital that starts a sentence is not a name');
  assert.ok(holdsAnswerType('I stayed in Galway for a week.', ['place']));
  assert.ok(holdsAnswerType('We camped near the lake.', ['place']));
  assert.ok(!holdsAnswerType('We camped there.', ['place']));
  assert.ok(holdsAnswerType('For 4 years now.', ['number', 'time']));
  assert.ok(holdsAnswerType('Since last summer.', ['number', 'time']));
});

test('a question ranks the event holding the kind of answer it asks for first; the same words without the question do not', () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-answer-type-'));
  const log = EventLog.open({ path: join(dir, 'scroll.db') });
  try {
    const say = (content: string) => ({ kind: 'conversation', role: 'user', content, session: 'c1' });
    log.appendMany([
      say('Caroline: I finally signed up for the pottery class yesterday, after thinking about it for a long while.'),
      say('Melanie: I love hiking in the mountains with the kids.'),
      say('Melanie: Camping is great for the whole family.'),
      say('Melanie: Swimming is my favourite thing.'),
      say('Caroline: The pottery class is fun.'),
    ]);
    const when = log.search('When was the pottery class?', { session: 'c1' });
    assert.equal(when.hits[0]?.seq, 1, JSON.stringify(when.hits.map((h) => [h.seq, h.score])));
    assert.equal(when.hits[0].match, 'every');
    const plain = log.search('pottery class', { session: 'c1' });
    assert.equal(plain.hits[0]?.seq, 5, 'without a question form the shorter match ranks first (bm25)');
    assert.deepEqual(
      plain.hits.map((h) => h.seq).sort(),
      when.hits.map((h) => h.seq).sort(),
      'the same events are listed: only their order changes',
    );
  } finally {
    log.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
