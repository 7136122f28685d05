import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase } from '../../../src/core/db';
import { porterStem } from '../../../src/core/search/porter';
import { fold } from '../../../src/core/search/tokens';
import { FTS_TOKENIZE } from '../../../src/core/log/schema';

// Words exercising every Porter rule, plus agent-log vocabulary.
const WORDS = `caresses ponies ties caress cats feed agreed plastered bled motoring sing conflated troubled
sized hopping tanned falling hissing fizzed failing filing happy sky relational conditional rational valenci
hesitanci digitizer conformabli radicalli differentli vileli analogousli vietnamization predication operator
feudalism decisiveness hopefulness callousness formaliti sensitiviti sensibiliti triplicate formative formalize
electriciti electrical hopeful goodness revival allowance inference airliner gyroscopic adjustable defensible
irritant replacement adjustment dependent adoption homologou communism activate angulariti homologous effective
bowdlerize probate rate cease controll roll generalizations oscillators agreement yesterday dying lying eyeing
flying skies abc ab xyzzy résumé naïve café connection connections configured configuring running runs
migrations exhausted refused undefined properties reading rendering tests testing getuserbyid user_id users
abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzations queueing agreeing`.split(/\s+/);

test('porterStem gives exactly the stems SQLite FTS5 stores', () => {
  const words = [...new Set(WORDS.map(fold))];
  const db = openDatabase(':memory:');
  db.exec(`CREATE VIRTUAL TABLE t USING fts5(x, tokenize = "${FTS_TOKENIZE}"); CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance');`);
  const ins = db.prepare('INSERT INTO t(rowid, x) VALUES (?, ?)');
  words.forEach((w, i) => ins.run(i + 1, w));
  let checked = 0;
  for (const r of db.prepare('SELECT doc, term FROM v').all() as { doc: number; term: string }[]) {
    assert.equal(porterStem(words[r.doc - 1]), r.term, words[r.doc - 1]);
    checked++;
  }
  assert.equal(checked, words.length);
  db.close();
});

test('porterStem: short and very long tokens pass through', () => {
  assert.equal(porterStem('is'), 'is');
  const long = 'a'.repeat(70) + 'ing';
  assert.equal(porterStem(long), long);
});
