import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { openDatabase } from '../../../src/core/db';
import { EventLog } from '../../../src/core/log/eventLog';

function withWorkspace(fn: (ws: string, scrollDir: string) => void): void {
  const ws = mkdtempSync(join(tmpdir(), 'scroll-corrupt-'));
  try {
    const dir = join(ws, '.scroll');
    mkdirSync(dir, { recursive: true });
    fn(ws, dir);
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
}

test('a file of garbage bytes is moved aside (not deleted, not overwritten) and a fresh log starts', () => {
  withWorkspace((ws, dir) => {
    const path = join(dir, 'scroll.db');
    const garbage = randomBytes(20_000);
    writeFileSync(path, garbage);
    writeFileSync(`${path}-wal`, Buffer.from('not a wal either'));
    const warnings: string[] = [];
    const log = EventLog.open({ workspace: ws, onWarning: (m) => warnings.push(m) });
    assert.ok(log.recoveredFrom, 'recoveredFrom is set');
    assert.match(log.recoveredFrom!, /scroll\.db\.corrupt-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/);
    assert.deepEqual(readFileSync(log.recoveredFrom!), garbage);
    assert.equal(readFileSync(`${log.recoveredFrom}-wal`, 'utf8'), 'not a wal either');
    assert.equal(warnings.length, 1);
    assert.ok(warnings[0].includes(log.recoveredFrom!), 'the message names the moved file');
    assert.match(warnings[0], /damaged/);
    // The fresh log works; its first event records the recovery (nothing could be salvaged).
    assert.equal(log.get(1)?.kind, 'recovery');
    assert.equal(log.append({ kind: 'note', role: 'system', content: 'fresh' }).seq, 2);
    log.close();
    // Opening again: nothing more to recover.
    const again = EventLog.open({ workspace: ws, onWarning: (m) => warnings.push(m) });
    assert.equal(again.recoveredFrom, undefined);
    assert.equal(again.maxSeq(), 2);
    again.close();
    assert.equal(warnings.length, 1);
  });
});

test('a truncated database is detected and moved aside with its data intact', () => {
  withWorkspace((ws, dir) => {
    const path = join(dir, 'scroll.db');
    const log = EventLog.open({ workspace: ws });
    log.appendMany(Array.from({ length: 2000 }, (_, i) => ({ kind: 'note', role: 'system', content: `event ${i} ${'some words to fill pages '.repeat(10)}` })));
    log.close();
    const size = statSync(path).size;
    assert.ok(size > 100_000);
    truncateSync(path, Math.floor(size / 2));
    const before = readFileSync(path);
    const warnings: string[] = [];
    const reopened = EventLog.open({ workspace: ws, onWarning: (m) => warnings.push(m) });
    assert.ok(reopened.recoveredFrom);
    assert.deepEqual(readFileSync(reopened.recoveredFrom!), before);
    // The readable events were carried over with their seqs; the recovery event follows seq 2000.
    assert.ok(reopened.recovery!.salvaged > 0);
    assert.equal(reopened.maxSeq(), 2001);
    assert.equal(warnings.length, 1);
    reopened.close();
    // Two recoveries in a row never overwrite each other's files.
    writeFileSync(path, randomBytes(5000));
    const third = EventLog.open({ workspace: ws, onWarning: () => {} });
    assert.notEqual(third.recoveredFrom, reopened.recoveredFrom);
    third.close();
    assert.equal(readdirSync(dir).filter((f) => /^scroll\.db\.corrupt-[^-]/.test(f) && !/-(wal|shm)$/.test(f)).length, 2);
  });
});

test('a tiny garbage file (under one header) is moved aside too', () => {
  withWorkspace((ws, dir) => {
    const path = join(dir, 'scroll.db');
    writeFileSync(path, 'definitely not sqlite');
    const log = EventLog.open({ workspace: ws, onWarning: () => {} });
    assert.ok(log.recoveredFrom);
    assert.equal(readFileSync(log.recoveredFrom!, 'utf8'), 'definitely not sqlite');
    assert.equal(log.append({ kind: 'note', role: 'system', content: 'ok' }).seq, 2); // 1: the recovery event
    log.close();
  });
});

test('a corrupt file opened read-only is reported clearly and left where it is', () => {
  withWorkspace((ws, dir) => {
    const path = join(dir, 'scroll.db');
    writeFileSync(path, 'SQLite format 3\0' + 'garbage'.repeat(100));
    assert.throws(() => EventLog.open({ workspace: ws, readonly: true }), /not a database|malformed|not a Scroll event log/);
    assert.ok(existsSync(path));
  });
});

/** A log of `n` events, closed (so its WAL is checkpointed into the main file). */
function filledLog(ws: string, n: number): string {
  const log = EventLog.open({ workspace: ws });
  log.appendMany(Array.from({ length: n }, (_, i) => ({ kind: 'note', role: 'system', content: `event ${i} deploy timeout ${'words to fill pages '.repeat(12)}` })));
  const path = log.path;
  log.close();
  return path;
}

test('a damaged page inside the events table is found on open: the file is moved aside as found', () => {
  withWorkspace((ws) => {
    const path = filledLog(ws, 1500);
    // A leaf page of `events` in the middle of the table, located with SQLite's dbstat.
    const probe = openDatabase(path, { readonly: true });
    const pageSize = Number(probe.prepare('PRAGMA page_size').get().page_size);
    const leaves = probe.prepare("SELECT pageno FROM dbstat WHERE name = 'events' AND pagetype = 'leaf' ORDER BY pageno").all() as { pageno: number }[];
    probe.close();
    assert.ok(leaves.length > 10);
    const page = leaves[Math.floor(leaves.length / 2)].pageno;
    const bytes = readFileSync(path);
    bytes.fill(0x00, (page - 1) * pageSize, (page - 1) * pageSize + 16); // b-tree page header: invalid page type
    writeFileSync(path, bytes);
    const warnings: string[] = [];
    const log = EventLog.open({ workspace: ws, onWarning: (m) => warnings.push(m) });
    try {
      assert.ok(log.recoveredFrom, 'moved aside');
      assert.deepEqual(readFileSync(log.recoveredFrom!), bytes);
      assert.match(warnings[0], /damaged/);
      assert.equal(log.maxSeq(), 1501); // the intact events salvaged, then the recovery event
    } finally {
      log.close();
    }
  });
});

test('a damaged search index (b-trees intact, index pages cut short) keeps the log: search says how to rebuild, reindex repairs it', (t) => {
  const python = spawnSync('python3', ['-c', 'import sqlite3'], { encoding: 'utf8' });
  if (python.status !== 0) {
    t.skip('python3 with sqlite3 is needed to write into FTS5 shadow tables (better-sqlite3 runs in defensive mode)');
    return;
  }
  withWorkspace((ws) => {
    const path = filledLog(ws, 300);
    const scramble = spawnSync('python3', ['-c', [
      'import sqlite3, sys',
      'c = sqlite3.connect(sys.argv[1])',
      'c.execute("UPDATE events_fts_data SET block = X\'00\' WHERE id > 10")',
      'c.commit()',
    ].join('\n'), path], { encoding: 'utf8' });
    assert.equal(scramble.status, 0, scramble.stderr);
    const warnings: string[] = [];
    const log = EventLog.open({ workspace: ws, onWarning: (m) => warnings.push(m) });
    try {
      assert.equal(log.recoveredFrom, undefined, 'the log itself is intact: not moved aside');
      assert.deepEqual(warnings, []);
      assert.equal(log.maxSeq(), 300);
      for (const q of ['deploy', 'deploy timeout']) {
        const r = log.search(q);
        assert.equal(r.hits.length, 0);
        assert.match(r.message ?? '', /search failed: .*scroll reindex/);
      }
      log.rebuildIndex();
      const again = log.search('deploy timeout', { k: 5 });
      assert.equal(again.message, undefined);
      assert.equal(again.hits.length, 5);
    } finally {
      log.close();
    }
  });
});
