import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../../src/core/db';
import { InvalidInputError, ReadonlyLogError } from '../../../src/core/errors';
import { EventLog } from '../../../src/core/log/eventLog';
import { PREVIEW_CHARS } from '../../../src/core/log/eventPreparer';
import { SCHEMA_VERSION } from '../../../src/core/log/schema';
import { REDACTION_RULESET_VERSION } from '../../../src/core/log/redaction';

function withWorkspace(fn: (ws: string) => void): void {
  const ws = mkdtempSync(join(tmpdir(), 'scroll-log-'));
  try {
    fn(ws);
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
}

test('open creates .scroll/ with a .gitignore of "*", WAL mode and the schema version', () => {
  withWorkspace((ws) => {
    const log = EventLog.open({ workspace: ws });
    assert.equal(log.path, join(ws, '.scroll', 'scroll.db'));
    assert.equal(readFileSync(join(ws, '.scroll', '.gitignore'), 'utf8').trim(), '*');
    const db = log.database;
    assert.equal(db.prepare('PRAGMA journal_mode').get().journal_mode, 'wal');
    assert.equal(db.prepare('PRAGMA user_version').get().user_version, SCHEMA_VERSION);
    assert.equal(db.prepare("SELECT value FROM scroll_meta WHERE key = 'schema_version'").get().value, String(SCHEMA_VERSION));
    assert.ok(Number(db.prepare('PRAGMA busy_timeout').get().timeout) > 0);
    assert.equal(log.stats().schemaVersion, SCHEMA_VERSION);
    log.close();
    // Re-opening runs no migration twice and keeps the data.
    const again = EventLog.open({ workspace: ws });
    assert.equal(again.stats().schemaVersion, SCHEMA_VERSION);
    again.close();
  });
});

test('append/get round-trip every field; seq strictly increasing', () => {
  withWorkspace((ws) => {
    const log = EventLog.open({ workspace: ws, session: 'S1' });
    const a = log.append({ kind: 'user_message', role: 'user', content: 'find getUserById ✓ 日本語' });
    const b = log.append({
      kind: 'tool_call', role: 'assistant', content: '{"cmd":"ls"}', session: 'S2', name: 'bash',
      ts: '2026-01-02T03:04:05.678Z', meta: { n: 1, nested: { ok: true }, list: [1, 'two'] },
      step: 3, toolCallId: 'call_1', parentSeq: a.seq, headline: 'listed the folder',
    });
    assert.ok(b.seq > a.seq);
    assert.equal(a.session, 'S1');
    const got = log.get(b.seq)!;
    assert.deepEqual(got, b);
    assert.deepEqual(got, {
      seq: b.seq, session: 'S2', kind: 'tool_call', role: 'assistant', name: 'bash', content: '{"cmd":"ls"}',
      ts: '2026-01-02T03:04:05.678Z', meta: { n: 1, nested: { ok: true }, list: [1, 'two'], redaction: REDACTION_RULESET_VERSION }, step: 3,
      toolCallId: 'call_1', parentSeq: a.seq, headline: 'listed the folder', payload: null,
      bytes: 12, tokens: 3,
    });
    assert.equal(log.get(a.seq)!.content, 'find getUserById ✓ 日本語');
    assert.ok(!Number.isNaN(Date.parse(log.get(a.seq)!.ts)));
    assert.equal(log.get(999), undefined);
    const many = log.appendMany(Array.from({ length: 50 }, (_, i) => ({ kind: 'note', role: 'system', content: `note ${i}` })));
    for (let i = 1; i < many.length; i++) assert.ok(many[i].seq > many[i - 1].seq);
    assert.equal(log.maxSeq(), many[many.length - 1].seq);
    assert.deepEqual(log.range(many[0].seq, many[2].seq).map((e) => e.content), ['note 0', 'note 1', 'note 2']);
    assert.deepEqual(log.recent(2).map((e) => e.content), ['note 48', 'note 49']);
    assert.deepEqual(log.recent(1, 'S2').map((e) => e.seq), [b.seq]);
    assert.deepEqual(log.expand([b.seq, a.seq]).map((e) => e.seq), [b.seq, a.seq]);
    assert.equal(log.expand({ from: 1, to: 1000 }).length, 52);
    assert.throws(() => log.expand([a.seq, 4242]), (e: unknown) => e instanceof InvalidInputError && /no event with seq 4242 \(the log holds 1\.\.52\)/.test(e.message));
    const sessions = log.sessions();
    assert.deepEqual(sessions.map((s) => [s.session, s.events]), [['S1', 51], ['S2', 1]]);
    const st = log.stats();
    assert.equal(st.events, 52);
    assert.equal(st.sessions, 2);
    assert.ok(st.bytes > 0);
    log.close();
  });
});

test('appendMany is one transaction: one bad event writes nothing and names the event', () => {
  withWorkspace((ws) => {
    const log = EventLog.open({ workspace: ws });
    log.append({ kind: 'note', role: 'system', content: 'before' });
    const bad = [
      { kind: 'note', role: 'system', content: 'ok 1' },
      { kind: 'note', role: 'system', content: 'ok 2', ts: 'yesterday' },
    ];
    assert.throws(() => log.appendMany(bad), /event 2: "ts" must be an ISO 8601 time/);
    assert.throws(() => log.append({ kind: 'note', role: 'system', content: 42 as unknown as string }), /"content" must be a string/);
    assert.throws(() => log.append({ kind: 'note', role: 'system', content: 'x', meta: [] as unknown as Record<string, unknown> }), /"meta" must be an object/);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    assert.throws(() => log.append({ kind: 'note', role: 'system', content: 'x', meta: cyclic }), InvalidInputError);
    assert.equal(log.maxSeq(), 1);
    assert.equal(log.database.prepare('SELECT COUNT(*) AS n FROM events').get().n, 1);
    assert.deepEqual(log.appendMany([]), []);
    log.close();
  });
});

test('beginBulk: appends across async steps in one transaction; rollback leaves nothing', async () => {
  const ws = mkdtempSync(join(tmpdir(), 'scroll-bulk-'));
  try {
    const log = EventLog.open({ workspace: ws });
    const bulk = log.beginBulk();
    bulk.append([{ kind: 'note', role: 'system', content: 'one' }]);
    await new Promise((r) => setTimeout(r, 5));
    bulk.append([{ kind: 'note', role: 'system', content: 'two' }]);
    bulk.rollback();
    assert.equal(log.maxSeq(), 0);
    assert.throws(() => bulk.append([{ kind: 'note', role: 'system', content: 'late' }]), /already committed or rolled back/);
    const ok = log.beginBulk();
    ok.append([{ kind: 'note', role: 'system', content: 'kept' }]);
    await new Promise((r) => setTimeout(r, 5));
    const big = 'large payload '.repeat(1000);
    ok.append([{ kind: 'note', role: 'system', content: 'kept too' }, { kind: 'tool_result', role: 'tool', content: big }]);
    await ok.commit();
    assert.deepEqual(log.range(1, 10).map((e) => e.content), ['kept', 'kept too', big]);
    assert.ok(log.get(3)!.payload);
    log.close();
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
});

test('append-only is enforced by SQLite: UPDATE and DELETE through a separate connection fail', () => {
  withWorkspace((ws) => {
    const log = EventLog.open({ workspace: ws });
    log.append({ kind: 'note', role: 'system', content: 'immutable' });
    const other = openDatabase(log.path);
    assert.throws(() => other.prepare("UPDATE events SET content = 'changed'").run(), /append-only \(UPDATE refused\)/);
    assert.throws(() => other.prepare('DELETE FROM events').run(), /append-only \(DELETE refused\)/);
    other.close();
    assert.equal(log.get(1)!.content, 'immutable');
    log.close();
  });
});

test('large content goes to the payload store: row keeps a preview + handle, get returns it whole, FTS indexes all of it', () => {
  withWorkspace((ws) => {
    const log = EventLog.open({ workspace: ws, payloadThreshold: 1024 });
    const big = 'lorem ipsum dolor '.repeat(400) + ' zanzibarquux at the very end';
    const e = log.append({ kind: 'tool_result', role: 'tool', content: big, name: 'read_file' });
    assert.match(e.payload!, /^[0-9a-f]{64}$/);
    assert.equal(e.bytes, Buffer.byteLength(big));
    const row = log.database.prepare('SELECT content, payload FROM events WHERE seq = ?').get(e.seq);
    assert.equal(row.content, big.slice(0, PREVIEW_CHARS));
    assert.equal(row.payload, e.payload);
    assert.ok(existsSync(join(ws, '.scroll', 'payloads', e.payload!.slice(0, 2), e.payload!)));
    assert.equal(log.get(e.seq)!.content, big);
    const match = (term: string) => log.database.prepare('SELECT rowid FROM events_fts WHERE events_fts MATCH ?').all(term).map((r) => r.rowid);
    assert.deepEqual(match('zanzibarquux'), [e.seq]);
    // Small content stays inline.
    const small = log.append({ kind: 'note', role: 'system', content: 'tiny' });
    assert.equal(small.payload, null);
    assert.equal(log.stats().payloads, 1);
    log.close();
  });
});

test('rebuildIndex refills the FTS index from events and payloads', () => {
  withWorkspace((ws) => {
    const log = EventLog.open({ workspace: ws, payloadThreshold: 64 });
    log.append({ kind: 'note', role: 'system', content: 'alpha getUserById' });
    log.append({ kind: 'note', role: 'system', content: 'x'.repeat(100) + ' omegaword', headline: 'headline words' });
    const match = (term: string) => log.database.prepare('SELECT rowid FROM events_fts WHERE events_fts MATCH ? ORDER BY rowid').all(term).map((r) => r.rowid);
    const before = ['alpha', 'omegaword', 'headline', 'getuserbyid'].map(match);
    log.database.exec("INSERT INTO events_fts(events_fts) VALUES('delete-all')");
    assert.deepEqual(match('alpha'), []);
    assert.equal(log.rebuildIndex(), 2, 'it says how many events it indexed');
    assert.deepEqual(['alpha', 'omegaword', 'headline', 'getuserbyid'].map(match), before);
    assert.deepEqual(before, [[1], [2], [2], [1]]);
    log.close();
  });
});

test('search delegates to the search module over the same database', () => {
  withWorkspace((ws) => {
    const log = EventLog.open({ workspace: ws });
    log.append({ kind: 'user_message', role: 'user', content: 'the parser crashes on empty input' });
    log.append({ kind: 'note', role: 'system', content: 'unrelated text about gardens' });
    // Ranking is the search module's business; the log's part is handing it the same database.
    const r = log.search('parser crashes');
    assert.equal(r.hits[0].seq, 1);
    assert.equal(r.hits[0].kind, 'user_message');
    log.close();
  });
});

test('a read-only log refuses writes and does not create anything', () => {
  withWorkspace((ws) => {
    const path = join(ws, 'nowhere', 'scroll.db');
    assert.throws(() => EventLog.open({ path, readonly: true }), /no event log at/);
    assert.equal(existsSync(join(ws, 'nowhere')), false);
    const w = EventLog.open({ workspace: ws });
    w.append({ kind: 'note', role: 'system', content: 'x' });
    const r = EventLog.open({ workspace: ws, readonly: true });
    assert.throws(() => r.append({ kind: 'note', role: 'system', content: 'y' }), ReadonlyLogError);
    assert.throws(() => r.database.exec("INSERT INTO scroll_meta VALUES ('a', 'b')"), /readonly|read-only/i);
    assert.equal(r.get(1)!.content, 'x');
    r.close();
    w.close();
  });
});

test('bad configuration is a clear error before anything is created', () => {
  withWorkspace((ws) => {
    assert.throws(() => EventLog.open({ workspace: ws, redact: { extraPatterns: [{ type: 'x', pattern: '[' }] } }), InvalidInputError);
    assert.throws(() => EventLog.open({ workspace: ws, payloadThreshold: -1 }), /payloadThreshold/);
    assert.equal(existsSync(join(ws, '.scroll')), false);
  });
});

test('a newer schema version is refused with a clear message', () => {
  withWorkspace((ws) => {
    const log = EventLog.open({ workspace: ws });
    log.database.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
    log.close();
    assert.throws(() => EventLog.open({ workspace: ws }), /schema version \d+; this Scroll knows up to/);
    assert.throws(() => EventLog.open({ workspace: ws, readonly: true }), /update Scroll/);
  });
});
