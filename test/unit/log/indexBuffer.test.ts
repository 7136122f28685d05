// FTS5's in-memory buffer of new postings (its `hashsize`): set on every log opened for writing,
// also on logs made before the setting, never by a read-only open. With it a large transaction
// (bulk ingest, rebuild) writes its postings as one segment instead of one per MiB.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../../src/core/db';
import { EventLog } from '../../../src/core/log/eventLog';
import { INDEX_BUFFER_BYTES, MIGRATIONS, SCHEMA_VERSION } from '../../../src/core/log/schema';
import { buildIndexDocument } from '../../../src/core/search/indexText';

function bufferSetting(path: string): number | undefined {
  const db = openDatabase(path, { readonly: true });
  try {
    const row = db.prepare("SELECT v FROM events_fts_config WHERE k = 'hashsize'").get() as { v: unknown } | undefined;
    return row === undefined ? undefined : Number(row.v);
  } finally {
    db.close();
  }
}

function withDir(fn: (dir: string) => Promise<void> | void): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scroll-index-buffer-'));
    try {
      await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

test('a log opened for writing sets the index buffer; an older log gets it on its next writable open, not on a read-only one', withDir((dir) => {
  const path = join(dir, 'scroll.db');
  const log = EventLog.open({ path });
  log.append({ kind: 'note', role: 'user', content: 'the parser retries on timeout' });
  log.close();
  assert.equal(bufferSetting(path), INDEX_BUFFER_BYTES);

  // A log made before the setting existed: the schema as migrations leave it, FTS5's default buffer.
  const older = join(dir, 'older.db');
  const raw = openDatabase(older);
  raw.exec('PRAGMA journal_mode = WAL');
  for (const m of MIGRATIONS) raw.exec(m.sql);
  raw.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
  raw.exec("INSERT INTO scroll_meta(key, value) VALUES ('schema_version', '1')");
  raw.exec("INSERT INTO events(session, kind, role, content, bytes, tokens, ts) VALUES ('s', 'note', 'user', 'the parser retries', 18, 5, '2026-11-30T00:00:00Z')");
  raw.exec("INSERT INTO events_fts(rowid, body, code, parts, headline) VALUES (1, 'the parser retries', '', '', '')");
  raw.close();
  assert.equal(bufferSetting(older), undefined);

  const reader = EventLog.open({ path: older, readonly: true });
  assert.equal(reader.search('parser').hits.length, 1);
  reader.close();
  assert.equal(bufferSetting(older), undefined, 'a read-only open writes nothing');

  // Another process holds the write lock (a long ingest): the open neither waits nor fails.
  const other = openDatabase(older);
  other.begin();
  try {
    const started = Date.now();
    const busy = EventLog.open({ path: older });
    assert.ok(Date.now() - started < 2000, 'the open did not wait out busy_timeout');
    assert.equal(busy.search('parser').hits.length, 1);
    assert.equal(Number((busy.database.prepare('PRAGMA busy_timeout').get() as { timeout: number }).timeout), 5000, 'busy_timeout restored');
    busy.close();
  } finally {
    other.rollback();
    other.close();
  }
  assert.equal(bufferSetting(older), undefined);

  const writer = EventLog.open({ path: older });
  assert.equal(writer.search('parser').hits.length, 1);
  writer.close();
  assert.equal(bufferSetting(older), INDEX_BUFFER_BYTES);
}));

test('a bulk append writes one index segment where FTS5 by default writes several, and finds the same events', withDir(async (dir) => {
  // About 5 MB of varied text: well over FTS5's default 1 MiB buffer, well under ours.
  let seed = 11;
  const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const vocabulary = Array.from({ length: 4000 }, (_, i) => `w${i.toString(36)}${'xyz'[i % 3]}`);
  const word = () => vocabulary[Math.floor(vocabulary.length * rand() ** 2)];
  const events = Array.from({ length: 2500 }, (_, i) => ({
    kind: 'tool_result',
    role: 'tool',
    content: `result ${i} getUserById_${i % 97} ` + Array.from({ length: 300 }, word).join(' '),
  }));

  const log = EventLog.open({ path: join(dir, 'ours', 'scroll.db') });
  const bulk = log.beginBulk();
  for (let i = 0; i < events.length; i += 500) await bulk.submit(events.slice(i, i + 500));
  await bulk.commit();
  assert.equal(log.indexSegments(), 1);

  // The same index text in one transaction on FTS5's default buffer.
  const plain = openDatabase(join(dir, 'default.db'));
  for (const m of MIGRATIONS) plain.exec(m.sql);
  const insert = plain.prepare('INSERT INTO events_fts(rowid, body, code, parts, headline) VALUES (?, ?, ?, ?, ?)');
  plain.transaction(() => {
    events.forEach((e, i) => {
      const d = buildIndexDocument(e.content, null);
      insert.run(i + 1, d.body, d.code, d.parts, d.headline);
    });
  });
  const defaultSegments = Number((plain.prepare('SELECT count(DISTINCT segid) AS n FROM events_fts_idx').get() as { n: number }).n);
  assert.ok(defaultSegments > 1, `the default buffer wrote ${defaultSegments} segments`);

  // Same postings: every term finds the same events in both indexes.
  const matching = (db: typeof plain, q: string) =>
    (db.prepare('SELECT rowid FROM events_fts WHERE events_fts MATCH ? ORDER BY rowid').all(q) as { rowid: number }[]).map((r) => Number(r.rowid));
  for (const q of [vocabulary[0], vocabulary[7], vocabulary[1234], 'user', '"get user by id"', 'getuserbyid_5', 'result']) {
    const ours = matching(log.database, q);
    assert.ok(ours.length > 0, q);
    assert.deepEqual(ours, matching(plain, q), q);
  }
  assert.equal(log.search('getUserById_5').hits.length > 0, true);
  plain.close();
  log.close();
}));
