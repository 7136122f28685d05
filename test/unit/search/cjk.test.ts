/**
 * Every language (issue 23): Hangul, Chinese and Japanese are findable by words and by substrings
 * of runs (the index holds runs' character bigrams), fold() keeps Hangul syllables and kana whole,
 * and a log indexed by the older tokenizer is reindexed when opened for writing, with progress told.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../src/core/log/eventLog';
import { fold } from '../../../src/core/search/tokens';
import { buildIndexDocument } from '../../../src/core/search/indexText';
import { INDEX_VERSION } from '../../../src/core/search/constants';

const DOCS = [
  '재시도를 세 번까지 허용합니다',
  '重试上限是五次，超过就报错',
  'リトライ上限を設定してください',
  'the retry上限 was reached twice',
  'an English line about nothing in particular',
];

function withLog(fn: (log: EventLog, path: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-cjk-'));
  const path = join(dir, 'scroll.db');
  const log = EventLog.open({ path, onWarning: () => undefined });
  try {
    log.appendMany(DOCS.map((content) => ({ kind: 'note', role: 'user', content, session: 's' })));
    fn(log, path);
  } finally {
    log.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const matching = (log: EventLog, q: string) => log.search(q, { k: 10 }).hits.filter((h) => h.match !== 'context').map((h) => h.seq);

test('fold keeps Hangul syllables, kana, Greek and Cyrillic letters whole; Latin letters lose their marks', () => {
  assert.equal(fold('재시도'), '재시도');
  assert.equal(fold('ガイド'), 'ガイド');
  assert.equal(fold('йод'), 'йод');
  assert.equal(fold('Café'), 'cafe');
  assert.equal(fold('İstanbul'), 'istanbul');
});

test('Korean, Chinese and Japanese are found by words and by substrings of runs', () => {
  withLog((log) => {
    assert.deepEqual(matching(log, '재시도'), [1], 'a Korean word with a particle attached (재시도를)');
    assert.deepEqual(matching(log, '시도'), [1]);
    assert.deepEqual(matching(log, '重试上限'), [2], 'a Chinese substring inside a longer run');
    assert.deepEqual(matching(log, '试上').sort(), [2]);
    assert.deepEqual(matching(log, '上限').sort(), [2, 3, 4]);
    assert.deepEqual(matching(log, '上限を設定'), [3]);
    assert.deepEqual(matching(log, 'retry'), [4], 'the Latin part of a mixed token');
    assert.deepEqual(matching(log, '报').sort(), [2], 'one character');
    assert.deepEqual(matching(log, '错'), [2], 'the last character of a run');
    assert.deepEqual(matching(log, '설정'), []);
  });
});

test('the index text holds the bigrams of CJK runs, and nothing more for text without them', () => {
  assert.match(buildIndexDocument('재시도를 해요').parts, /^재시 시도 도를 를$/m);
  assert.equal(buildIndexDocument('plain words and getUserById').parts, 'get user by id');
});

test('a log indexed by the older tokenizer is reindexed when opened for writing, with progress told, and then finds Korean', () => {
  withLog((log, path) => {
    // What an older Scroll left: index rows without bigrams, and no index_version in scroll_meta.
    const db = log.database;
    db.exec("INSERT INTO events_fts(events_fts) VALUES('delete-all')");
    const rows = db.prepare('SELECT seq, content FROM events').all() as { seq: number; content: string }[];
    for (const r of rows) db.prepare("INSERT INTO events_fts(rowid, body, code, parts, headline) VALUES (?, ?, '', '', '')").run(r.seq, r.content);
    db.prepare("DELETE FROM scroll_meta WHERE key = 'index_version'").run();
    log.indexChanged();
    assert.deepEqual(matching(log, '시도'), [], 'the old index cannot find a substring');
    log.close();

    const said: string[] = [];
    const reader = EventLog.open({ path, readonly: true, onWarning: (m) => said.push(m) });
    assert.ok(said.some((m) => /built by an older Scroll/.test(m)), said.join('\n'));
    reader.close();

    said.length = 0;
    const reopened = EventLog.open({ path, onWarning: (m) => said.push(m) });
    try {
      assert.ok(said.some((m) => /rebuilding it from the log \(5 events\)/.test(m)), said.join('\n'));
      assert.ok(said.some((m) => /search index rebuilt: 5 events/.test(m)), said.join('\n'));
      assert.deepEqual(matching(reopened, '시도'), [1]);
      const v = reopened.database.prepare("SELECT value FROM scroll_meta WHERE key = 'index_version'").get() as { value: string };
      assert.equal(Number(v.value), INDEX_VERSION);
    } finally {
      reopened.close();
    }
    said.length = 0;
    const again = EventLog.open({ path, onWarning: (m) => said.push(m) });
    again.close();
    assert.deepEqual(said, [], 'a current index is not rebuilt again');
  });
});

test('a new log records the index version before its first event', () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-cjk-'));
  try {
    const log = EventLog.open({ path: join(dir, 'scroll.db') });
    const v = log.database.prepare("SELECT value FROM scroll_meta WHERE key = 'index_version'").get() as { value: string } | undefined;
    assert.equal(Number(v?.value), INDEX_VERSION);
    log.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
