// Payload hygiene: `scroll check` reports orphan payload files and stray temp files; `scroll gc` and
// collectGarbage() remove them once older than the grace period, never a file an event references
// (in this log or a moved-aside damaged one), never one a writer claimed meanwhile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, mkdtempSync, openSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../../src/core/db';
import { EventLog } from '../../../src/core/log/eventLog';

const CLI = join(__dirname, '..', '..', '..', 'src', 'cli', 'main.js');
const HOUR = 3_600_000;

function scroll(cwd: string, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function withDir(fn: (dir: string) => Promise<void> | void): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scroll-gc-'));
    try {
      await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

const big = (tag: string) => `${tag} `.repeat(400); // over the 100-byte threshold below: a payload file each

/** Every file under the payload folder: shard/name → full path. */
function files(payloadDir: string): Map<string, string> {
  const out = new Map<string, string>();
  if (!existsSync(payloadDir)) return out;
  for (const shard of readdirSync(payloadDir)) for (const f of readdirSync(join(payloadDir, shard))) out.set(`${shard}/${f}`, join(payloadDir, shard, f));
  return out;
}

function age(paths: Iterable<string>, ms: number): void {
  const t = new Date(Date.now() - ms);
  for (const p of paths) utimesSync(p, t, t);
}

/**
 * A log at <dir>/.scroll/scroll.db with `kept` committed events holding payloads, `orphans` payload
 * files of a rolled-back bulk append (what a failed or killed ingest leaves) and one stray temp file
 * (what a kill mid-write leaves). Returns the handles.
 */
function seed(dir: string, kept = 3, orphans = 4): { log: EventLog; referenced: string[]; orphaned: string[]; temp: string } {
  const log = EventLog.open({ workspace: dir, payloadThreshold: 100 });
  const referenced = log.appendMany(Array.from({ length: kept }, (_, i) => ({ kind: 'tool_result', role: 'tool', content: big(`kept-${i}`) }))).map((e) => e.payload!);
  log.append({ kind: 'note', role: 'system', content: 'small, no payload' });
  const bulk = log.beginBulk({ worker: false });
  const orphaned = bulk.append(Array.from({ length: orphans }, (_, i) => ({ kind: 'tool_result', role: 'tool', content: big(`orphan-${i}`) }))).map((e) => e.payload!);
  bulk.rollback();
  const shard = join(log.payloads.dir, orphaned[0].slice(0, 2));
  const temp = join(shard, `.tmp-${orphaned[0].slice(0, 16)}-4242-deadbeef`);
  writeFileSync(temp, 'half a payload');
  return { log, referenced, orphaned, temp };
}

test(
  'scroll check reports orphan payload files and stray temp files, as a warning (exit 0)',
  withDir((dir) => {
    const { log, orphaned } = seed(dir);
    log.close();
    const r = scroll(dir, ['check', '--json']);
    assert.equal(r.code, 0, `orphans alone are not damage: ${r.stderr}`);
    const report = JSON.parse(r.stdout);
    assert.equal(report.ok, true);
    assert.ok(report.hygiene, 'the check reports payload hygiene');
    const orphanBytes = orphaned.reduce((n, h) => n + statSync(join(dir, '.scroll', 'payloads', h.slice(0, 2), h)).size, 0);
    assert.deepEqual(report.hygiene.orphans, { files: 4, bytes: orphanBytes, young: 4 });
    assert.deepEqual(report.hygiene.temps, { files: 1, bytes: 'half a payload'.length, young: 1 });
    assert.equal(report.hygiene.referenced, 3);
    const text = scroll(dir, ['check']);
    assert.equal(text.code, 0);
    assert.match(text.stdout, /orphans\s+4 payload file\(s\), [\d.]+ kB, no event references, 4 of them written in the last hour/);
    assert.match(text.stdout, /temp files 1 stray temp file\(s\)/);
    assert.match(text.stdout, /scroll gc/);
  }),
);

test(
  'scroll check on a clean log says nothing about orphans (and its JSON has no hygiene key)',
  withDir((dir) => {
    const log = EventLog.open({ workspace: dir, payloadThreshold: 100 });
    log.append({ kind: 'tool_result', role: 'tool', content: big('only') });
    log.close();
    const r = scroll(dir, ['check', '--json']);
    assert.equal(r.code, 0);
    assert.equal(JSON.parse(r.stdout).hygiene, undefined);
    assert.doesNotMatch(scroll(dir, ['check']).stdout, /orphan/);
  }),
);

test(
  'scroll gc keeps unreferenced files inside the grace period and removes them after it; referenced files stay',
  withDir((dir) => {
    const { log, referenced, orphaned, temp } = seed(dir);
    log.close();
    const payloadDir = join(dir, '.scroll', 'payloads');
    const before = files(payloadDir);
    assert.equal(before.size, 3 + 4 + 1);

    // Fresh: a concurrent writer's files in flight look exactly like this. Nothing is removed.
    const fresh = scroll(dir, ['gc', '--json']);
    assert.equal(fresh.code, 0, fresh.stderr);
    const r0 = JSON.parse(fresh.stdout);
    assert.deepEqual(r0.freed, { payloads: 0, temps: 0, bytes: 0 });
    assert.equal(r0.kept.young.files, 5);
    assert.equal(files(payloadDir).size, 8);
    assert.match(scroll(dir, ['gc']).stdout, /freed\s+0 payload file\(s\) and 0 temp file\(s\)[\s\S]*younger than the grace period \(1h\)[\s\S]*--grace 0/);

    // Two hours later (the files' clocks moved back): past the default grace of one hour.
    age(before.values(), 2 * HOUR);
    // --dry-run only says so.
    const dry = JSON.parse(scroll(dir, ['gc', '--dry-run', '--json']).stdout);
    assert.equal(dry.freed.payloads, 4);
    assert.equal(files(payloadDir).size, 8);
    // A longer grace keeps them still.
    assert.equal(JSON.parse(scroll(dir, ['gc', '--grace', '3h', '--json']).stdout).freed.payloads, 0);

    const orphanBytes = orphaned.reduce((n, h) => n + statSync(join(payloadDir, h.slice(0, 2), h)).size, 0);
    const r = scroll(dir, ['gc']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`^freed\\s+4 payload file\\(s\\) and 1 temp file\\(s\\), `));
    const left = files(payloadDir);
    assert.deepEqual([...left.keys()].map((k) => k.split('/')[1]).sort(), [...referenced].sort());
    assert.equal(existsSync(temp), false);
    assert.ok(orphanBytes > 0);

    // Nothing committed was touched: the check is clean and reports no orphans.
    const check = JSON.parse(scroll(dir, ['check', '--json']).stdout);
    assert.equal(check.ok, true);
    assert.equal(check.hygiene, undefined);
    const reread = EventLog.open({ workspace: dir, readonly: true });
    for (let seq = 1; seq <= 3; seq++) assert.equal(reread.get(seq)!.content, big(`kept-${seq - 1}`));
    reread.close();
  }),
);

test(
  'a payload referenced only by a moved-aside damaged log (<db>.corrupt-*) is kept; a true orphan beside it is removed',
  withDir((dir) => {
    // An old log whose events reference payload A; moved aside as recovery does (readable: only its
    // index was damaged, say), and a fresh log started in its place.
    const old = EventLog.open({ workspace: dir, payloadThreshold: 100 });
    const a = old.append({ kind: 'tool_result', role: 'tool', content: big('only in the damaged log') }).payload!;
    old.close();
    const db = join(dir, '.scroll', 'scroll.db');
    renameSync(db, `${db}.corrupt-2026-01-02T03-04-05-006Z`);
    for (const s of ['-wal', '-shm']) if (existsSync(db + s)) renameSync(db + s, `${db}.corrupt-2026-01-02T03-04-05-006Z${s}`);
    const fresh = EventLog.open({ workspace: dir, payloadThreshold: 100 });
    const b = fresh.append({ kind: 'tool_result', role: 'tool', content: big('in the new log') }).payload!;
    const orphan = fresh.payloads.put(big('nobody')).handle;
    fresh.close();
    age(files(join(dir, '.scroll', 'payloads')).values(), 2 * HOUR);

    const check = JSON.parse(scroll(dir, ['check', '--json']).stdout);
    assert.equal(check.hygiene.orphans.files, 1, 'A is not an orphan: the moved-aside log references it');
    assert.equal(check.hygiene.movedAside.length, 1);
    assert.equal(check.hygiene.movedAside[0].read, 'all');

    const r = JSON.parse(scroll(dir, ['gc', '--json']).stdout);
    assert.equal(r.freed.payloads, 1);
    assert.equal(r.kept.referenced, 2);
    assert.deepEqual(r.movedAside.map((m: { read: string; payloads: number }) => [m.read, m.payloads]), [['all', 1]]);
    const left = [...files(join(dir, '.scroll', 'payloads')).keys()].map((k) => k.split('/')[1]).sort();
    assert.deepEqual(left, [a, b].sort());
    assert.ok(!left.includes(orphan));
  }),
);

test(
  'a moved-aside log that cannot be read (in full or at all) keeps every unreferenced file written before its last write',
  withDir((dir) => {
    const old = EventLog.open({ workspace: dir, payloadThreshold: 100 });
    const inOld = old.appendMany(Array.from({ length: 3000 }, (_, i) => ({ kind: 'tool_result', role: 'tool', content: i % 1000 === 0 ? big(`old ${i}`) : `small ${i} ${'filler '.repeat(9)}` })));
    old.close();
    const oldPayloads = inOld.filter((e) => e.payload).map((e) => e.payload!);
    assert.equal(oldPayloads.length, 3);
    const db = join(dir, '.scroll', 'scroll.db');
    const partly = `${db}.corrupt-2026-01-02T03-04-05-006Z`;
    const unreadable = `${db}.corrupt-2026-01-03T03-04-05-006Z`;
    // One copy with a page of events in the middle overwritten (the rows before and after it still
    // read), one of garbage only (nothing reads).
    const raw = openDatabase(db, { readonly: true });
    const pageSize = Number((raw.prepare('PRAGMA page_size').get() as { page_size: number }).page_size);
    const leaves = (raw.prepare("SELECT pageno FROM dbstat WHERE name = 'events' AND pagetype = 'leaf' ORDER BY pageno").all() as { pageno: number }[]).map((r) => Number(r.pageno));
    raw.close();
    assert.ok(leaves.length > 10);
    copyFileSync(db, partly);
    const fd = openSync(partly, 'r+');
    writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, (leaves[Math.floor(leaves.length / 2)] - 1) * pageSize);
    closeSync(fd);
    writeFileSync(unreadable, Buffer.alloc(8192, 0x5a));
    rmSync(db);
    for (const s of ['-wal', '-shm']) rmSync(db + s, { force: true });

    const payloadDir = join(dir, '.scroll', 'payloads');
    const log = EventLog.open({ workspace: dir, payloadThreshold: 100 });
    const newer = log.payloads.put(big('orphan written after the damaged logs')).handle;
    log.close();
    // The old payloads were written 4 h ago, the damaged logs last written 3 h ago, the new orphan 2 h ago.
    age(oldPayloads.map((h) => join(payloadDir, h.slice(0, 2), h)), 4 * HOUR);
    age([partly, unreadable], 3 * HOUR);
    age([join(payloadDir, newer.slice(0, 2), newer)], 2 * HOUR);

    const check = JSON.parse(scroll(dir, ['check', '--json']).stdout);
    assert.deepEqual(check.hygiene.movedAside.map((m: { read: string }) => m.read), ['part', 'none']);
    assert.equal(check.hygiene.keptForMovedAsideLogs.files, 3 - check.hygiene.movedAside[0].payloads);

    const r = JSON.parse(scroll(dir, ['gc', '--json']).stdout);
    assert.equal(r.freed.payloads, 1, 'only the orphan newer than every damaged log');
    assert.equal(r.kept.forMovedAsideLogs.files + r.kept.referenced, 3);
    for (const h of oldPayloads) assert.ok(existsSync(join(payloadDir, h.slice(0, 2), h)), `kept ${h}`);
    assert.equal(existsSync(join(payloadDir, newer.slice(0, 2), newer)), false);
    assert.match(scroll(dir, ['gc']).stdout, /unreadable/);
    assert.equal(existsSync(`${partly}-wal`) || existsSync(`${unreadable}-shm`), false, 'the damaged logs are left as they were found');
  }),
);

test(
  'a gc killed between taking a file aside and removing it: the next gc puts a referenced file back',
  withDir((dir) => {
    const log = EventLog.open({ workspace: dir, payloadThreshold: 100 });
    const e = log.append({ kind: 'tool_result', role: 'tool', content: big('referenced') });
    const path = log.payloads.pathFor(e.payload!);
    log.close();
    // What a killed gc (its pid gone) leaves: the file under its .gc- name.
    renameSync(path, join(path, '..', `.gc-${e.payload}-2147480000-0badf00d`));
    const damaged = scroll(dir, ['check', '--json']);
    assert.equal(damaged.code, 1);
    assert.deepEqual(JSON.parse(damaged.stdout).payloads.missing, [e.seq]);
    assert.equal(JSON.parse(damaged.stdout).hygiene.temps.files, 1);
    const r = scroll(dir, ['gc', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).restored, 1);
    const healthy = JSON.parse(scroll(dir, ['check', '--json']).stdout);
    assert.equal(healthy.ok, true);
    assert.equal(healthy.hygiene, undefined);
  }),
);

test('scroll gc: bad --grace is a usage error; a missing log is a clear error', () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-gc-'));
  try {
    const bad = scroll(dir, ['gc', '--grace', 'soon']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--grace expects a duration/);
    const none = scroll(dir, ['gc']);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /no event log/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
