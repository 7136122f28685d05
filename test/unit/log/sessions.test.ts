/**
 * `log.sessions()` keeps its answer per connection and folds in only what was appended since
 * (historyQueries.sessionSummaries): whatever happened in between — appends here or by another
 * writer, a new session, a purge that rewrote a session's name, a bulk append rolled back — it
 * says what grouping every event says.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../src/core/log/eventLog';
import type { SessionInfo } from '../../../src/core/types';
import { eventFacets, facetsSql, sessionsSql } from '../../../src/core/log/historyQueries';
import { SCHEMA_VERSION } from '../../../src/core/log/schema';

function withDir(fn: (dir: string) => Promise<void> | void): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scroll-sessions-'));
    try {
      await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

/** The sessions as grouping every event gives them (what sessions() answered before it kept anything). */
function grouped(log: EventLog): SessionInfo[] {
  const rows = log.database
    .prepare(
      `SELECT session, MIN(seq) AS firstSeq, MAX(seq) AS lastSeq, MIN(ts) AS firstTs, MAX(ts) AS lastTs, COUNT(*) AS events, SUM(tokens) AS tokens
       FROM events GROUP BY session ORDER BY MIN(seq)`,
    )
    .all() as SessionInfo[];
  return rows.map((r) => ({ ...r, firstSeq: Number(r.firstSeq), lastSeq: Number(r.lastSeq), events: Number(r.events), tokens: Number(r.tokens ?? 0) }));
}

const note = (session: string, content: string, ts?: string) => ({ kind: 'note', role: 'user', session, content, ...(ts ? { ts } : {}) });

test('appends here and by another writer, new sessions, earlier and later times: the same as grouping every event', withDir((dir) => {
  const path = join(dir, 'scroll.db');
  const log = EventLog.open({ path });
  log.appendMany([note('a', 'first of a', '2026-01-02T00:00:00Z'), note('b', 'first of b', '2026-01-03T00:00:00Z')]);
  assert.deepEqual(log.sessions(), grouped(log));
  log.appendMany([note('a', 'a again, dated earlier', '2025-12-31T00:00:00Z'), note('c', 'a new session')]);
  assert.deepEqual(log.sessions(), grouped(log));
  const other = EventLog.open({ path });
  other.appendMany([note('b', 'b from another writer, longer text '.repeat(20)), note('d', 'and a session of its own')]);
  other.close();
  const after = log.sessions();
  assert.deepEqual(after, grouped(log));
  assert.deepEqual(after.map((s) => s.session), ['a', 'b', 'c', 'd']);
  assert.equal(after[0].firstTs, '2025-12-31T00:00:00Z');
  // The caller may sort or change what it gets.
  after.sort((x, y) => y.lastSeq - x.lastSeq).forEach((s) => (s.events = -1));
  assert.deepEqual(log.sessions(), grouped(log));
  log.close();
}));

test('a purge that rewrote a session name is seen (everything is read again)', withDir((dir) => {
  const log = EventLog.open({ path: join(dir, 'scroll.db'), redact: false });
  log.appendMany([note('deploy-hunter2', 'one'), note('deploy-hunter2', 'two'), note('other', 'three')]);
  assert.deepEqual(log.sessions().map((s) => s.session), ['deploy-hunter2', 'other']);
  const r = log.purge({ seqs: [1, 2], texts: ['hunter2'] });
  assert.equal(r.events.length, 2, JSON.stringify(r));
  const now = log.sessions();
  assert.deepEqual(now, grouped(log));
  assert.ok(!now.some((s) => s.session.includes('hunter2')), JSON.stringify(now));
  log.close();
}));

test('inside a bulk append it sees the rows in flight, and after a rollback it no longer does', withDir(async (dir) => {
  const log = EventLog.open({ path: join(dir, 'scroll.db') });
  log.appendMany([note('a', 'committed')]);
  const before = log.sessions();
  const bulk = log.beginBulk({ worker: false });
  await bulk.submit([note('a', 'in flight'), note('z', 'in flight too')]);
  assert.deepEqual(log.sessions(), grouped(log));
  assert.deepEqual(log.sessions().map((s) => s.session), ['a', 'z']);
  bulk.rollback();
  // As many events appended again, so the log is as long as it was in flight: only what committed counts.
  log.appendMany([note('a', 'committed later'), note('a', 'and another')]);
  assert.deepEqual(log.sessions(), grouped(log));
  assert.deepEqual(log.sessions().map((s) => s.session), before.map((s) => s.session), 'session z was rolled back');
  log.close();
}));

test('the kinds and roles of the panel filters follow appends and a purge, as listing every event gives them', withDir((dir) => {
  const log = EventLog.open({ path: join(dir, 'scroll.db'), redact: false });
  const distinct = (col: 'kind' | 'role') => (log.database.prepare(`SELECT DISTINCT ${col} AS v FROM events ORDER BY ${col}`).all() as { v: string }[]).map((r) => r.v);
  const both = () => ({ kinds: distinct('kind'), roles: distinct('role') });
  log.appendMany([note('a', 'one')]);
  assert.deepEqual(eventFacets(log, false), both());
  log.appendMany([{ kind: 'tool_result', role: 'tool', session: 'a', content: 'out' }, { kind: 'note', role: 'reviewer-hunter2', session: 'a', content: 'x' }]);
  assert.deepEqual(eventFacets(log, false), both());
  log.purge({ seqs: [log.maxSeq()], texts: ['hunter2'] });
  const after = eventFacets(log, false);
  assert.deepEqual(after, both());
  assert.ok(!after.roles.some((r) => r.includes('hunter2')), JSON.stringify(after));
  log.close();
}));

/** What SQLite plans for `sql`, one line per step. */
const plan = (log: EventLog, sql: string) =>
  (log.database.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(0, 1) as { detail: string }[]).map((r) => r.detail).join('; ');
const indexColumns = (log: EventLog, index: string) =>
  (log.database.prepare(`PRAGMA index_info(${index})`).all() as { name: string }[]).map((r) => r.name);

test('the first listing on a connection reads the session and kind indexes, never the rows and their content', withDir((dir) => {
  const path = join(dir, 'scroll.db');
  const log = EventLog.open({ path, redact: false });
  // Rows long enough to spill onto overflow pages: reading ts or tokens from the table would walk them.
  log.appendMany(Array.from({ length: 40 }, (_, i) => ({ ...note(`s${i % 3}`, `event ${i} `.repeat(600)), kind: i % 2 ? 'note' : 'tool_result', role: i % 5 ? 'user' : 'tool' })));
  assert.match(plan(log, sessionsSql(0)), /SCAN events USING COVERING INDEX events_session_seq/);
  assert.match(plan(log, facetsSql(0)), /SCAN events USING COVERING INDEX events_kind_seq/);
  // What was appended since is read by seq, from the rows themselves.
  assert.match(plan(log, sessionsSql(40)), /USING INTEGER PRIMARY KEY/);
  assert.match(plan(log, facetsSql(40)), /USING INTEGER PRIMARY KEY/);
  const fresh = EventLog.open({ path, redact: false });
  assert.deepEqual(fresh.sessions(), grouped(log));
  const distinct = (col: 'kind' | 'role') => (log.database.prepare(`SELECT DISTINCT ${col} AS v FROM events ORDER BY ${col}`).all() as { v: string }[]).map((r) => r.v);
  assert.deepEqual(eventFacets(fresh, false), { kinds: distinct('kind'), roles: distinct('role') });
  fresh.close();
  log.close();
}));

test('a log of schema 4 migrates to the wider indexes: same names, the same sessions and facets, the chain intact', withDir((dir) => {
  const path = join(dir, 'scroll.db');
  const log = EventLog.open({ path, redact: false });
  log.appendMany([note('a', 'one', '2026-01-02T00:00:00Z'), note('b', 'two'), { kind: 'tool_result', role: 'tool', session: 'a', content: 'out' }]);
  // The indexes and version as schema 4 left them.
  log.database.exec(`DROP INDEX events_session_seq; CREATE INDEX events_session_seq ON events(session, seq);
    DROP INDEX events_kind_seq; CREATE INDEX events_kind_seq ON events(kind, seq);
    ALTER TABLE capture_cursors DROP COLUMN waiting;
    UPDATE scroll_meta SET value = '4' WHERE key = 'schema_version'; PRAGMA user_version = 4;`);
  const before = grouped(log);
  log.close();
  // Opened read-only (an untrusted workspace), it is not migrated: the listing reads the rows.
  const reader = EventLog.open({ path, readonly: true });
  assert.equal(reader.stats().schemaVersion, 4);
  assert.deepEqual(reader.sessions(), before);
  assert.deepEqual(eventFacets(reader, false), { kinds: ['note', 'tool_result'], roles: ['tool', 'user'] });
  reader.close();
  const migrated = EventLog.open({ path, redact: false });
  assert.equal(migrated.stats().schemaVersion, SCHEMA_VERSION);
  assert.deepEqual(indexColumns(migrated, 'events_session_seq'), ['session', 'seq', 'ts', 'tokens']);
  assert.deepEqual(indexColumns(migrated, 'events_kind_seq'), ['kind', 'seq', 'role']);
  assert.deepEqual(migrated.sessions(), before);
  assert.deepEqual(eventFacets(migrated, false), { kinds: ['note', 'tool_result'], roles: ['tool', 'user'] });
  assert.equal(migrated.maxSeq(), 3, 'the migration appends no event');
  const check = migrated.verify();
  assert.equal(check.ok, true, JSON.stringify(check));
  migrated.close();
}));
