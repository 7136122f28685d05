// A full disk: appends fail with ENOSPC, no committed event is lost, one gc frees the orphan payload
// files that filled it, and the next append works. Simulated by fault injection in the payload
// store's writes (a quota), and, where the test runs as root, on a real 2 MB tmpfs with the CLI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PayloadError } from '../../../src/core/errors';
import { EventLog } from '../../../src/core/log/eventLog';
import { collectGarbage } from '../../../src/core/log/payloadGc';
import { setPayloadWriteForTests } from '../../../src/core/log/payloadStore';

const CLI = join(__dirname, '..', '..', '..', 'src', 'cli', 'main.js');
const HOUR = 3_600_000;

function usage(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    n += e.isDirectory() ? usage(p) : statSync(p).size;
  }
  return n;
}

function agedAll(dir: string, ms: number): void {
  const t = new Date(Date.now() - ms);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) agedAll(p, ms);
    else utimesSync(p, t, t);
  }
}

const payload = (tag: string, n = 20_000) => `${tag} `.padEnd(n, `${tag}.`);

test('fault injection: ENOSPC from the payload store, nothing committed lost; gc frees the orphans; the next append works', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-enospc-'));
  const log = EventLog.open({ workspace: dir, payloadThreshold: 1000 });
  const payloadDir = log.payloads.dir;
  const QUOTA = 300_000; // the "disk" the payload folder may fill
  let refused = 0;
  setPayloadWriteForTests((fd, data, offset, length) => {
    if (usage(payloadDir) + length > QUOTA) {
      refused++;
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', errno: -28, syscall: 'write' });
    }
    return writeSync(fd, data, offset, length);
  });
  try {
    const committed = log.appendMany(Array.from({ length: 5 }, (_, i) => ({ kind: 'tool_result', role: 'tool', content: payload(`committed-${i}`) })));
    committed.push(log.append({ kind: 'note', role: 'system', content: 'small' }));

    // Ingests that fail or are killed leave their payload files: the disk fills with orphans.
    let failure: unknown;
    for (let round = 0; failure === undefined && round < 100; round++) {
      const bulk = log.beginBulk({ worker: false });
      try {
        bulk.append(Array.from({ length: 3 }, (_, i) => ({ kind: 'tool_result', role: 'tool', content: payload(`round-${round}-${i}`) })));
      } catch (e) {
        failure = e;
      }
      bulk.rollback(); // (a kill leaves the same)
    }
    assert.ok(failure instanceof PayloadError, `the disk filled: ${String(failure)}`);
    assert.match((failure as Error).message, /ENOSPC/);
    assert.match((failure as Error).message, /scroll gc/, 'the error says what frees the space');

    // The disk is full: the next append fails too, and nothing committed is lost or changed.
    assert.throws(() => log.append({ kind: 'tool_result', role: 'tool', content: payload('after the disk filled') }), /ENOSPC/);
    assert.equal(log.maxSeq(), committed.length, 'no partial event, no hole');
    for (const e of committed) assert.equal(log.get(e.seq)!.content, e.content);
    const v = log.verify();
    assert.equal(v.ok, true);
    assert.ok(v.hygiene && v.hygiene.orphans.files > 0, 'check reports the orphans that fill the disk');

    // One gc (the orphans of those earlier failures are older than the grace period by now).
    agedAll(payloadDir, 2 * HOUR);
    const gc = await collectGarbage(log);
    assert.equal(gc.freed.payloads, v.hygiene!.orphans.files);
    assert.equal(gc.freed.bytes, v.hygiene!.orphans.bytes);
    assert.equal(gc.kept.referenced, 5);

    const after = log.append({ kind: 'tool_result', role: 'tool', content: payload('after gc') });
    assert.equal(after.seq, committed.length + 1);
    assert.equal(log.get(after.seq)!.content, payload('after gc'));
    for (const e of committed) assert.equal(log.get(e.seq)!.content, e.content);
    const clean = log.verify();
    assert.equal(clean.ok, true);
    assert.equal(clean.hygiene, undefined, 'no orphans left');
    assert.ok(refused > 0);
  } finally {
    setPayloadWriteForTests(undefined);
    log.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a real full disk (2 MB tmpfs, as root): scroll ingest fails with ENOSPC, scroll gc --grace 0 frees the orphans, the next ingest works', (t) => {
  if (process.getuid?.() !== 0) {
    t.skip('mounting a tmpfs needs root');
    return;
  }
  const base = mkdtempSync(join(tmpdir(), 'scroll-tmpfs-'));
  const mnt = join(base, 'disk');
  mkdirSync(mnt);
  const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', mnt], { encoding: 'utf8' });
  if (mount.status !== 0) {
    rmSync(base, { recursive: true, force: true });
    t.skip(`cannot mount a tmpfs here: ${mount.stderr.trim()}`);
    return;
  }
  const scroll = (...args: string[]) => spawnSync(process.execPath, [CLI, ...args, '--db', join(mnt, 'scroll.db')], { cwd: base, encoding: 'utf8' });
  const jsonl = (name: string, rows: object[]) => {
    const p = join(base, name);
    writeFileSync(p, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    return p;
  };
  try {
    const committed = Array.from({ length: 5 }, (_, i) => ({ kind: 'tool_result', role: 'tool', session: 's', content: payload(`committed-${i}`, 50_000) }));
    const first = scroll('ingest', jsonl('committed.jsonl', committed));
    assert.equal(first.status, 0, first.stderr);

    // Ingests bigger than the disk: each fails; their payload files stay behind and fill it.
    let failed = 0;
    for (let round = 0; round < 3; round++) {
      const r = scroll('ingest', jsonl(`big-${round}.jsonl`, Array.from({ length: 40 }, (_, i) => ({ kind: 'tool_result', role: 'tool', session: 's', content: payload(`big-${round}-${i}`, 50_000) }))));
      assert.notEqual(r.status, 0, 'a 2 MB ingest does not fit on a 2 MB disk');
      assert.match(r.stderr, /ENOSPC|disk is full|database or disk is full/i);
      failed++;
    }
    const one = jsonl('one.jsonl', [{ kind: 'tool_result', role: 'tool', session: 's', content: payload('after the disk filled', 50_000) }]);
    const full = scroll('ingest', one);
    assert.notEqual(full.status, 0, `the disk is full: the next ingest fails too (${full.stdout})`);
    assert.match(full.stderr, /ENOSPC|disk is full/i);

    // Nothing committed was lost; check reports the orphans as a warning.
    const check = scroll('check', '--json');
    assert.equal(check.status, 0, check.stderr);
    const report = JSON.parse(check.stdout);
    assert.equal(report.ok, true);
    assert.ok(report.hygiene.orphans.files > 0);
    const shown = scroll('show', '1..5', '--json');
    assert.equal(shown.status, 0, shown.stderr);
    const events = shown.stdout.trim().split('\n').map((l) => JSON.parse(l)).flat();
    assert.deepEqual(events.map((e: { content: string }) => e.content), committed.map((e) => e.content));

    // Right after the failures the orphans are young: the default grace keeps them; --grace 0 (no
    // other writer is running) frees them.
    const kept = JSON.parse(scroll('gc', '--json').stdout);
    assert.equal(kept.freed.payloads, 0);
    const gc = scroll('gc', '--grace', '0', '--json');
    assert.equal(gc.status, 0, gc.stderr);
    const freed = JSON.parse(gc.stdout);
    assert.equal(freed.freed.payloads, report.hygiene.orphans.files);
    assert.ok(freed.freed.bytes >= 1_000_000, `freed ${freed.freed.bytes} bytes`);

    const again = scroll('ingest', one);
    assert.equal(again.status, 0, again.stderr);
    assert.deepEqual(JSON.parse(again.stdout), { appended: 1, first_seq: 6, last_seq: 6 });
    const clean = JSON.parse(scroll('check', '--json').stdout);
    assert.equal(clean.ok, true);
    assert.equal(clean.hygiene, undefined);
    assert.equal(failed, 3);
  } finally {
    spawnSync('umount', ['-l', mnt]); // lazy: a log a failed test left open would keep it busy
    rmSync(base, { recursive: true, force: true });
  }
});
