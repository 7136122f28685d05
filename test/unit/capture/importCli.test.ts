import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, capturedEvents, fakeHome, openLog } from './captureTestKit';
import { EventLog } from '../../../src/core/log/eventLog';
import { MMAP_BYTES } from '../../../src/core/db';

const CLI = join(__dirname, '..', '..', '..', 'src', 'cli', 'main.js');
const SESSION = '5f0e2a41-7c3b-4d8e-9a10-2b6c8d4e1f01';

function scroll(home: string, args: string[], input?: string) {
  const r = spawnSync(process.execPath, [CLI, ...args], { input, encoding: 'utf8', env: { ...process.env, HOME: home } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('scroll import --all: the sources under $HOME, scoped to the workspace; again: nothing new; --dry-run writes nothing', () => {
  const h = fakeHome();
  try {
    const dry = scroll(h.home, ['import', '--all', '--workspace', '/work/proj', '--db', h.dbPath, '--dry-run', '--json']);
    assert.equal(dry.code, 0, dry.stderr);
    assert.equal(existsSync(h.dbPath), false, 'a dry run creates no log');
    const dryCounts = JSON.parse(dry.stdout).sources.map((s: { appended: number }) => s.appended);

    const r = scroll(h.home, ['import', '--all', '--workspace', '/work/proj', '--db', h.dbPath, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(out.sources.map((s: { source: string }) => s.source), ['claude-code', 'codex', 'copilot-chat', 'cline', 'roo-code', 'kilo-code', 'gemini-cli']);
    assert.deepEqual(out.sources.slice(2).map((s: { files: number }) => s.files), [0, 0, 0, 0, 0], 'the fake home has none of the other sources');
    assert.deepEqual(out.sources.map((s: { appended: number }) => s.appended), dryCounts);
    const [claude, codex] = out.sources;
    assert.equal(claude.files, 3);
    assert.equal(claude.sessions, 1);
    assert.equal(claude.out_of_scope.length, 1);
    assert.equal(codex.no_cwd.length, 1);

    const again = scroll(h.home, ['import', '--all', '--workspace', '/work/proj', '--db', h.dbPath]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /claude-code: 3 file\(s\) \(2 unchanged\), 0 session\(s\), 0 event\(s\) appended/);
    assert.match(again.stdout, /codex: .* 0 event\(s\) appended/);
    assert.match(again.stdout, /record no working directory \(import them with --path\)/);
  } finally {
    h.dispose();
  }
});

test("scroll import copilot-chat: a session of Scroll's own @scroll participant appends nothing, and the summary says what was skipped and why", () => {
  const h = fakeHome();
  try {
    const real = join(FIXTURES, 'copilot-chat', '9bff5b6f-dba8-4eb6-adbb-c025d6cf1f48.jsonl');
    const text = scroll(h.home, ['import', 'copilot-chat', '--path', real, '--db', h.dbPath]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /copilot-chat: 1 file\(s\) \(0 unchanged\), 0 session\(s\), 0 event\(s\) appended/);
    assert.match(text.stdout, /\n {2}skipped 4 record\(s\): requests answered by Scroll's own @scroll participant \(scroll\.agent\): the log records those turns itself\n/);
    const log = openLog(h.dbPath);
    try {
      assert.equal(capturedEvents(log).length, 0);
    } finally {
      log.close();
    }
    const json = scroll(h.home, ['import', 'copilot-chat', '--path', real, '--db', h.dbPath, '--json']);
    assert.equal(json.code, 0, json.stderr);
    assert.deepEqual(JSON.parse(json.stdout).sources[0].skipped, [], 'unchanged since: not read again');
  } finally {
    h.dispose();
  }
});

test('a log opened with mmapBytes 0 (as scroll import opens it) reads without a memory map; other opens keep the map', () => {
  const h = fakeHome();
  try {
    const mapped = openLog(h.dbPath);
    const mmap = (log: { database: { prepare(q: string): { get(): unknown } } }) => Object.values(log.database.prepare('PRAGMA mmap_size').get() as object)[0];
    assert.equal(mmap(mapped), MMAP_BYTES);
    mapped.close();
    const unmapped = EventLog.open({ path: h.dbPath, mmapBytes: 0, onWarning: () => undefined });
    assert.equal(mmap(unmapped), 0);
    unmapped.close();
  } finally {
    h.dispose();
  }
});

test('scroll import claude-code --path - reads stream-json from stdin; a bad line is named and the exit code says so', () => {
  const h = fakeHome();
  try {
    const stream = readFileSync(join(FIXTURES, 'claude-code', 'stream-json.jsonl'), 'utf8');
    const r = scroll(h.home, ['import', 'claude-code', '--path', '-', '--db', h.dbPath, '--json'], stream);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).sources[0].appended, 6);
    const bad = scroll(h.home, ['import', 'claude-code', '--path', '-', '--db', h.dbPath], stream + 'not json at all\n');
    assert.equal(bad.code, 1);
    assert.match(bad.stdout, /0 event\(s\) appended, 6 already present/);
    assert.match(bad.stdout, /stdin:7: not valid JSON/);
    const unknown = scroll(h.home, ['import', 'nosuch', '--db', h.dbPath]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown source "nosuch"/);
  } finally {
    h.dispose();
  }
});

test('scroll import --watch appends what a transcript gains while it runs', async () => {
  const h = fakeHome();
  const child = spawn(process.execPath, [CLI, 'import', 'claude-code', '--watch', '--workspace', '/work/proj', '--db', h.dbPath], { env: { ...process.env, HOME: h.home }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  const closed = new Promise<number | null>((ok) => child.on('close', (code) => ok(code)));
  try {
    const until = async (what: string, ok: () => boolean) => {
      const deadline = Date.now() + 20_000;
      while (!ok()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    await until('the watch to start', () => stderr.includes('watching'));
    const file = join(h.home, '.claude', 'projects', '-work-proj', `${SESSION}.jsonl`);
    appendFileSync(file, JSON.stringify({ type: 'user', uuid: 'w-1', sessionId: SESSION, cwd: '/work/proj', timestamp: '2025-10-01T12:00:00Z', message: { role: 'user', content: 'written while watching' } }) + '\n');
    const count = () => {
      const log = openLog(h.dbPath);
      try {
        return capturedEvents(log).filter((e) => e.content === 'written while watching').length;
      } finally {
        log.close();
      }
    };
    await until('the new line in the log', () => count() === 1);
    child.kill('SIGINT');
    assert.equal(await closed, 0, stderr);
    assert.equal(count(), 1);
  } finally {
    child.kill('SIGKILL');
    h.dispose();
  }
});
