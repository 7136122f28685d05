/**
 * Tamper evidence (issue 18, point 1): every event is chained to its predecessor by a hash over its
 * stored row; `scroll check` / EventLog.verify() recompute the chain, check seq continuity and the
 * append-only triggers, and compare the head recorded outside the file. Only public surfaces are
 * used here (EventLog, the CLI, a raw SQLite connection as an attacker would), and the chain is
 * recomputed in the tests from the documented encoding, not from chain.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { spawn } from 'node:child_process';
import { openDatabase, type Database } from '../../../src/core/db';
import { EventLog } from '../../../src/core/log/eventLog';
import { SCHEMA_VERSION } from '../../../src/core/log/schema';
import { main } from '../../../src/cli/main';
import { verifyInBackground } from '../../../src/core/log/maintenance';

function withDir(fn: (dir: string) => void | Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scroll-chain-'));
    try {
      await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

/** `scroll <args>` in this process: exit code and output. */
async function scroll(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, { stdout: (t) => (out += t), stderr: (t) => (err += t), stdin: Readable.from([]), cwd: process.cwd(), env: {} });
  return { code, out, err };
}

function filled(path: string, n: number, opts: { headMirrors?: string[] } = {}): void {
  const log = EventLog.open({ path, session: 's1', ...opts });
  for (let i = 1; i <= n; i++) {
    log.append({ kind: i % 2 ? 'user_message' : 'tool_result', role: i % 2 ? 'user' : 'tool', content: `event ${i}: the retry budget is ${1000 + i} ms` });
  }
  log.close();
}

const ORIGINAL_NO_UPDATE = "CREATE TRIGGER events_no_update BEFORE UPDATE ON events\nBEGIN SELECT RAISE(ABORT, 'scroll: the event log is append-only (UPDATE refused)'); END";
const ORIGINAL_NO_DELETE = "CREATE TRIGGER events_no_delete BEFORE DELETE ON events\nBEGIN SELECT RAISE(ABORT, 'scroll: the event log is append-only (DELETE refused)'); END";

/** What an attacker with the file does: lift the trigger, change, put the trigger back. */
function raw(path: string, fn: (db: Database) => void): void {
  const db = openDatabase(path);
  try {
    db.exec('DROP TRIGGER IF EXISTS events_no_update; DROP TRIGGER IF EXISTS events_no_delete');
    fn(db);
    db.exec(`${ORIGINAL_NO_UPDATE}; ${ORIGINAL_NO_DELETE}`);
  } finally {
    db.close();
  }
}

/** The chain hash as ARCHITECTURE.md ("Integrity") specifies it, written independently of chain.ts. */
function specHash(prev: string, row: Record<string, unknown>): string {
  const h = createHash('sha256').update(`scroll-chain-1\n${prev}\n`);
  for (const c of Object.keys(row).filter((k) => k !== 'hash').sort()) {
    const v = row[c];
    const value = v === null ? 'n' : typeof v === 'number' ? (Number.isInteger(v) ? `i${v}` : `r${v}`) : `t${String(v).length}:${String(v)}`;
    h.update(`${c}=${value}\n`);
  }
  return h.digest('hex');
}

function verify(path: string, headMirrors?: string[]) {
  const log = EventLog.open({ path, readonly: true, headMirrors });
  try {
    return log.verify();
  } finally {
    log.close();
  }
}

test('every appended event is chained: the stored hash is the documented sha256 over its row and the previous hash', withDir((dir) => {
  const path = join(dir, 'scroll.db');
  filled(path, 5);
  const log = EventLog.open({ path });
  log.append({ kind: 'tool_result', role: 'tool', content: 'x'.repeat(20_000), meta: { n: 1, nested: { a: [1, 'b'] } }, name: 'read_file', step: 3, toolCallId: 'call_1', parentSeq: 2, headline: 'a big one' });
  log.append({ kind: 'note', role: 'user', content: 'a lone surrogate \ud800 and an emoji 😀' });
  log.close();
  const db = openDatabase(path, { readonly: true });
  try {
    const rows = db.prepare('SELECT * FROM events ORDER BY seq').all() as Record<string, unknown>[];
    assert.equal(rows.length, 7);
    let prev = '0'.repeat(64);
    rows.forEach((r, i) => {
      assert.equal(r.seq, i + 1);
      assert.match(String(r.hash), /^[0-9a-f]{64}$/);
      assert.equal(r.hash, specHash(prev, r), `seq ${r.seq}`);
      prev = String(r.hash);
    });
  } finally {
    db.close();
  }
  const r = verify(path);
  assert.equal(r.ok, true, JSON.stringify(r.chain?.problems));
  assert.equal(r.chain.head?.seq, 7);
}));

test('the head is kept beside the log and in every mirror, after every commit', withDir((dir) => {
  const path = join(dir, 'scroll.db');
  const mirror = join(dir, 'editor-storage', 'scroll-head.json');
  filled(path, 3, { headMirrors: [mirror] });
  for (const f of [`${path}.head.json`, mirror]) {
    assert.ok(existsSync(f), f);
    const h = JSON.parse(readFileSync(f, 'utf8'));
    assert.equal(h.seq, 3);
    const db = openDatabase(path, { readonly: true });
    assert.equal(h.hash, db.prepare('SELECT hash FROM events WHERE seq = 3').get().hash);
    assert.equal(h.log, db.prepare("SELECT value FROM scroll_meta WHERE key = 'log_id'").get().value);
    db.close();
  }
}));

test('a content byte edited inside the file ("1500" -> "9999"): check names that seq and exits 1', withDir(async (dir) => {
  const path = join(dir, 'scroll.db');
  filled(path, 20);
  assert.equal((await scroll(['check', '--db', path])).code, 0);
  raw(path, (db) => db.prepare("UPDATE events SET content = replace(content, '1012', '9999') WHERE seq = 12").run());
  const db = openDatabase(path, { readonly: true });
  assert.match(db.prepare('SELECT content FROM events WHERE seq = 12').get().content, /9999/);
  db.close();
  const r = verify(path);
  assert.equal(r.ok, false);
  assert.equal(r.chain.firstBad, 12);
  assert.deepEqual(r.chain.badSeqs, [12]);
  const cli = await scroll(['check', '--db', path]);
  assert.equal(cli.code, 1, cli.out);
  assert.match(cli.out, /first bad seq 12/);
  assert.match(cli.out, /advice .*seq 12/);
}));

test('a deleted event leaves a hole that check names; a hole at the end shows as a cut tail', withDir(async (dir) => {
  const path = join(dir, 'scroll.db');
  filled(path, 20);
  raw(path, (db) => db.prepare('DELETE FROM events WHERE seq = 7').run());
  const r = verify(path);
  assert.equal(r.ok, false);
  assert.deepEqual(r.chain.holes.undeclared, [[7, 7]]);
  assert.equal(r.chain.firstBad, 7);
  const cli = await scroll(['check', '--db', path]);
  assert.equal(cli.code, 1);
  assert.match(cli.out, /MISSING 7/);

  // The last events deleted (and the file's own high-water mark put back): the head beside the log says so.
  const path2 = join(dir, 'b.db');
  filled(path2, 20);
  raw(path2, (db) => {
    db.prepare('DELETE FROM events WHERE seq > 15').run();
    db.prepare("UPDATE sqlite_sequence SET seq = 15 WHERE name = 'events'").run();
  });
  const r2 = verify(path2);
  assert.equal(r2.ok, false);
  assert.ok(r2.chain.problems.some((p) => /tail was cut or rewritten after seq 15/.test(p)), r2.chain.problems.join('\n'));
}));

test('dropped triggers: check flags them; opening for writing re-creates them and records an integrity event, once', withDir(async (dir) => {
  const path = join(dir, 'scroll.db');
  filled(path, 4);
  const db = openDatabase(path);
  db.exec('DROP TRIGGER events_no_update; DROP TRIGGER events_no_delete');
  db.close();
  const before = verify(path);
  assert.equal(before.ok, false);
  assert.deepEqual(before.chain.triggers.missing.sort(), ['events_no_delete', 'events_no_update']);
  assert.equal((await scroll(['check', '--db', path])).code, 1);

  const warnings: string[] = [];
  const log = EventLog.open({ path, onWarning: (m) => warnings.push(m) });
  const last = log.recent(1)[0];
  assert.equal(last.kind, 'integrity');
  assert.equal(last.seq, 5);
  assert.match(last.content, /events_no_update/);
  assert.match(last.content, /restored/);
  assert.equal(warnings.length, 1);
  assert.throws(() => log.database.prepare("UPDATE events SET content = 'x' WHERE seq = 1").run(), /append-only/);
  log.close();
  const again = EventLog.open({ path, onWarning: (m) => warnings.push(m) });
  assert.equal(again.maxSeq(), 5, 'nothing more to repair: no second event');
  again.close();
  assert.equal(warnings.length, 1);
  assert.equal(verify(path).ok, true);
  assert.equal((await scroll(['check', '--db', path])).code, 0);
}));

test('a foreign trigger (one that could drop inserts) is reported, and removed on the next writable open', withDir((dir) => {
  const path = join(dir, 'scroll.db');
  filled(path, 2);
  const db = openDatabase(path);
  db.exec("CREATE TRIGGER sneaky BEFORE INSERT ON events WHEN NEW.content LIKE '%secret%' BEGIN SELECT RAISE(IGNORE); END");
  db.close();
  assert.deepEqual(verify(path).chain.triggers.unexpected, ['sneaky']);
  const log = EventLog.open({ path, onWarning: () => {} });
  assert.equal(log.recent(1)[0].kind, 'integrity');
  log.append({ kind: 'note', role: 'user', content: 'the secret plan' });
  assert.match(log.recent(1)[0].content, /secret plan/);
  log.close();
  assert.equal(verify(path).ok, true);
}));

test('the file restored from an older copy (tail cut after closing): check reports it; the next writable open declares the seqs lost and never reuses them', withDir(async (dir) => {
  const path = join(dir, 'scroll.db');
  filled(path, 10);
  copyFileSync(path, join(dir, 'old.db'));
  const log = EventLog.open({ path });
  for (let i = 0; i < 5; i++) log.append({ kind: 'note', role: 'user', content: `later ${i}` });
  log.close();
  copyFileSync(join(dir, 'old.db'), path); // seqs 11..15 are gone; the file itself is sound
  for (const s of ['-wal', '-shm']) rmSync(path + s, { force: true });

  const r = verify(path);
  assert.equal(r.ok, false);
  assert.ok(r.chain.problems.some((p) => /the log's tail was cut or rewritten after seq 10/.test(p)), r.chain.problems.join('\n'));
  assert.equal(r.chain.firstBad, 11);
  const cli = await scroll(['check', '--db', path]);
  assert.equal(cli.code, 1);
  assert.match(cli.out, /tail was cut or rewritten after seq 10/);

  const warnings: string[] = [];
  const reopened = EventLog.open({ path, onWarning: (m) => warnings.push(m) });
  const rec = reopened.recent(1)[0];
  assert.equal(rec.kind, 'recovery');
  assert.equal(rec.seq, 16, 'numbering continues after the highest seq ever handed out');
  assert.deepEqual((rec.meta as { holes: number[][] }).holes, [[11, 15]]);
  assert.equal(reopened.append({ kind: 'note', role: 'user', content: 'after' }).seq, 17);
  reopened.close();
  assert.match(warnings.join('\n'), /cut/);
  const after = verify(path);
  assert.equal(after.ok, true, after.chain.problems.join('\n'));
  assert.deepEqual(after.chain.holes.declared, [[11, 15]]);
}));

test('a chain rewritten by someone who recomputed every hash: the head beside the log, and the mirror, disagree', withDir(async (dir) => {
  const path = join(dir, 'scroll.db');
  const mirror = join(dir, 'editor', 'head.json');
  filled(path, 12, { headMirrors: [mirror] });
  raw(path, (db) => {
    db.prepare("UPDATE events SET content = replace(content, '1005', '9999') WHERE seq = 5").run();
    let prev = db.prepare('SELECT hash FROM events WHERE seq = 4').get().hash as string;
    for (const r of db.prepare('SELECT * FROM events WHERE seq >= 5 ORDER BY seq').all() as Record<string, unknown>[]) {
      const h = specHash(prev, r);
      db.prepare('UPDATE events SET hash = ? WHERE seq = ?').run(h, r.seq);
      prev = h;
    }
  });
  const inside = verify(path);
  assert.deepEqual(inside.chain.badSeqs, [], 'the chain inside the file verifies: it was recomputed');
  assert.equal(inside.ok, false, 'but the head beside the log does not match');
  assert.ok(inside.chain.problems.some((p) => /rewritten at or before seq 12/.test(p)), inside.chain.problems.join('\n'));

  // The head beside the log rewritten too: the editor's copy still tells.
  const db = openDatabase(path, { readonly: true });
  const head = db.prepare('SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1').get();
  const logId = db.prepare("SELECT value FROM scroll_meta WHERE key = 'log_id'").get().value;
  db.close();
  writeFileSync(`${path}.head.json`, JSON.stringify({ format: 1, log: logId, seq: head.seq, hash: head.hash, ts: new Date().toISOString() }));
  assert.equal(verify(path).ok, true, 'without the mirror nothing can tell');
  const withMirror = verify(path, [mirror]);
  assert.equal(withMirror.ok, false);
  assert.ok(withMirror.chain.heads.some((h) => h.state === 'rewritten' && h.file === mirror));
  const cli = await scroll(['check', '--db', path, '--head', mirror]);
  assert.equal(cli.code, 1);
  assert.match(cli.out, /REWRITTEN/);
}));

test('a log of schema 1 migrates: the chain starts at the migration, which is recorded; later edits of old events are seen', withDir(async (dir) => {
  const path = join(dir, 'scroll.db');
  // Schema 1 exactly as the first version created it.
  const db = openDatabase(path);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec(`
CREATE TABLE scroll_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE events(seq INTEGER PRIMARY KEY AUTOINCREMENT, session TEXT NOT NULL, kind TEXT NOT NULL, role TEXT NOT NULL, name TEXT,
  content TEXT NOT NULL, payload TEXT, bytes INTEGER NOT NULL, tokens INTEGER NOT NULL, ts TEXT NOT NULL, step INTEGER, tool_call_id TEXT,
  parent_seq INTEGER, headline TEXT, meta TEXT NOT NULL DEFAULT '{}');
CREATE INDEX events_session_seq ON events(session, seq);
CREATE INDEX events_kind_seq ON events(kind, seq);
CREATE INDEX events_ts ON events(ts);
${ORIGINAL_NO_UPDATE};
${ORIGINAL_NO_DELETE};
CREATE VIRTUAL TABLE events_fts USING fts5(body, code, parts, headline, content = '', tokenize = "porter unicode61 remove_diacritics 2 tokenchars '_'");
CREATE VIRTUAL TABLE events_vocab USING fts5vocab(events_fts, 'row');
INSERT INTO scroll_meta(key, value) VALUES ('schema_version', '1');
PRAGMA user_version = 1;`);
  const ins = db.prepare("INSERT INTO events(session, kind, role, content, bytes, tokens, ts) VALUES ('old', 'note', 'user', ?, 10, 3, '2026-01-01T00:00:00Z')");
  const fts = db.prepare("INSERT INTO events_fts(rowid, body, code, parts, headline) VALUES (?, ?, '', '', '')");
  for (let i = 1; i <= 6; i++) fts.run(ins.run(`old event ${i} budget 150${i}`).lastInsertRowid, `old event ${i}`);
  db.close();

  const v1 = verify(path);
  assert.equal(v1.chain.chained, false);
  assert.equal(v1.ok, true, 'a schema-1 log is not damaged, only not chained yet');

  const log = EventLog.open({ path });
  assert.equal(log.stats().schemaVersion, SCHEMA_VERSION);
  const start = log.get(7)!;
  assert.equal(start.kind, 'integrity');
  assert.match(start.content, /chain starts here/);
  assert.match(start.content, /seqs 1\.\.6/);
  assert.equal(log.append({ kind: 'note', role: 'user', content: 'new' }).seq, 8);
  assert.equal(log.search('old event').hits.length > 0, true);
  log.close();
  const migrated = verify(path);
  assert.equal(migrated.ok, true, migrated.chain.problems.join('\n'));
  assert.equal(migrated.chain.chainStart, 7);

  // An event from before the migration changed afterwards: the migration event's hash covers it.
  raw(path, (raw) => raw.prepare("UPDATE events SET content = replace(content, '1503', '9999') WHERE seq = 3").run());
  const edited = verify(path);
  assert.equal(edited.ok, false);
  assert.equal(edited.chain.firstBad, 7);
  assert.match(edited.chain.problems.join('\n'), /seq 7 .*1\.\.6/);
}));

test('bulk ingest on a worker thread and two processes appending at once both leave a chain that verifies', withDir(async (dir) => {
  const path = join(dir, 'scroll.db');
  const log = EventLog.open({ path });
  const bulk = log.beginBulk({ worker: true });
  const batches = Array.from({ length: 4 }, (_, b) => Array.from({ length: 300 }, (_, i) => ({ kind: 'note', role: 'user', content: `batch ${b} event ${i} ${'words '.repeat(i % 50)}${i % 97 === 0 ? 'y'.repeat(9000) : ''}` })));
  await Promise.all(batches.map((b) => bulk.submit(b)));
  await bulk.commit();
  log.close();
  const r = verify(path);
  assert.equal(r.ok, true, r.chain.problems.join('\n'));
  assert.equal(r.chain.head?.seq, 1200);

  const worker = join(__dirname, 'appendWorker.js');
  const run = (label: string, batch: number) =>
    new Promise<number | null>((resolve) => spawn(process.execPath, [worker, path, '150', label, String(batch)], { stdio: 'ignore', env: process.env }).on('close', resolve));
  const codes = await Promise.all([run('A', 1), run('B', 4)]);
  assert.deepEqual(codes, [0, 0]);
  const after = verify(path);
  assert.equal(after.ok, true, after.chain.problems.join('\n'));
  assert.equal(after.chain.head?.seq, 1500);
}));

test("the editor's check (on the maintenance worker) sees the same: the edited seq, and a rewrite only its own copy of the head catches", withDir(async (dir) => {
  const path = join(dir, 'scroll.db');
  const mirror = join(dir, 'editor', 'head.json');
  filled(path, 8, { headMirrors: [mirror] });
  raw(path, (db) => db.prepare("UPDATE events SET content = 'changed' WHERE seq = 3").run());
  const log = EventLog.open({ path, readonly: true, headMirrors: [mirror] });
  try {
    let where = '';
    const r = await verifyInBackground(log, { onStarted: (w) => (where = w) });
    assert.equal(where, 'worker');
    assert.equal(r.ok, false);
    assert.equal(r.chain.firstBad, 3);
    assert.match(r.advice, /first bad seq: 3/);
    assert.deepEqual(r.chain.heads.map((h) => h.file), [`${path}.head.json`, mirror]);
  } finally {
    log.close();
  }
}));
