// The ingest worker flushes the payload files of each batch it prepares, after handing the batch
// to the writer; flush() confirms they are on disk, or reports the file it could not flush. The
// worker here is the real one, loaded through a test-only wrapper that watches or refuses fsync.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PREPARE_WORKER_FILE, PrepareWorkerClient } from '../../../../src/core/log/ingest/prepareWorkerClient';
import { PayloadStore } from '../../../../src/core/log/payloadStore';
import { EventPreparer } from '../../../../src/core/log/eventPreparer';
import { Redactor } from '../../../../src/core/log/redaction';

const REAL_WORKER = join(__dirname, '..', '..', '..', '..', 'src', 'core', 'log', 'ingest', PREPARE_WORKER_FILE);

/**
 * Writes a wrapper worker into dir: records each fsynced path in `log`, or fails every fsync. The
 * worker flushes on the thread pool (fs.promises: FileHandle.sync); fsyncSync is watched as well,
 * so the test does not depend on which of the two it uses.
 */
function fakeFsyncWorker(dir: string, mode: 'record' | 'fail', log: string): void {
  writeFileSync(
    join(dir, PREPARE_WORKER_FILE),
    `const fs = require('node:fs');
const mode = ${JSON.stringify(mode)};
const refuse = () => { const e = new Error('EIO: i/o error, fsync'); e.code = 'EIO'; return e; };
const record = (p) => fs.appendFileSync(${JSON.stringify(log)}, p + '\\n');
const paths = new Map();
const open = fs.openSync;
const fsync = fs.fsyncSync;
fs.openSync = (p, ...rest) => { const fd = open(p, ...rest); paths.set(fd, String(p)); return fd; };
fs.fsyncSync = (fd) => { if (mode === 'fail') throw refuse(); fsync(fd); record(paths.get(fd)); };
const openAsync = fs.promises.open;
fs.promises.open = async (p, ...rest) => {
  const handle = await openAsync(p, ...rest);
  const sync = handle.sync.bind(handle);
  handle.sync = async () => { if (mode === 'fail') throw refuse(); await sync(); record(String(p)); };
  return handle;
};
require(${JSON.stringify(REAL_WORKER)});
`,
  );
}

const big = (i: number) => ({ kind: 'tool_result', role: 'tool', content: `output ${i}\n` + 'x'.repeat(20_000) });

async function withWorker(mode: 'record' | 'fail', fn: (w: PrepareWorkerClient, store: PayloadStore, log: string) => Promise<void>) {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-prepare-worker-'));
  const log = join(dir, 'fsynced.txt');
  writeFileSync(log, '');
  fakeFsyncWorker(dir, mode, log);
  const store = new PayloadStore(join(dir, 'payloads'));
  const worker = PrepareWorkerClient.start({ redaction: {}, payloadDir: store.dir, payloadThreshold: 8192 }, dir);
  assert.ok(worker, 'the wrapper worker starts');
  try {
    await fn(worker, store, log);
  } finally {
    await worker.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('worker: flush() resolves once every payload file of every batch so far was fsynced', async () => {
  await withWorker('record', async (worker, store, log) => {
    const a = await worker.prepare([big(1), big(2), { kind: 'note', role: 'user', content: 'small' }], 's');
    const b = await worker.prepare([big(3)], 's');
    await worker.flush();
    const fsynced = new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean));
    const handles = [...a.events, ...b.events].map((e) => e.payload).filter((h): h is string => h !== null);
    assert.equal(handles.length, 3);
    for (const h of handles) {
      assert.ok(fsynced.has(store.pathFor(h)), `payload ${h} was fsynced before flush() resolved`);
      assert.match(store.read(h), /^output \d\n/);
    }
    assert.equal(fsynced.size, 3, 'nothing else was fsynced: small content has no payload file');
  });
});

test('worker: a payload file it cannot flush fails flush() with a PayloadError, and every later flush', async () => {
  await withWorker('fail', async (worker) => {
    const batch = await worker.prepare([big(1)], 's'); // the batch itself is fine
    assert.equal(batch.events.length, 1);
    await assert.rejects(worker.flush(), (e: unknown) => e instanceof Error && e.name === 'PayloadError' && /cannot flush payload [0-9a-f]{64} to disk .*EIO/.test(e.message));
    await worker.prepare([big(2)], 's');
    await assert.rejects(worker.flush(), /cannot flush payload/);
  });
});

/** The real worker behind a wrapper that records, for each batch reply, the strings it carried. */
function recordingWorker(dir: string, log: string): void {
  writeFileSync(
    join(dir, PREPARE_WORKER_FILE),
    `const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const post = parentPort.postMessage.bind(parentPort);
parentPort.postMessage = (m) => {
  if (m.batch) fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify({ same: [...m.same], stored: m.batch.events.map((e) => e.stored), body: m.batch.docs.map((d) => d.body) }) + '\\n');
  post(m);
};
require(${JSON.stringify(REAL_WORKER)});
`,
  );
}

const SECRET = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';

test('worker: strings the writer already holds are not sent back, and the batch arrives whole', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-prepare-worker-'));
  const log = join(dir, 'replies.jsonl');
  writeFileSync(log, '');
  recordingWorker(dir, log);
  const ts = '2026-11-30T01:00:00Z';
  const events = [
    { kind: 'user_message', role: 'user', ts, content: 'plain text about getUserById' }, // row and body = content
    { kind: 'tool_result', role: 'tool', ts, content: `token ${SECRET} in the output` }, // redacted: sent once
    { kind: 'model_turn', role: 'assistant', ts, content: 'prose\n```ts\nconst parseHeader = 1;\n```\nmore' }, // body is cut
    { kind: 'tool_result', role: 'tool', ts, content: 'big output\n' + 'line of fetchInvoiceTotal\n'.repeat(500) }, // payload: row holds a preview
    { kind: 'tool_result', role: 'tool', ts, content: `big ${SECRET}\n` + 'y'.repeat(10_000) }, // payload, redacted
    { kind: 'note', role: 'user', ts, content: '', headline: 'an empty note' },
  ];
  const worker = PrepareWorkerClient.start({ redaction: {}, payloadDir: join(dir, 'payloads'), payloadThreshold: 8192 }, dir);
  assert.ok(worker);
  try {
    const batch = await worker.prepare(events, 's');
    const here = new EventPreparer(new Redactor({}), new PayloadStore(join(dir, 'payloads-here')), 8192).prepare(events, 's', true);
    for (let i = 0; i < events.length; i++) {
      const { content: _c, meta: _m, ...row } = here.events[i];
      const { content: _wc, meta: _wm, ...workerRow } = batch.events[i];
      assert.deepEqual(workerRow, row, `event ${i + 1}: the row`);
      assert.deepEqual(batch.docs[i], here.docs[i], `event ${i + 1}: the index document`);
    }
    assert.ok(!JSON.stringify(batch).includes(SECRET));

    const [reply] = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { same: number[]; stored: string[]; body: string[] });
    // The plain event's content came back as neither row nor body; the redacted ones did, once.
    assert.deepEqual([reply.stored[0], reply.body[0]], ['', '']);
    assert.equal(reply.stored[1], here.events[1].stored);
    assert.equal(reply.body[1], '');
    assert.equal(reply.body[2], here.docs[2].body); // cut text: sent
    assert.equal(reply.stored[3], here.events[3].stored); // the preview: sent
    assert.equal(reply.body[3], ''); // the full content: not sent
    assert.equal(reply.body[4], here.docs[4].body); // redacted full content: sent
  } finally {
    await worker.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('worker: events changed after they were handed over are prepared as they were handed over', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-prepare-worker-'));
  const worker = PrepareWorkerClient.start({ redaction: {}, payloadDir: join(dir, 'payloads'), payloadThreshold: 8192 });
  assert.ok(worker, 'the worker beside the client module starts');
  try {
    const events = [
      { kind: 'user_message', role: 'user', content: 'first version' },
      { kind: 'tool_result', role: 'tool', content: 'x'.repeat(9000) },
    ];
    const pending = worker.prepare(events, 's');
    events[0].content = `changed, with ${SECRET}`; // the caller reuses its objects meanwhile
    events[1].content = 'changed too';
    const batch = await pending;
    assert.equal(batch.events[0].stored, 'first version');
    assert.equal(batch.docs[0].body, 'first version');
    assert.equal(batch.docs[1].body, 'x'.repeat(9000));
    assert.equal(batch.events[1].bytes, 9000);
  } finally {
    await worker.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
