import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidInputError } from '../../../../src/core/errors';
import { EventLog } from '../../../../src/core/log/eventLog';
import { PREPARE_WORKER_FILE, PrepareWorkerClient } from '../../../../src/core/log/ingest/prepareWorkerClient';
import type { NewEvent } from '../../../../src/core/types';
import { REDACTION_RULESET_VERSION } from '../../../../src/core/log/redaction';

const SECRET = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';

function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-submit-'));
  return fn(dir).finally(() => rmSync(dir, { recursive: true, force: true }));
}

/** A history with what preparation must handle: secrets, payload-sized content, code, meta. */
function history(n: number, session = 'imp'): NewEvent[] {
  return Array.from({ length: n }, (_, i) => ({
    kind: i % 3 === 0 ? 'user_message' : 'tool_result',
    role: i % 3 === 0 ? 'user' : 'tool',
    session,
    content:
      i % 50 === 7
        ? `big output ${i}\n` + `line of getUserById output ${i}\n`.repeat(400) // over the 8 KB threshold
        : `event ${i}: call fetchInvoiceTotal(order_id) with token ${i % 10 === 0 ? SECRET : 'none'}\n\`\`\`ts\nconst parseHeader_${i} = 1;\n\`\`\``,
    meta: { i, auth: i % 10 === 0 ? SECRET : 'x' },
    ts: '2026-11-30T01:00:00Z',
  }));
}

/** Every stored field of every event, for comparing two logs. */
function dump(log: EventLog): unknown[] {
  return log.range(1, log.maxSeq()).map((e) => ({ ...e, ts: e.ts }));
}

test('submit: batches (after the first, on a worker) land in order, identical to appendMany, searchable, redacted', async () => {
  await withDir(async (dir) => {
    const events = history(1200);
    const ref = EventLog.open({ path: join(dir, 'ref', 'scroll.db') });
    for (let i = 0; i < events.length; i += 300) ref.appendMany(events.slice(i, i + 300));

    const log = EventLog.open({ path: join(dir, 'sub', 'scroll.db') });
    const bulk = log.beginBulk({ worker: true });
    const pending: Promise<number[]>[] = [];
    for (let i = 0; i < events.length; i += 300) pending.push(bulk.submit(events.slice(i, i + 300)));
    const seqs = (await Promise.all(pending)).flat();
    await bulk.commit();
    assert.equal(bulk.preparedOn, 'worker');
    assert.deepEqual(seqs, Array.from({ length: 1200 }, (_, i) => i + 1));
    assert.deepEqual(dump(log), dump(ref));
    assert.deepEqual(log.search('fetchInvoiceTotal', { k: 3 }).hits.map((h) => h.seq), ref.search('fetchInvoiceTotal', { k: 3 }).hits.map((h) => h.seq));
    assert.ok(log.search('invoice').hits.length > 0, 'identifier parts indexed by the worker');

    // No secret bytes anywhere under the log's folder, payload files included.
    const files = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((f) => (f.isDirectory() ? files(join(d, f.name)) : [join(d, f.name)]));
    const written = files(join(dir, 'sub'));
    assert.ok(written.some((f) => f.includes('payloads')), 'payload files were written');
    for (const f of written) assert.ok(!readFileSync(f).includes(SECRET), `${f} holds the secret`);
    assert.equal(log.verify().ok, true);
    ref.close();
    log.close();
  });
});

test('submit: while the worker lags, batches whose turn comes are prepared here; the log is the same', async () => {
  await withDir(async (dir) => {
    // The real worker, each reply held back 150 ms: slower than inserting a batch here.
    const REAL_WORKER = join(__dirname, '..', '..', '..', '..', 'src', 'core', 'log', 'ingest', PREPARE_WORKER_FILE);
    writeFileSync(
      join(dir, PREPARE_WORKER_FILE),
      `const { parentPort } = require('node:worker_threads');
const post = parentPort.postMessage.bind(parentPort);
parentPort.postMessage = (m) => setTimeout(() => post(m), 150);
require(${JSON.stringify(REAL_WORKER)});
`,
    );
    const events = history(1200);
    const ref = EventLog.open({ path: join(dir, 'ref', 'scroll.db') });
    ref.appendMany(events);

    const log = EventLog.open({ path: join(dir, 'sub', 'scroll.db') });
    const bulk = log.beginBulk({ worker: true, workerDir: dir });
    const pending: Promise<number[]>[] = [];
    for (let i = 0; i < events.length; i += 150) pending.push(bulk.submit(events.slice(i, i + 150)));
    const seqs = (await Promise.all(pending)).flat();
    await bulk.commit();
    assert.equal(bulk.preparedOn, 'worker');
    assert.equal(bulk.prepared.worker + bulk.prepared.here, 8);
    assert.ok(bulk.prepared.worker >= 1, JSON.stringify(bulk.prepared));
    assert.ok(bulk.prepared.here >= 2, `batches after the first were prepared here: ${JSON.stringify(bulk.prepared)}`);
    assert.deepEqual(seqs, Array.from({ length: 1200 }, (_, i) => i + 1));
    assert.deepEqual(dump(log), dump(ref));
    assert.equal(log.verify().ok, true, 'every payload file, from either thread, is there and intact');
    ref.close();
    log.close();
  });
});

test('submit: a bad event fails its batch, every later batch and the commit; nothing is written', async () => {
  await withDir(async (dir) => {
    const log = EventLog.open({ path: join(dir, 'scroll.db') });
    log.append({ kind: 'note', role: 'user', content: 'before' });
    const bulk = log.beginBulk({ worker: true });
    const bad = history(10);
    (bad[4] as { ts: string }).ts = 'yesterday';
    const a = bulk.submit(history(10));
    const b = bulk.submit(bad);
    const c = bulk.submit(history(10));
    assert.equal((await a).length, 10);
    await assert.rejects(b, (e: unknown) => e instanceof InvalidInputError && /^event 5: "ts" must be an ISO 8601 time/.test(e.message));
    await assert.rejects(c, /event 5/);
    await assert.rejects(bulk.commit(), /event 5/);
    assert.equal(log.maxSeq(), 1);
    assert.deepEqual(log.range(1, 100).map((e) => e.content), ['before']);
    // The log takes writes again.
    assert.equal(log.append({ kind: 'note', role: 'user', content: 'after' }).seq, 2);
    log.close();
  });
});

test('submit: a batch that is not an array, sent to the worker, fails as appendMany would; nothing is written', async () => {
  await withDir(async (dir) => {
    const log = EventLog.open({ path: join(dir, 'scroll.db') });
    const bulk = log.beginBulk({ worker: true });
    const a = bulk.submit(history(10)); // prepared here; the next one goes to the worker
    const b = bulk.submit('not a list of events' as unknown as NewEvent[]);
    assert.equal((await a).length, 10);
    await assert.rejects(b, (e: unknown) => e instanceof InvalidInputError && /expects an array of events/.test(e.message));
    await assert.rejects(bulk.commit(), /expects an array of events/);
    assert.equal(bulk.prepared.worker, 0);
    assert.equal(log.maxSeq(), 0);
    log.close();
  });
});

test('submit: rollback with batches in flight inserts nothing, then and later', async () => {
  await withDir(async (dir) => {
    const log = EventLog.open({ path: join(dir, 'scroll.db') });
    const bulk = log.beginBulk({ worker: true });
    const pending = [bulk.submit(history(500)), bulk.submit(history(500))];
    bulk.rollback();
    for (const p of pending) await p.catch(() => undefined);
    assert.equal(log.maxSeq(), 0, 'nothing was inserted (an insert after the rollback would have autocommitted)');
    assert.throws(() => bulk.submit(history(1)), /already committed or rolled back/);
    log.close();
  });
});

test('submit: without a worker the batches are prepared in this thread, with the same result', async () => {
  await withDir(async (dir) => {
    assert.equal(PrepareWorkerClient.start({ redaction: {}, payloadDir: dir, payloadThreshold: 8192 }, join(dir, 'nowhere')), undefined);
    const events = history(400);
    const a = EventLog.open({ path: join(dir, 'a', 'scroll.db') });
    const b = EventLog.open({ path: join(dir, 'b', 'scroll.db') });
    for (const [log, worker] of [[a, true], [b, false]] as const) {
      const bulk = log.beginBulk({ worker });
      await Promise.all([bulk.submit(events.slice(0, 200)), bulk.submit(events.slice(200))]);
      await bulk.commit();
      assert.equal(bulk.preparedOn, worker ? 'worker' : 'this thread');
    }
    assert.deepEqual(dump(a), dump(b));
    a.close();
    b.close();
  });
});

test('submit: synchronous append waits for submitted batches; a committed bulk refuses more', async () => {
  await withDir(async (dir) => {
    const log = EventLog.open({ path: join(dir, 'scroll.db') });
    const bulk = log.beginBulk();
    const p = bulk.submit(history(5));
    assert.throws(() => bulk.append(history(1)), /await the submitted batches/);
    await p;
    assert.equal(bulk.preparedOn, 'this thread', 'a single batch does not start a worker');
    assert.equal(bulk.append(history(1))[0].seq, 6);
    const commit = bulk.commit();
    assert.throws(() => bulk.submit(history(1)), /already committed/);
    await commit;
    assert.equal(log.maxSeq(), 6);
    log.close();
  });
});

test('submit: a bulk append left open does not keep the process alive', () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-submit-open-'));
  try {
    // A child process submits two batches (the second on the worker), awaits them, never commits.
    const script = `
      const { EventLog } = require(${JSON.stringify(join(__dirname, '..', '..', '..', '..', 'src', 'core', 'log', 'eventLog.js'))});
      const log = EventLog.open({ path: ${JSON.stringify(join(dir, 'scroll.db'))} });
      const bulk = log.beginBulk({ worker: true });
      const ev = (n) => Array.from({ length: n }, (_, i) => ({ kind: 'note', role: 'user', content: 'x' + i }));
      Promise.all([bulk.submit(ev(3)), bulk.submit(ev(3))]).then(() => console.log(bulk.preparedOn));`;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 20_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'worker');
    // Nothing was committed.
    const log = EventLog.open({ path: join(dir, 'scroll.db') });
    assert.equal(log.maxSeq(), 0);
    log.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('submit: a batch the worker cannot receive (a function in meta) is prepared in-thread, as appendMany would', async () => {
  await withDir(async (dir) => {
    const log = EventLog.open({ path: join(dir, 'scroll.db') });
    const bulk = log.beginBulk({ worker: true });
    const odd = history(3);
    (odd[1] as { meta: Record<string, unknown> }).meta = { i: 1, callback: () => 1 };
    const seqs = (await Promise.all([bulk.submit(history(3)), bulk.submit(odd)])).flat();
    await bulk.commit();
    assert.deepEqual(seqs, [1, 2, 3, 4, 5, 6]);
    assert.deepEqual(log.get(5)!.meta, { i: 1, redaction: REDACTION_RULESET_VERSION }); // dropped by JSON, as in appendMany
    log.close();
  });
});
