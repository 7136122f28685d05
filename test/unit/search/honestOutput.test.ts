/**
 * What a search says about itself (issue 23, "honest output"): the CLI's text and its --json say the
 * same thing; the broadened note only when a listed hit matches only some terms; pruned words named
 * with their counts; hits in score order; a long query cut at a word boundary; emoji get a reason.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../src/core/log/eventLog';
import { textReport } from '../../../src/cli/commands/search';
import { cutAtWordBoundary, parseQuery } from '../../../src/core/search/query';

function withLog(contents: string[], fn: (log: EventLog) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-honest-'));
  const log = EventLog.open({ path: join(dir, 'scroll.db') });
  try {
    log.appendMany(contents.map((content, i) => ({ kind: i % 2 ? 'model_turn' : 'user_message', role: i % 2 ? 'assistant' : 'user', content, session: 's' })));
    fn(log);
  } finally {
    log.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const POOLS = ['the pool is full again', 'pool workers restart after a crash', 'drain the pool before deploying', 'a pool of threads serves requests', 'set the retry cap to five'];

test('hits that match every term carry no "broadened" note; neighbours listed for context are marked as such', () => {
  withLog(POOLS, (log) => {
    const r = log.search('retry cap');
    assert.equal(r.hits[0].seq, 5);
    assert.equal(r.hits[0].match, 'every');
    const text = textReport(r);
    assert.doesNotMatch(text, /no event matched every term/);
    assert.doesNotMatch(text, /only some of the terms/);
    for (const h of r.hits) assert.equal(h.broadened, h.match !== 'every');
    const context = r.hits.filter((h) => h.match === 'context').length;
    assert.ok(context > 0);
    assert.match(text, new RegExp(`\\(${context} of ${r.hits.length} hits are listed for a strong match next to them`));
  });
});

test('a pruned common word is named with its count, in the text and in the result', () => {
  withLog(POOLS, (log) => {
    const r = log.search('pool threads');
    assert.deepEqual(r.ignored, [{ word: 'pool', events: 4, of: 5 }]);
    assert.deepEqual(r.pruned, ['pool']);
    assert.match(textReport(r), /^\(ignored 'pool': it is in 4 of 5 events searched\)$/m);
  });
});

test('when the words kept after pruning match nothing, every word is searched ("pool size" is not "no hits")', () => {
  withLog(POOLS, (log) => {
    const r = log.search('pool size');
    assert.deepEqual(r.terms, ['pool', 'size']);
    assert.equal(r.ignored, undefined);
    assert.deepEqual(r.hits.filter((h) => h.match === 'some').map((h) => h.seq).sort(), [1, 2, 3, 4]);
    const text = textReport(r);
    assert.doesNotMatch(text, /no hits/);
    assert.match(text, /hits match only some of the terms/);
  });
});

test('hits are listed in score order, on every page', () => {
  const lines = Array.from({ length: 120 }, (_, i) => (i % 3 === 0 ? `deploy step ${i} failed on timeout` : i % 3 === 1 ? `retry ${i} after deploy` : `filler ${i} unrelated words here`));
  withLog(lines, (log) => {
    for (const q of ['deploy timeout', 'retry', 'deploy failed nothing']) {
      const all = log.search(q, { k: 100 }).hits;
      for (let i = 1; i < all.length; i++) assert.ok(all[i - 1].score >= all[i].score, `${q}: ${all[i - 1].score} before ${all[i].score}`);
      const paged = [0, 10, 20, 30].flatMap((offset) => log.search(q, { k: 10, offset }).hits.map((h) => h.seq));
      assert.deepEqual(paged, all.slice(0, 40).map((h) => h.seq), `${q}: pages concatenate to the list`);
    }
  });
});

test('a long query is cut at a word boundary, never inside a word', () => {
  const p = parseQuery('retry '.repeat(700));
  assert.deepEqual(p.terms.map((t) => t.text), ['retry']);
  assert.match(p.message ?? '', /only its start was searched/);
  assert.equal(cutAtWordBoundary('abc defgh', 6), 'abc ');
  assert.equal(cutAtWordBoundary('abc defgh', 4), 'abc ');
  assert.equal(cutAtWordBoundary('abcdefgh', 4), 'abcd', 'one long word is cut where it must be');
  assert.equal(cutAtWordBoundary('ab 😀😀', 6), 'ab 😀', 'a surrogate pair is not split');
});

test('a query of emoji or punctuation gets a reason, not "no words"', () => {
  withLog(POOLS, (log) => {
    assert.match(log.search('🎉🎉 ✨').message ?? '', /no letters or digits \(emoji, symbols and punctuation are not indexed\)/);
    assert.match(log.search('   ').message ?? '', /the query is empty/);
  });
});
