import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../../src/core/db';
import { EventLog } from '../../../src/core/log/eventLog';

const WORKER = join(__dirname, 'appendWorker.js');

interface Worker {
  seqs: number[];
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
  kill(signal: NodeJS.Signals): void;
  waitFor(n: number): Promise<void>;
}

function startWorker(dbPath: string, count: number, label: string, batch = 1): Worker {
  const child = spawn(process.execPath, [WORKER, dbPath, String(count), label, String(batch)], { stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
  const seqs: number[] = [];
  let buffered = '';
  let stderr = '';
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const l of lines) if (/^\d+$/.test(l)) seqs.push(Number(l));
    for (const w of waiters.splice(0)) {
      if (seqs.length >= w.n) w.resolve();
      else waiters.push(w);
    }
  });
  child.stderr.on('data', (c) => (stderr += c));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => {
      for (const w of waiters.splice(0)) w.resolve();
      resolve({ code, signal, stderr });
    }),
  );
  return {
    seqs,
    done,
    kill: (s) => child.kill(s),
    waitFor: (n) => new Promise<void>((resolve) => (seqs.length >= n ? resolve() : waiters.push({ n, resolve }))),
  };
}

test('two processes appending at once: all events present, seq strictly increasing, no BUSY', async () => {
  const ws = mkdtempSync(join(tmpdir(), 'scroll-conc-'));
  try {
    const path = join(ws, '.scroll', 'scroll.db');
    EventLog.open({ path }).close(); // created once, so both workers race on appends, not on creation
    const N = 300;
    const a = startWorker(path, N, 'A', 1);
    const b = startWorker(path, N, 'B', 3);
    const [ra, rb] = await Promise.all([a.done, b.done]);
    assert.equal(ra.code, 0, ra.stderr);
    assert.equal(rb.code, 0, rb.stderr);
    assert.doesNotMatch(ra.stderr + rb.stderr, /BUSY|locked/i);
    assert.equal(a.seqs.length, N);
    assert.equal(b.seqs.length, N);
    const log = EventLog.open({ path, readonly: true });
    const rows = log.database.prepare('SELECT seq, session, meta FROM events ORDER BY seq').all();
    assert.equal(rows.length, 2 * N);
    for (let i = 1; i < rows.length; i++) assert.ok(rows[i].seq > rows[i - 1].seq);
    // Each writer's own events keep its order, and every seq it was told about is its event.
    for (const [w, label] of [[a, 'A'], [b, 'B']] as const) {
      const mine = rows.filter((r) => r.session === label);
      assert.deepEqual(mine.map((r) => JSON.parse(r.meta).i), Array.from({ length: N }, (_, i) => i));
      assert.deepEqual(mine.map((r) => r.seq), w.seqs);
    }
    // The FTS index has one row per event (rowid = seq).
    assert.equal(log.database.prepare("SELECT COUNT(*) AS n FROM events_fts WHERE events_fts MATCH 'filler'").get().n, 2 * N);
    log.close();
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
});

test('two processes creating a fresh log at the same moment: one log, nothing moved aside', async () => {
  const ws = mkdtempSync(join(tmpdir(), 'scroll-create-'));
  try {
    const path = join(ws, '.scroll', 'scroll.db');
    const a = startWorker(path, 20, 'A', 1);
    const b = startWorker(path, 20, 'B', 1);
    const [ra, rb] = await Promise.all([a.done, b.done]);
    assert.equal(ra.code, 0, ra.stderr);
    assert.equal(rb.code, 0, rb.stderr);
    assert.equal(ra.stderr + rb.stderr, '');
    assert.deepEqual(readdirSync(join(ws, '.scroll')).filter((f) => f.includes('corrupt')), []);
    const log = EventLog.open({ path, readonly: true });
    assert.equal(log.stats().events, 40);
    log.close();
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
});

test('SIGKILL mid-ingest: every committed event survives and the database passes quick_check', async () => {
  const ws = mkdtempSync(join(tmpdir(), 'scroll-kill-'));
  try {
    const path = join(ws, '.scroll', 'scroll.db');
    const w = startWorker(path, 1_000_000, 'K', 7);
    await w.waitFor(300);
    w.kill('SIGKILL');
    const r = await w.done;
    assert.equal(r.signal, 'SIGKILL');
    const committed = [...w.seqs];
    assert.ok(committed.length >= 300);
    // Raw connection first: quick_check before anything could repair or move the file.
    const raw = openDatabase(path);
    assert.deepEqual(raw.prepare('PRAGMA quick_check').all().map((x) => x.quick_check), ['ok']);
    raw.close();
    const log = EventLog.open({ path });
    assert.equal(log.recoveredFrom, undefined);
    const present = new Set(log.database.prepare('SELECT seq FROM events').all().map((x) => x.seq as number));
    for (const s of committed) assert.ok(present.has(s), `committed seq ${s} was lost`);
    assert.ok(log.maxSeq() >= committed[committed.length - 1]);
    // Whole transactions only: the number of events is a multiple of the batch size.
    assert.equal(present.size % 7, 0);
    // And the log keeps working: the next seq continues after the last one.
    const next = log.append({ kind: 'note', role: 'system', content: 'after the crash' });
    assert.ok(next.seq > Math.max(...present));
    log.close();
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
});
