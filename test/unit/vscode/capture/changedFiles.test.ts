import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { byRecentChange, ChangedFiles, COLD_AFTER_MS } from '../../../../src/vscode/capture/changedFiles';
import { SETTLED_AFTER_MS } from '../../../../src/core/capture/types';

test('a look hands over only files new or changed since this window imported them; another scope or log starts over', () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-changed-'));
  try {
    const a = join(dir, 'a.jsonl');
    const b = join(dir, 'b.jsonl');
    writeFileSync(a, '{"x":1}\n');
    writeFileSync(b, '{"x":2}\n');
    const c = new ChangedFiles();
    c.setContext('/work/proj\nlog');
    const first = c.changes('codex', [a, b]);
    assert.deepEqual(first.changed, [a, b], 'nothing imported yet: all');
    assert.deepEqual(c.changes('codex', [a, b]).changed, [a, b], 'not recorded before the import succeeded');
    c.imported('codex', first.stamps);
    assert.deepEqual(c.changes('codex', [a, b]).changed, [], 'unchanged since imported');
    assert.deepEqual(c.changes('claude-code', [a]).changed, [a], 'per source');

    appendFileSync(b, '{"x":3}\n');
    const grown = c.changes('codex', [a, b]);
    assert.deepEqual(grown.changed, [b], 'a grown file');
    const later = new Date(Date.now() + 60_000);
    utimesSync(a, later, later);
    assert.deepEqual(c.changes('codex', [a, b]).changed, [a, b], 'a touched file (same size) too');
    c.imported('codex', c.changes('codex', [a, b]).stamps);

    const d = join(dir, 'd.jsonl');
    writeFileSync(d, '{}\n');
    assert.deepEqual(c.changes('codex', [a, b, d]).changed, [d], 'a new file');
    c.setContext('/work/proj\nlog');
    assert.deepEqual(c.changes('codex', [a, b]).changed, [], 'same context: stamps kept');
    c.setContext('/work/proj\n/work/lib\nlog');
    assert.deepEqual(c.changes('codex', [a, b]).changed, [a, b], 'another scope: every file again (out-of-scope sessions may be in it now)');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('backing off: a file unchanged for a while is stat\'ed on full looks and when its folder\'s watcher fired', () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-changed-'));
  try {
    const old = join(dir, 'old', 'rollout.jsonl');
    const hot = join(dir, 'hot', 'rollout.jsonl');
    for (const f of [old, hot]) {
      mkdirSync(join(f, '..'), { recursive: true });
      writeFileSync(f, '{}\n');
    }
    const now = Date.now();
    const longAgo = new Date(now - COLD_AFTER_MS - 60_000);
    utimesSync(old, longAgo, longAgo);
    const c = new ChangedFiles();
    c.imported('codex', c.changes('codex', [old, hot], { full: true, now }).stamps);
    appendFileSync(old, '{"resumed":1}\n');
    const later = new Date(now - COLD_AFTER_MS - 30_000); // still cold by its new mtime (set back), changed in size
    utimesSync(old, later, later);
    appendFileSync(hot, '{"more":1}\n');
    assert.deepEqual(c.changes('codex', [old, hot], { full: false, now }).changed, [hot], 'between full looks a cold file is not stat\'ed');
    assert.deepEqual(c.changes('codex', [old, hot], { full: false, now, fired: new Set([join(dir, 'old')]) }).changed, [old, hot], 'its folder\'s watcher fired');
    assert.deepEqual(c.changes('codex', [old, hot], { full: true, now }).changed, [old, hot], 'a full look');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('watched folders: those without located files first, then the folder with the newest file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-changed-'));
  try {
    const days = ['2025/01/01', '2025/06/01', '2025/03/01'].map((d) => join(dir, d));
    days.forEach((d, i) => {
      mkdirSync(d, { recursive: true });
      const f = join(d, 'rollout.jsonl');
      writeFileSync(f, '{}\n');
      const t = new Date(Date.UTC(2025, i * 3, 1));
      utimesSync(f, t, t);
    });
    const c = new ChangedFiles();
    const { newestIn } = c.changes('codex', days.map((d) => join(d, 'rollout.jsonl')));
    assert.deepEqual(byRecentChange([...days, dir], newestIn), [dir, days[2], days[1], days[0]]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a file the import left a reply of as still being written is handed over again once it has settled, unchanged, and then not again', () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-changed-'));
  try {
    const chat = join(dir, 'chat.jsonl');
    const done = join(dir, 'done.jsonl');
    writeFileSync(chat, '{"kind":0}\n');
    writeFileSync(done, '{"kind":0}\n');
    const now = Date.now();
    const c = new ChangedFiles();
    const first = c.changes('copilot-chat', [chat, done], { full: true, now });
    c.imported('copilot-chat', first.stamps, [chat], now);
    assert.deepEqual(c.changes('copilot-chat', [chat, done], { full: true, now: now + 60_000 }).changed, [], 'not settled yet: nothing to do');
    const settled = now + SETTLED_AFTER_MS + 1000;
    const due = c.changes('copilot-chat', [chat, done], { full: false, now: settled });
    assert.deepEqual(due.changed, [chat], 'settled: handed over again though unchanged (and cold)');
    c.imported('copilot-chat', due.stamps, [chat], settled);
    assert.deepEqual(c.changes('copilot-chat', [chat, done], { full: true, now: settled + 60_000 }).changed, [], 'read settled once: not again');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
