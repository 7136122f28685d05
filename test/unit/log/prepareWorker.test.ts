// The ingest worker flushes the payload files of each batch it prepares, after handing the batch
// to the writer; flush() confirms they are on disk, or reports the file it could not flush. The
// worker here is the real one, loaded through a test-only wrapper that watches or refuses fsync.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PREPARE_WORKER_FILE, PrepareWorkerClient } from '../../../src/core/log/prepareWorkerClient';
import { PayloadStore } from '../../../src/core/log/payloadStore';

const REAL_WORKER = join(__dirname, '..', '..', '..', 'src', 'core', 'log', PREPARE_WORKER_FILE);

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
