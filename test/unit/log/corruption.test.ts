import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
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
    // The fresh log works.
    assert.equal(log.append({ kind: 'note', role: 'system', content: 'fresh' }).seq, 1);
    log.close();
    // Opening again: nothing more to recover.
    const again = EventLog.open({ workspace: ws, onWarning: (m) => warnings.push(m) });
    assert.equal(again.recoveredFrom, undefined);
    assert.equal(again.maxSeq(), 1);
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
    assert.equal(reopened.maxSeq(), 0);
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
    assert.equal(log.append({ kind: 'note', role: 'system', content: 'ok' }).seq, 1);
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
