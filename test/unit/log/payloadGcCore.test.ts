// collectGarbage(), the function behind `scroll gc` and the editor's "Remove Unreferenced Payload
// Files": bytes freed, progress, the grace period, and a writer reusing a file while gc runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../src/core/log/eventLog';
import { collectGarbage } from '../../../src/core/log/payloadGc';
import { sha256Hex } from '../../../src/core/log/payloadStore';

const HOUR = 3_600_000;
const big = (tag: string) => `${tag} `.repeat(400);

/**
 * A fresh folder; as root, a `noatime` tmpfs: there reading a file never updates its access time,
 * so only a writer's explicit claim marks a reused file in use (with relatime, the first read does).
 */
function withDir(fn: (dir: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const base = mkdtempSync(join(tmpdir(), 'scroll-gc-core-'));
    const point = join(base, 'noatime');
    mkdirSync(point);
    const mounted = process.getuid?.() === 0 && spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64m,noatime', 'tmpfs', point]).status === 0;
    try {
      await fn(point);
    } finally {
      if (mounted) spawnSync('umount', ['-l', point]); // lazy: a log a failed test left open would keep it busy
      rmSync(base, { recursive: true, force: true });
    }
  };
}

function age(paths: Iterable<string>, ms: number): void {
  const t = new Date(Date.now() - ms);
  for (const p of paths) utimesSync(p, t, t);
}

function seed(dir: string, kept: number, orphans: number): { log: EventLog; orphaned: string[]; temp: string } {
  const log = EventLog.open({ workspace: dir, payloadThreshold: 100 });
  log.appendMany(Array.from({ length: kept }, (_, i) => ({ kind: 'tool_result', role: 'tool', content: big(`kept-${i}`) })));
  const bulk = log.beginBulk({ worker: false });
  const orphaned = bulk.append(Array.from({ length: orphans }, (_, i) => ({ kind: 'tool_result', role: 'tool', content: big(`orphan-${i}`) }))).map((e) => e.payload!);
  bulk.rollback();
  const temp = join(log.payloads.dir, orphaned[0].slice(0, 2), `.tmp-${orphaned[0].slice(0, 16)}-4242-deadbeef`);
  writeFileSync(temp, 'half a payload');
  return { log, orphaned, temp };
}

test(
  'collectGarbage reports what it freed in bytes, honours graceMs and leaves referenced files',
  withDir(async (dir) => {
    const { log, orphaned, temp } = seed(dir, 2, 3);
    const sizes = [...orphaned.map((h) => log.payloads.pathFor(h)), temp].reduce((n, p) => n + statSync(p).size, 0);
    const none = await collectGarbage(log);
    assert.deepEqual(none.freed, { payloads: 0, temps: 0, bytes: 0 });
    assert.equal(none.kept.referenced, 2);
    const progress: string[] = [];
    const r = await collectGarbage(log, { graceMs: 0, now: Date.now() + 1000, onProgress: (p) => progress.push(p.phase) });
    assert.deepEqual(r.freed, { payloads: 3, temps: 1, bytes: sizes });
    assert.ok(progress.includes('references') && progress.includes('files'));
    assert.equal(log.verify().ok, true);
    assert.equal(log.verify().hygiene, undefined);
    log.close();
  }),
);

test(
  'a file a writer reuses while gc runs is put back (claim re-checked after the rename), and the writer commits it',
  withDir(async (dir) => {
    const log = EventLog.open({ workspace: dir, payloadThreshold: 100 });
    // Two orphans in different shards: X in the first shard gc walks, Y in a later one.
    const contents: string[] = [];
    for (let i = 0; contents.length < 2; i++) {
      const c = big(`reuse-${i}`);
      const shard = sha256Hex(Buffer.from(c)).slice(0, 2);
      if (contents.length === 0 || sha256Hex(Buffer.from(contents[0])).slice(0, 2) < shard) contents.push(c);
    }
    const [x, y] = contents.map((c) => log.payloads.put(c).handle);
    age([log.payloads.pathFor(x), log.payloads.pathFor(y)], 2 * HOUR);
    let reused: number | undefined;
    const r = await collectGarbage(log, {
      onProgress: (p) => {
        // X's shard has been scanned (found removable); before the removals start, a writer appends
        // an event with X's content: put() finds the file and claims it.
        if (p.phase === 'files' && p.done === 1 && reused === undefined) reused = log.append({ kind: 'tool_result', role: 'tool', content: contents[0] }).seq;
      },
    });
    assert.ok(reused, 'the writer ran during the walk');
    assert.equal(r.freed.payloads, 1, 'Y removed');
    assert.equal(existsSync(log.payloads.pathFor(x)), true, 'X stays: claimed');
    assert.equal(existsSync(log.payloads.pathFor(y)), false);
    assert.equal(log.get(reused!)!.content, contents[0]);
    assert.equal(log.verify().ok, true);
    log.close();
  }),
);


test(
  'claim() and put() reusing a file mark it in use (access time now) and keep its modification time',
  withDir(async (dir) => {
    const log = EventLog.open({ workspace: dir, payloadThreshold: 100 });
    const { handle } = log.payloads.put(big('reused'));
    const path = log.payloads.pathFor(handle);
    const written = new Date(Date.now() - 3 * HOUR);
    utimesSync(path, new Date(Date.now() - 2 * HOUR), written);
    const e = log.append({ kind: 'tool_result', role: 'tool', content: big('reused') });
    assert.equal(e.payload, handle);
    const st = statSync(path);
    assert.ok(Date.now() - st.atimeMs < 60_000, 'marked in use by the reuse');
    assert.equal(Math.floor(st.mtimeMs / 1000), Math.floor(written.getTime() / 1000), 'when the bytes were written is kept');
    utimesSync(path, new Date(Date.now() - 2 * HOUR), written);
    assert.equal(log.payloads.claim(handle), true);
    assert.ok(Date.now() - statSync(path).atimeMs < 60_000);
    assert.equal(log.payloads.claim('0'.repeat(64)), false, 'no such file');
    log.close();
  }),
);
