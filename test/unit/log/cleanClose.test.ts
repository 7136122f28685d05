/**
 * Opening for writing skips the page check only for a file exactly as a clean close left it
 * (src/core/log/cleanClose.ts); anything that touched the file since — a damaged page with its
 * modification time put back, a write by another SQLite client, a connection still open at the
 * close — is checked as before, and damage found is recovered.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../../src/core/db';
import { EventLog } from '../../../src/core/log/eventLog';
import { headFileFor } from '../../../src/core/log/chain';

function withLog(fn: (path: string) => void): () => void {
  return () => {
    const dir = mkdtempSync(join(tmpdir(), 'scroll-clean-close-'));
    try {
      const path = join(dir, '.scroll', 'scroll.db');
      const log = EventLog.open({ path, session: 'work' });
      assert.equal(log.openCheck, 'new');
      log.appendMany(Array.from({ length: 400 }, (_, i) => ({ kind: 'note', role: 'user', content: `event ${i}: ${'words to fill pages '.repeat(20)}` })));
      log.close();
      fn(path);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

const openCheckOf = (path: string) => {
  const warnings: string[] = [];
  const log = EventLog.open({ path, onWarning: (m) => warnings.push(m) });
  const r = { check: log.openCheck, recovered: log.recovery !== undefined, maxSeq: log.maxSeq(), warnings };
  log.close();
  return r;
};

test('a file as its clean close left it is opened without the page check; the close recorded it beside the log', withLog((path) => {
  const head = JSON.parse(readFileSync(headFileFor(path), 'utf8')) as { seq: number; closed?: string };
  assert.equal(head.seq, 400);
  assert.match(head.closed ?? '', /^\d+:\d+:\d+:\d+$/);
  assert.deepEqual(openCheckOf(path), { check: 'unchanged', recovered: false, maxSeq: 400, warnings: [] });
  // And again: a close that wrote nothing marks it anew.
  assert.equal(openCheckOf(path).check, 'unchanged');
}));

test('a damaged page is found even when the modification time is put back (the change time moves)', { skip: process.platform === 'win32' ? 'needs coreutils touch' : false }, withLog((path) => {
  const before = statSync(path, { bigint: true });
  const fd = openSync(path, 'r+');
  try {
    // Page 3 onward (4 KiB pages): events' b-tree pages, overwritten in place; the size is unchanged.
    writeSync(fd, Buffer.alloc(4096 * 4, 0xa5), 0, 4096 * 4, 4096 * 2);
  } finally {
    closeSync(fd);
  }
  // The modification time put back to the nanosecond (coreutils `touch`; Node's utimes rounds it).
  const ns = before.mtimeNs;
  const put = spawnSync('touch', ['-m', '-d', `@${ns / 1_000_000_000n}.${String(ns % 1_000_000_000n).padStart(9, '0')}`, path], { encoding: 'utf8' });
  assert.equal(put.status, 0, put.stderr);
  const after = statSync(path, { bigint: true });
  assert.equal(after.size, before.size);
  assert.equal(after.mtimeNs, before.mtimeNs, 'the modification time is as before');
  const r = openCheckOf(path);
  assert.equal(r.check, 'checked');
  assert.equal(r.recovered, true, 'the damage was found and the file moved aside');
}));

test('a write by another SQLite client since the close is checked', withLog((path) => {
  const db = openDatabase(path);
  db.exec("INSERT INTO scroll_meta(key, value) VALUES ('note', 'written outside Scroll')");
  db.close();
  assert.equal(openCheckOf(path).check, 'checked');
}));

test('a close while another connection is open marks nothing: the next open checks', withLog((path) => {
  const first = EventLog.open({ path });
  assert.equal(first.openCheck, 'unchanged');
  const reader = EventLog.open({ path, readonly: true });
  first.append({ kind: 'note', role: 'user', content: 'one more' });
  first.close(); // the reader keeps the WAL: the file does not hold everything yet
  const head = JSON.parse(readFileSync(headFileFor(path), 'utf8')) as { closed?: string };
  assert.equal(head.closed, undefined);
  reader.close();
  const r = openCheckOf(path);
  assert.equal(r.check, 'checked');
  assert.equal(r.maxSeq, 401);
}));

test('an append by a later writer drops the mark until that writer closes cleanly', withLog((path) => {
  const writer = EventLog.open({ path });
  writer.append({ kind: 'note', role: 'user', content: 'appended later' });
  const head = JSON.parse(readFileSync(headFileFor(path), 'utf8')) as { seq: number; closed?: string };
  assert.equal(head.seq, 401);
  assert.equal(head.closed, undefined, "a commit's head carries no mark");
  writer.close();
  assert.equal(openCheckOf(path).check, 'unchanged');
}));
