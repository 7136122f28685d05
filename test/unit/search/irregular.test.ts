/**
 * English irregular inflections the Porter stemmer does not conflate (met/meet, bought/buy,
 * children/child): a query word also matches its group's other forms, as one term.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../src/core/log/eventLog';
import { parseQuery } from '../../../src/core/search/query';

test('a word with irregular forms is one term OR-ing them; other words and quoted words are unchanged', () => {
  const q = parseQuery("When did Caroline meet her friends at the pottery class?");
  assert.deepEqual(q.terms.map((t) => t.text), ['caroline', 'meet', 'friends', 'pottery', 'class']);
  assert.equal(q.terms[1].fts, '("meet" OR "met")');
  assert.equal(parseQuery('see').terms[0].fts, '("see" OR "saw" OR "seen")');
  assert.equal(parseQuery('bought').terms[0].fts, '("bought" OR "buy")');
  assert.equal(parseQuery('children').terms[0].fts, '("children" OR "child")');
  assert.equal(parseQuery('pottery').terms[0].fts, '"pottery"');
  assert.equal(parseQuery('"went"').terms[0].fts, '"went"', 'a quoted word matches as written');
  // Be, do and have are stop words ("done" does not bring in "did"); light verbs are left out.
  assert.equal(parseQuery('done').terms[0].fts, '"done"');
  assert.equal(parseQuery('went').terms[0].fts, '"went"');
});

test('the question in one form finds the turn in another, matching every term, the form marked', () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-irregular-'));
  const log = EventLog.open({ path: join(dir, 'scroll.db') });
  try {
    const say = (content: string) => ({ kind: 'conversation', role: 'user', content, session: 'c1' });
    log.appendMany([
      say('Caroline: I met Anna at a pottery class yesterday and we painted bowls.'),
      say('Melanie: That sounds lovely. We bought a tent for the kids.'),
      say('Caroline: The children loved the lake last summer.'),
      say('Melanie: I read a book about painting.'),
    ]);
    const meet = log.search('When did Caroline meet Anna at the pottery class?', { session: 'c1' });
    assert.equal(meet.hits[0]?.seq, 1);
    assert.equal(meet.hits[0].match, 'every');
    assert.match(meet.hits[0].snippet, /«met»/);
    const buy = log.search('what did Melanie buy', { session: 'c1' });
    assert.equal(buy.hits[0]?.seq, 2);
    assert.equal(buy.hits[0].match, 'every');
    const child = log.search('child lake', { session: 'c1' });
    assert.equal(child.hits[0]?.seq, 3);
    assert.equal(child.hits[0].match, 'every');
  } finally {
    log.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
