import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PayloadError } from '../../../src/core/errors';
import { EventLog } from '../../../src/core/log/eventLog';
import { PayloadStore, sha256Hex } from '../../../src/core/log/payloadStore';

function withDir(fn: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-payload-'));
  try {
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('put/read round trip: content-addressed path, idempotent, no temp files left', () => {
  withDir((dir) => {
    const store = new PayloadStore(join(dir, 'payloads'));
    const text = 'payload ✓ ' + 'x'.repeat(10_000);
    const { handle, bytes } = store.put(text);
    assert.equal(handle, sha256Hex(Buffer.from(text, 'utf8')));
    assert.equal(bytes, Buffer.byteLength(text));
    assert.equal(store.pathFor(handle), join(dir, 'payloads', handle.slice(0, 2), handle));
    assert.equal(store.read(handle), text);
    assert.deepEqual(store.put(text), { handle, bytes });
    assert.deepEqual(readdirSync(join(dir, 'payloads', handle.slice(0, 2))), [handle]);
    assert.deepEqual(store.stats(), { count: 1, bytes });
    assert.equal(store.has(handle), true);
  });
});

test('a damaged payload is a clear PayloadError, and put repairs it', () => {
  withDir((dir) => {
    const store = new PayloadStore(dir);
    const { handle } = store.put('original content');
    appendFileSync(store.pathFor(handle), 'tampered');
    assert.throws(() => store.read(handle), (e: unknown) => e instanceof PayloadError && /payload [0-9a-f]{64} is damaged/.test(e.message) && e.handle === handle);
    store.put('original content');
    assert.equal(store.read(handle), 'original content');
  });
});

test('a missing payload is a clear PayloadError naming the expected path', () => {
  withDir((dir) => {
    const store = new PayloadStore(dir);
    const { handle } = store.put('will vanish');
    unlinkSync(store.pathFor(handle));
    assert.throws(() => store.read(handle), (e: unknown) => e instanceof PayloadError && e.message.includes('is missing') && e.message.includes(store.pathFor(handle)));
    assert.throws(() => store.read('../../etc/passwd'), /not a payload handle/);
  });
});

test('EventLog reading an event whose payload is damaged or missing: clear error, other events unaffected', () => {
  withDir((ws) => {
    const log = EventLog.open({ workspace: ws, payloadThreshold: 100 });
    const big = log.append({ kind: 'tool_result', role: 'tool', content: 'y'.repeat(500) });
    const big2 = log.append({ kind: 'tool_result', role: 'tool', content: 'z'.repeat(500) });
    const small = log.append({ kind: 'note', role: 'system', content: 'fine' });
    writeFileSync(log.payloads.pathFor(big.payload!), 'garbage');
    unlinkSync(log.payloads.pathFor(big2.payload!));
    assert.throws(() => log.get(big.seq), (e: unknown) => e instanceof PayloadError && /damaged/.test(e.message));
    assert.throws(() => log.get(big2.seq), (e: unknown) => e instanceof PayloadError && /missing/.test(e.message));
    assert.equal(log.get(small.seq)!.content, 'fine');
    // A rebuild still succeeds (indexing the preview) and says which events lost their payload.
    const warnings: string[] = [];
    const log2 = EventLog.open({ workspace: ws, onWarning: (m) => warnings.push(m) });
    log2.rebuildIndex();
    assert.equal(warnings.length, 2);
    assert.match(warnings[0], new RegExp(`event ${big.seq} indexed from its preview only`));
    log2.close();
    log.close();
    assert.ok(existsSync(log.path));
  });
});

test('a payload folder removed while the store is open is made again on the next put', () => {
  withDir((dir) => {
    const store = new PayloadStore(join(dir, 'payloads'));
    const first = store.put('first payload');
    rmSync(join(dir, 'payloads'), { recursive: true, force: true });
    const again = store.put('first payload');
    assert.equal(again.handle, first.handle);
    assert.equal(store.read(first.handle), 'first payload');
  });
});

test('syncSoon: a flush started early is awaited by syncPending; dropPending forgets it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-sync-'));
  try {
    const store = new PayloadStore(dir);
    const a = store.put('x'.repeat(10_000), { deferSync: true }).handle;
    const b = store.put('y'.repeat(10_000), { deferSync: true }).handle;
    store.syncSoon(a);
    store.syncSoon(a); // once is enough
    await store.syncPending(); // b was never started early: synced here
    assert.equal(store.read(a), 'x'.repeat(10_000));
    assert.equal(store.read(b), 'y'.repeat(10_000));
    // A file removed before its flush: the failure surfaces at syncPending, not as a crash.
    const c = store.put('z'.repeat(10_000), { deferSync: true }).handle;
    rmSync(store.pathFor(c));
    store.syncSoon(c);
    await assert.rejects(store.syncPending(), (e: unknown) => e instanceof PayloadError && e.handle === c && /cannot flush payload [0-9a-f]{64} to disk .*ENOENT/.test(e.message));
    store.dropPending();
    await store.syncPending();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('syncPendingInOrder: flushes deferred files one after another, after earlier calls; a failure fails this and every later call', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-sync-in-order-'));
  const flushed = watchAsyncFlushes();
  try {
    const store = new PayloadStore(dir);
    const a = store.put('x'.repeat(10_000), { deferSync: true }).handle;
    const b = store.put('y'.repeat(10_000), { deferSync: true }).handle;
    const first = store.syncPendingInOrder();
    const c = store.put('z'.repeat(10_000), { deferSync: true }).handle;
    await store.syncPendingInOrder(); // resolves after the first call's files too
    assert.deepEqual(flushed.paths, [a, b, c].map((h) => store.pathFor(h)));
    await first;
    await store.syncPendingInOrder(); // nothing new: nothing flushed again
    assert.equal(flushed.paths.length, 3);

    const d = store.put('w'.repeat(10_000), { deferSync: true }).handle;
    rmSync(store.pathFor(d));
    const isFlushError = (e: unknown) => e instanceof PayloadError && e.handle === d && /cannot flush payload [0-9a-f]{64} to disk/.test(e.message);
    await assert.rejects(store.syncPendingInOrder(), isFlushError);
    store.put('v'.repeat(10_000), { deferSync: true });
    await assert.rejects(store.syncPendingInOrder(), isFlushError);
    assert.equal(store.read(a), 'x'.repeat(10_000));
  } finally {
    flushed.restore();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Records the files PayloadStore opens to flush on the thread pool (it calls fs.promises.open through the module object). */
function watchAsyncFlushes(): { paths: string[]; restore: () => void } {
  const fsp = (require('node:fs') as typeof import('node:fs')).promises;
  const realOpen = fsp.open;
  const paths: string[] = [];
  fsp.open = ((p: string, ...rest: unknown[]) => {
    paths.push(String(p));
    return (realOpen as (...a: unknown[]) => ReturnType<typeof realOpen>)(p, ...rest);
  }) as typeof fsp.open;
  return { paths, restore: () => { fsp.open = realOpen; } };
}

test('a payload already on disk (e.g. left unflushed by a rolled-back bulk append) is flushed again when an event points at it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-dedupe-sync-'));
  // Watch fsync in this process: PayloadStore calls fs.fsyncSync through the module object.
  const nodeFs = require('node:fs') as typeof import('node:fs');
  const realOpen = nodeFs.openSync;
  const realFsync = nodeFs.fsyncSync;
  const pathOf = new Map<number, string>();
  const fsynced: string[] = [];
  nodeFs.openSync = ((p: string, ...rest: unknown[]) => {
    const fd = (realOpen as (...a: unknown[]) => number)(p, ...rest);
    pathOf.set(fd, String(p));
    return fd;
  }) as typeof nodeFs.openSync;
  nodeFs.fsyncSync = (fd: number) => {
    fsynced.push(pathOf.get(fd) ?? `fd ${fd}`);
    realFsync(fd);
  };
  try {
    const store = new PayloadStore(dir);
    const content = 'orphan '.repeat(2000);
    const { handle } = store.put(content, { deferSync: true });
    store.dropPending(); // the bulk append rolled back: its file stays, never flushed
    assert.deepEqual(fsynced, []);
    // A later plain append of the same content: the existing file is flushed before put returns.
    assert.equal(store.put(content).handle, handle);
    assert.deepEqual(fsynced, [store.pathFor(handle)]);
    // A later bulk append of it: the file joins the files its commit flushes.
    fsynced.length = 0;
    store.put(content, { deferSync: true });
    assert.deepEqual(fsynced, []);
    const flushed = watchAsyncFlushes();
    try {
      await store.syncPendingInOrder();
    } finally {
      flushed.restore();
    }
    assert.deepEqual(flushed.paths, [store.pathFor(handle)]);
  } finally {
    nodeFs.openSync = realOpen;
    nodeFs.fsyncSync = realFsync;
    rmSync(dir, { recursive: true, force: true });
  }
});
