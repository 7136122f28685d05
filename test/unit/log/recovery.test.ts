/**
 * A seq is never reused (issue 18, point 2): a damaged log is moved aside, every readable event is
 * carried into the fresh log with its seq, new events are numbered after the highest seq ever
 * handed out, and a `recovery` event says what was moved, salvaged and lost.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../../src/core/db';
import { EventLog, type ReadEvent } from '../../../src/core/log/eventLog';

function withDir(fn: (dir: string) => void): () => void {
  return () => {
    const dir = mkdtempSync(join(tmpdir(), 'scroll-recovery-'));
    try {
      fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

const contentOf = (i: number) =>
  i % 250 === 0 ? `big event ${i} ` + 'a long tool output line\n'.repeat(600) : `event ${i}: deploy timeout ${1000 + i} ${'words to fill pages '.repeat(8)}`;

/** A closed log of `n` events (some large enough for a payload file); returns its path and the events. */
function filledLog(dir: string, n: number): { path: string; events: Map<number, string> } {
  const path = join(dir, '.scroll', 'scroll.db');
  const log = EventLog.open({ path, session: 'work' });
  const events = new Map<number, string>();
  for (let i = 1; i <= n; i += 500) {
    const batch = Array.from({ length: Math.min(500, n - i + 1) }, (_, j) => ({ kind: 'note', role: 'user', content: contentOf(i + j) }));
    for (const e of log.appendMany(batch)) events.set(e.seq, e.content);
  }
  log.close();
  return { path, events };
}

function verify(path: string) {
  const log = EventLog.open({ path, readonly: true });
  try {
    return log.verify();
  } finally {
    log.close();
  }
}

/** The recovery's promises, whatever the damage was. */
function assertRecovered(log: EventLog, warnings: string[], events: Map<number, string>, highWater: number): ReadEvent {
  const rec = log.recovery!;
  assert.ok(rec, 'a recovery happened');
  assert.ok(log.recoveredFrom && existsSync(log.recoveredFrom), 'the damaged file is kept, aside');
  // Every salvaged event is the original, under its original seq.
  const salvaged = log.range(1, highWater);
  assert.equal(salvaged.length, rec.salvaged);
  for (const e of salvaged) assert.equal(e.content, events.get(e.seq), `seq ${e.seq}`);
  assert.equal(rec.salvaged + rec.lost, events.size);
  // The recovery event follows the highest seq ever handed out; new events follow it.
  const recovery = log.get(highWater + 1)!;
  assert.equal(recovery.kind, 'recovery');
  assert.equal(rec.recoverySeq, highWater + 1);
  assert.equal(log.append({ kind: 'note', role: 'user', content: 'after the recovery' }).seq, highWater + 2);
  // The user is told what was moved, salvaged and lost.
  assert.equal(warnings.length, 1, warnings.join('\n'));
  assert.ok(warnings[0].includes(log.recoveredFrom!), warnings[0]);
  assert.match(warnings[0], new RegExp(`salvaged ${rec.salvaged} events`));
  assert.match(warnings[0], rec.lost ? new RegExp(`lost ${rec.lost} \\(seq`) : /lost none/);
  return recovery;
}

test('a file truncated to half: the intact events are salvaged with their seqs, new ones continue after the old maximum, check passes', withDir((dir) => {
  const { path, events } = filledLog(dir, 3000);
  truncateSync(path, Math.floor(statSync(path).size / 2));
  const warnings: string[] = [];
  const log = EventLog.open({ path, onWarning: (m) => warnings.push(m) });
  try {
    const recovery = assertRecovered(log, warnings, events, 3000);
    assert.ok(log.recovery!.salvaged > 500, `salvaged ${log.recovery!.salvaged}`);
    assert.ok(log.recovery!.lost > 0);
    const meta = recovery.meta as { holes: number[][]; salvaged: { events: number }; lost: { events: number }; movedTo: string };
    assert.equal(meta.salvaged.events, log.recovery!.salvaged);
    assert.equal(meta.movedTo, log.recoveredFrom);
    // Salvaged events are searchable; payload handles still resolve (the files stayed where they were).
    const first = log.range(1, 3000)[0];
    assert.ok(log.search(`timeout ${1000 + first.seq + 1}`).hits.length >= 0);
    for (const e of log.range(1, 3000).filter((x) => x.payload)) assert.equal(e.content, events.get(e.seq));
  } finally {
    log.close();
  }
  const r = verify(path);
  assert.equal(r.ok, true, [...r.chain.problems, ...r.database].join('\n'));
  assert.ok(r.chain.holes.declared.length > 0);
  assert.deepEqual(r.chain.holes.undeclared, []);
}));

test('one damaged page out of hundreds: every other event is carried over', withDir((dir) => {
  const { path, events } = filledLog(dir, 3000);
  const probe = openDatabase(path, { readonly: true });
  const pageSize = Number(probe.prepare('PRAGMA page_size').get().page_size);
  const pages = Number(probe.prepare('PRAGMA page_count').get().page_count);
  const leaves = probe.prepare("SELECT pageno FROM dbstat WHERE name = 'events' AND pagetype = 'leaf' ORDER BY pageno").all() as { pageno: number }[];
  probe.close();
  assert.ok(pages > 300, `${pages} pages`);
  const page = leaves[Math.floor(leaves.length / 2)].pageno;
  const bytes = readFileSync(path);
  bytes.fill(0x00, (page - 1) * pageSize, (page - 1) * pageSize + 16);
  writeFileSync(path, bytes);
  const warnings: string[] = [];
  const log = EventLog.open({ path, onWarning: (m) => warnings.push(m) });
  try {
    assertRecovered(log, warnings, events, 3000);
    assert.ok(log.recovery!.lost > 0 && log.recovery!.lost < 30, `lost ${log.recovery!.lost}`);
    assert.ok(log.recovery!.salvaged > 2970);
  } finally {
    log.close();
  }
  const r = verify(path);
  assert.equal(r.ok, true, r.chain.problems.join('\n'));
}));

test('nothing readable, but the head recorded beside the log keeps the numbering: new seqs follow the old maximum', withDir((dir) => {
  const { path } = filledLog(dir, 40);
  const head = JSON.parse(readFileSync(`${path}.head.json`, 'utf8'));
  assert.equal(head.seq, 40);
  writeFileSync(path, randomBytes(50_000));
  rmSync(`${path}-wal`, { force: true });
  const warnings: string[] = [];
  const log = EventLog.open({ path, onWarning: (m) => warnings.push(m) });
  try {
    assert.equal(log.recovery!.salvaged, 0);
    assert.equal(log.recovery!.lost, 40);
    assert.equal(log.get(41)?.kind, 'recovery');
    assert.equal(log.append({ kind: 'note', role: 'user', content: 'x' }).seq, 42);
    assert.match(warnings[0], /lost 40 \(seq 1\.\.40\)/);
  } finally {
    log.close();
  }
  assert.equal(verify(path).ok, true);
}));

test('a second recovery keeps the holes the first declared, and counts only what it lost itself', withDir((dir) => {
  const { path } = filledLog(dir, 3000);
  truncateSync(path, Math.floor(statSync(path).size * 0.6));
  const first = EventLog.open({ path, onWarning: () => {} });
  const firstLost = first.recovery!.lost;
  for (let i = 0; i < 3; i++) first.append({ kind: 'note', role: 'user', content: `more ${i}` });
  first.close();
  // Damage the new file: the recovery event (and the holes it declared) must survive or be redeclared.
  writeFileSync(path, randomBytes(30_000));
  rmSync(`${path}-wal`, { force: true });
  const second = EventLog.open({ path, onWarning: () => {} });
  try {
    assert.equal(second.recovery!.highWater, 3004);
    assert.equal(second.get(3005)?.kind, 'recovery');
    assert.ok(firstLost > 0);
  } finally {
    second.close();
  }
  const r = verify(path);
  assert.equal(r.ok, true, r.chain.problems.join('\n'));
}));

test('the log file deleted while the head beside it stays: the new file continues that log, no seq is handed out twice', withDir((dir) => {
  const { path } = filledLog(dir, 30);
  for (const s of ['', '-wal', '-shm']) rmSync(path + s, { force: true });
  const warnings: string[] = [];
  const log = EventLog.open({ path, onWarning: (m) => warnings.push(m) });
  try {
    const rec = log.get(31)!;
    assert.equal(rec.kind, 'recovery');
    assert.deepEqual((rec.meta as { holes: number[][] }).holes, [[1, 30]]);
    assert.equal(log.append({ kind: 'note', role: 'user', content: 'new' }).seq, 32);
    assert.match(warnings.join('\n'), /continues log/);
  } finally {
    log.close();
  }
  assert.equal(verify(path).ok, true, verify(path).chain.problems.join('\n'));
}));
