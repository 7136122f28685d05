import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SETTLED_AFTER_MS, claudeCodeReader, codexReader, importFiles, rebuildCaptureState } from '../../../src/core/capture';
import { allEvents, capturedEvents, fakeHome, openLog } from './captureTestKit';

const CLI = join(__dirname, '..', '..', '..', 'src', 'cli', 'main.js');
const SESSION = '5f0e2a41-7c3b-4d8e-9a10-2b6c8d4e1f01';
const mainFile = (home: string) => join(home, '.claude', 'projects', '-work-proj', `${SESSION}.jsonl`);

function userLine(uuid: string, text: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ type: 'user', uuid, sessionId: SESSION, cwd: '/work/proj', version: '2.0.14', timestamp: '2025-10-01T11:00:00.000Z', message: { role: 'user', content: text }, ...extra });
}

test('a grown transcript appends only its new records; a half-written last line waits and is then read once', async () => {
  const h = fakeHome();
  const log = openLog(h.dbPath);
  try {
    const file = mainFile(h.home);
    const first = await importFiles(log, claudeCodeReader, [file]);
    const before = capturedEvents(log).length;
    assert.equal(first.appended, before);

    appendFileSync(file, userLine('g-0001', 'grown one') + '\n' + userLine('g-0002', 'grown two') + '\n');
    const grown = await importFiles(log, claudeCodeReader, [file]);
    assert.equal(grown.appended, 2);
    assert.equal(grown.present, 0, 'only the new lines are read (the cursor is past the old ones)');

    // The writer is midway through a line: nothing of it is taken.
    const line = userLine('g-0003', 'written in two halves');
    appendFileSync(file, line.slice(0, 40));
    const half = await importFiles(log, claudeCodeReader, [file]);
    assert.equal(half.appended, 0);
    assert.equal(half.incomplete.length, 1);
    assert.deepEqual(half.problems, [], 'a half-written line is not a problem');
    appendFileSync(file, line.slice(40) + '\n');
    const rest = await importFiles(log, claudeCodeReader, [file]);
    assert.equal(rest.appended, 1);
    assert.equal(capturedEvents(log).filter((e) => e.content === 'written in two halves').length, 1);
    assert.equal((await importFiles(log, claudeCodeReader, [file])).appended, 0);
    assert.equal(capturedEvents(log).length, before + 3);
  } finally {
    log.close();
    h.dispose();
  }
});

test('a malformed line is reported with its path and line and skipped; the rest is imported', async () => {
  const h = fakeHome();
  const log = openLog(h.dbPath);
  try {
    const file = mainFile(h.home);
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.splice(3, 0, '{"type":"user","uuid": oops this is not json');
    writeFileSync(file, lines.join('\n'));
    const s = await importFiles(log, claudeCodeReader, [file]);
    assert.equal(s.problems.length, 1);
    assert.equal(s.problems[0].path, file);
    assert.equal(s.problems[0].line, 4);
    assert.match(s.problems[0].message, /not valid JSON/);
    assert.ok(capturedEvents(log).some((e) => e.content.startsWith('Done: the total')), 'lines after the bad one are imported');
    // Reported once: the cursor is past it.
    appendFileSync(file, userLine('m-0001', 'after the bad line') + '\n');
    const again = await importFiles(log, claudeCodeReader, [file]);
    assert.deepEqual([again.appended, again.problems.length], [1, 0]);
  } finally {
    log.close();
    h.dispose();
  }
});

test('an unknown format version is reported once per file, and its records are still imported', async () => {
  const h = fakeHome();
  const log = openLog(h.dbPath);
  try {
    const file = join(h.home, 'future.jsonl');
    writeFileSync(file, [1, 2, 3].map((i) => userLine(`f-${i}`, `future ${i}`, { version: '3.1.0' })).join('\n') + '\n');
    const s = await importFiles(log, claudeCodeReader, [file]);
    assert.equal(s.problems.length, 1);
    assert.match(s.problems[0].message, /version 3\.1\.0/);
    assert.equal(s.appended, 3);
  } finally {
    log.close();
    h.dispose();
  }
});

test('two importers at once (two processes on one log) append each record once', async () => {
  const h = fakeHome();
  try {
    const file = join(h.home, 'big.jsonl');
    const n = 4000;
    const rows: string[] = [];
    for (let i = 0; i < n; i++) rows.push(userLine(`c-${i}`, `concurrent record ${i} ${'x'.repeat(i % 7 === 0 ? 9000 : 20)}`));
    writeFileSync(file, rows.join('\n') + '\n');
    // Each process reads both copies, so neither's cursors can help: only the database's key can.
    const copy = join(h.home, 'big-copy.jsonl');
    writeFileSync(copy, rows.join('\n') + '\n');
    const run = () =>
      new Promise<{ code: number | null; out: string; err: string }>((ok) => {
        const child = spawn(process.execPath, [CLI, 'import', 'claude-code', '--path', file, '--path', copy, '--db', h.dbPath, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        child.stdout.on('data', (c) => (out += c));
        child.stderr.on('data', (c) => (err += c));
        child.on('close', (code) => ok({ code, out, err }));
      });
    const [a, b] = await Promise.all([run(), run()]);
    assert.equal(a.code, 0, a.err);
    assert.equal(b.code, 0, b.err);
    const summaries = [a, b].map((r) => JSON.parse(r.out).sources[0] as { appended: number; already_present: number });
    assert.equal(summaries[0].appended + summaries[1].appended, n, 'each record appended by one of them');
    for (const s of summaries) assert.ok(s.appended + s.already_present >= n, 'each read at least one copy whole');
    const log = openLog(h.dbPath);
    try {
      const events = capturedEvents(log);
      assert.equal(events.length, n);
      assert.equal(new Set(events.map((e) => (e.meta.capture as { record: string }).record)).size, n);
      assert.equal(Number(log.database.prepare('SELECT count(*) AS n FROM capture_records').get().n), n);
      assert.equal(log.verify().ok, true);
    } finally {
      log.close();
    }
  } finally {
    h.dispose();
  }
});

test('two EventLog handles on one log in one process (two windows sharing an extension host) import at once: each record once', async () => {
  const h = fakeHome();
  const a = openLog(h.dbPath);
  const b = openLog(h.dbPath);
  try {
    const n = 3000;
    const rows: string[] = [];
    // Every seventh record is large, so chunks write payload files (their sync is awaited inside a chunk's transaction).
    for (let i = 0; i < n; i++) rows.push(userLine(`h-${i}`, `handle record ${i} ${'y'.repeat(i % 7 === 0 ? 9000 : 20)}`));
    // Each handle reads copies of its own, so cursors cannot help: only the database's key can.
    const files = ['one.jsonl', 'two.jsonl', 'three.jsonl', 'four.jsonl'].map((f) => join(h.home, f));
    for (const f of files) writeFileSync(f, rows.join('\n') + '\n');
    const opts = { chunkEvents: 50 }; // many chunks, each a transaction
    const [sa, sb] = await Promise.all([
      importFiles(a, claudeCodeReader, files.slice(0, 2), opts),
      importFiles(b, claudeCodeReader, files.slice(2).reverse(), opts),
    ]);
    assert.deepEqual([sa.problems, sb.problems], [[], []]);
    assert.equal(sa.appended + sb.appended, n, 'each record appended by one of them');
    assert.equal(sa.appended + sa.present, 2 * n, 'a read every record of both files');
    assert.equal(sb.appended + sb.present, 2 * n, 'b read every record of both files');
    for (const log of [a, b]) {
      const events = capturedEvents(log);
      assert.equal(events.length, n);
      assert.equal(new Set(events.map((e) => (e.meta.capture as { record: string }).record)).size, n);
      assert.equal(Number(log.database.prepare('SELECT count(*) AS n FROM capture_records').get().n), n);
      assert.equal(Number(log.database.prepare('SELECT count(*) AS n FROM capture_records r JOIN events e ON e.seq = r.seq').get().n), n, 'every claim names its event');
    }
    assert.equal(a.verify().ok, true);
    // Again from either handle: nothing new.
    const again = await Promise.all([importFiles(a, claudeCodeReader, files, opts), importFiles(b, claudeCodeReader, files, opts)]);
    assert.deepEqual(again.map((s) => [s.appended, s.unchanged]), [[0, 4], [0, 4]]);
  } finally {
    a.close();
    b.close();
    h.dispose();
  }
});

test("an append on the importer's own handle while an import runs (the editor's agent beside its capture) commits on its own", async () => {
  const h = fakeHome();
  const log = openLog(h.dbPath);
  const other = openLog(h.dbPath); // another connection: sees only what is committed
  try {
    const rows: string[] = [];
    // Large records write payload files, whose flush the import awaits.
    for (let i = 0; i < 400; i++) rows.push(userLine(`c-${i}`, `capture record ${i} ${'z'.repeat(i % 3 === 0 ? 12_000 : 30)}`));
    const file = join(h.home, 'big.jsonl');
    writeFileSync(file, rows.join('\n') + '\n');
    let done = false;
    const importing = importFiles(log, claudeCodeReader, [file], { chunkEvents: 20 }).finally(() => { done = true; });
    const notCommitted: number[] = [];
    let agentTurns = 0;
    while (!done) {
      await new Promise((r) => setImmediate(r));
      const e = log.append({ session: 'agent', kind: 'note', role: 'assistant', content: `agent note ${agentTurns++}` });
      if (other.get(e.seq) === undefined) notCommitted.push(e.seq);
    }
    const summary = await importing;
    assert.deepEqual(summary.problems, []);
    assert.equal(summary.appended, 400);
    assert.ok(agentTurns > 5, `the agent appended while the import ran (${agentTurns} times)`);
    assert.deepEqual(notCommitted, [], 'an append during the import was held inside its transaction');
    assert.equal(log.verify().ok, true);
  } finally {
    other.close();
    log.close();
    h.dispose();
  }
});

test('the capture tables are derived: rebuilt from the log, importing again still appends nothing', async () => {
  const h = fakeHome();
  const log = openLog(h.dbPath);
  try {
    const file = mainFile(h.home);
    const rollout = join(h.home, '.codex', 'sessions', '2025', '10', '29', 'rollout-2025-10-29T00-59-38-0199a2d7-41c4-78b1-b7cc-a45d62a89cd5.jsonl');
    await importFiles(log, claudeCodeReader, [file]);
    await importFiles(log, codexReader, [rollout]);
    const records = log.database.prepare('SELECT source, record_id, seq FROM capture_records ORDER BY seq').all();
    const binaries = log.database.prepare('SELECT * FROM event_binaries ORDER BY seq').all();
    const cursors = log.database.prepare('SELECT path, offset, line FROM capture_cursors ORDER BY path').all();
    log.database.exec('DELETE FROM capture_records; DELETE FROM capture_cursors; DELETE FROM event_binaries;');
    const r = rebuildCaptureState(log);
    assert.equal(r.records, records.length);
    assert.deepEqual(log.database.prepare('SELECT source, record_id, seq FROM capture_records ORDER BY seq').all(), records);
    assert.deepEqual(log.database.prepare('SELECT * FROM event_binaries ORDER BY seq').all(), binaries);
    assert.deepEqual(log.database.prepare('SELECT path, offset, line FROM capture_cursors ORDER BY path').all(), cursors);
    const n = allEvents(log).length;
    assert.equal((await importFiles(log, claudeCodeReader, [file])).appended, 0);
    assert.equal((await importFiles(log, codexReader, [rollout])).appended, 0);
    assert.equal(allEvents(log).length, n);
  } finally {
    log.close();
    h.dispose();
  }
});

test('a dry run counts without writing; --since-style filtering skips older records and leaves the cursor', async () => {
  const h = fakeHome();
  const log = openLog(h.dbPath);
  try {
    const file = mainFile(h.home);
    const dry = await importFiles(log, claudeCodeReader, [file], { dryRun: true });
    assert.ok(dry.appended > 10);
    assert.equal(log.maxSeq(), 0);
    const since = await importFiles(log, claudeCodeReader, [file], { since: new Date('2025-10-01T10:01:00.000Z') });
    assert.ok(since.older > 0);
    assert.ok(capturedEvents(log).every((e) => e.ts >= '2025-10-01T10:01:00.000Z'));
    const all = await importFiles(log, claudeCodeReader, [file]);
    assert.equal(all.appended + since.appended, dry.appended, 'the older records are still imported later');
    assert.equal(all.present, since.appended);
  } finally {
    log.close();
    h.dispose();
  }
});

test('search filters captured events by their source', async () => {
  const h = fakeHome();
  const log = openLog(h.dbPath);
  try {
    await importFiles(log, claudeCodeReader, [mainFile(h.home)]);
    await importFiles(log, codexReader, [join(h.home, '.codex', 'sessions', '2025', '10', '29', 'rollout-2025-10-29T00-59-38-0199a2d7-41c4-78b1-b7cc-a45d62a89cd5.jsonl')]);
    log.append({ kind: 'user_message', role: 'user', content: 'our own price question', session: 'scroll-own' });
    const sourcesOf = (source?: string) => new Set(log.search('price', { k: 50, source }).hits.map((hit) => String(log.get(hit.seq)!.meta.source)));
    assert.deepEqual([...sourcesOf()].sort(), ['claude-code', 'codex', 'undefined']);
    assert.deepEqual([...sourcesOf('codex')], ['codex']);
    assert.deepEqual([...sourcesOf('claude-code')], ['claude-code']);
  } finally {
    log.close();
    h.dispose();
  }
});

test("a record without a time of its own takes its file's neighbouring record's, not the import's", async () => {
  const h = fakeHome();
  const log = openLog(h.dbPath);
  try {
    const file = join(h.home, 'untimed', `${SESSION}.jsonl`);
    mkdirSync(join(h.home, 'untimed'), { recursive: true });
    // Claude Code writes summaries and file snapshots without a timestamp, often at the top of a
    // session file, and a custom title at its end.
    writeFileSync(file, [
      JSON.stringify({ type: 'summary', summary: 'Retry cap investigation', leafUuid: 'u-2' }),
      userLine('u-1', 'what is the retry cap?', { timestamp: '2025-10-01T11:00:00.000Z' }),
      userLine('u-2', 'and the timeout?', { timestamp: '2025-10-01T11:05:00.000Z' }),
      JSON.stringify({ type: 'custom-title', customTitle: 'retry work', sessionId: SESSION }),
    ].join('\n') + '\n');
    const s = await importFiles(log, claudeCodeReader, [file], { scope: ['/work/proj'] });
    assert.equal(s.appended, 4);
    const events = capturedEvents(log);
    const ts = (pred: (e: (typeof events)[number]) => boolean) => events.filter(pred).map((e) => [e.ts, e.meta.tsFrom]);
    assert.deepEqual(ts((e) => e.meta.type === 'summary'), [['2025-10-01T11:00:00.000Z', 'next record']], 'before any timed record: the first one after it');
    assert.deepEqual(ts((e) => e.meta.type === 'custom-title'), [['2025-10-01T11:05:00.000Z', 'previous record']]);
    assert.deepEqual(ts((e) => e.kind === 'user_message'), [['2025-10-01T11:00:00.000Z', undefined], ['2025-10-01T11:05:00.000Z', undefined]], 'timed records keep their own');
    const last = log.sessions().find((x) => x.session === `claude-code:${SESSION}`)!;
    assert.equal(last.lastTs, '2025-10-01T11:05:00.000Z', "the session ends when its last record was written, not when it was imported");
  } finally {
    log.close();
    h.dispose();
  }
});

test("a record without a session id of its own joins its file's session, whatever the file is called", async () => {
  const h = fakeHome();
  const log = openLog(h.dbPath);
  try {
    mkdirSync(join(h.home, 'shared'), { recursive: true });
    // A transcript shared under another name: its summary and file snapshot name no session.
    const file = join(h.home, 'shared', 'transcript-1.jsonl');
    writeFileSync(file, [
      JSON.stringify({ type: 'summary', summary: 'Retry cap investigation', leafUuid: 'w-2' }),
      JSON.stringify({ type: 'file-history-snapshot', messageId: 'w-1', snapshot: { messageId: 'w-1', trackedFileBackups: {} }, isSnapshotUpdate: false }),
      userLine('w-1', 'what is the retry cap?'),
      userLine('w-2', 'and the timeout?'),
      JSON.stringify({ type: 'summary', summary: 'Timeout too', leafUuid: 'w-2' }),
    ].join('\n') + '\n');
    const s = await importFiles(log, claudeCodeReader, [file], { scope: ['/work/proj'] });
    assert.equal(s.appended, 5);
    assert.equal(s.sessions, 1);
    const events = capturedEvents(log);
    assert.deepEqual([...new Set(events.map((e) => e.session))], [`claude-code:${SESSION}`]);
    assert.deepEqual([...new Set(events.map((e) => e.meta.sessionId))], [SESSION]);
  } finally {
    log.close();
    h.dispose();
  }
});

test('a last line cut short in a file that then stopped changing is skipped and named, so records a resumed writer appends are read', async () => {
  const h = fakeHome();
  const log = openLog(h.dbPath);
  try {
    const file = mainFile(h.home);
    let clock = Date.now();
    const opts = { now: () => clock };
    await importFiles(log, claudeCodeReader, [file], opts);
    const before = capturedEvents(log).length;
    appendFileSync(file, userLine('t-0001', 'the writer crashed here').slice(0, 50));
    const torn = await importFiles(log, claudeCodeReader, [file], opts);
    assert.equal(torn.incomplete.length, 1, 'fresh: it may still be written');
    assert.deepEqual(torn.problems, []);
    const still = await importFiles(log, claudeCodeReader, [file], opts);
    assert.equal(still.unchanged, 1);
    assert.match(still.incomplete[0]?.message ?? '', /half-written last line: left for a later import \(skipped as malformed once/);

    clock += SETTLED_AFTER_MS + 1000; // nothing wrote it since: the writer is gone
    const settled = await importFiles(log, claudeCodeReader, [file], opts);
    assert.deepEqual(settled.incomplete, []);
    assert.equal(settled.problems.length, 1);
    assert.equal(settled.problems[0].path, file);
    assert.match(settled.problems[0].message, /last line cut short and the file has not changed for \d+ minutes: skipped/);
    assert.equal(settled.appended, 0);

    // The session is resumed: the writer appends whole records after the cut one; they are read.
    appendFileSync(file, userLine('t-0002', 'resumed after the crash') + '\n');
    clock = Date.now();
    const resumed = await importFiles(log, claudeCodeReader, [file], opts);
    assert.deepEqual(resumed.problems, []);
    assert.equal(resumed.appended, 1);
    assert.ok(capturedEvents(log).some((e) => e.content === 'resumed after the crash'));
    assert.equal(capturedEvents(log).length, before + 1);
  } finally {
    log.close();
    h.dispose();
  }
});

test('a record repeated byte for byte later in its file is an occurrence of its own; reading the file again or a copy of it appends nothing', async () => {
  const h = fakeHome();
  const log = openLog(h.dbPath);
  try {
    const file = mainFile(h.home);
    const mode = JSON.stringify({ type: 'permission-mode', permissionMode: 'default', sessionId: SESSION });
    writeFileSync(file, [mode, userLine('r-0001', 'between the two'), mode].join('\n') + '\n');
    const first = await importFiles(log, claudeCodeReader, [file]);
    const modes = () => capturedEvents(log).filter((e) => e.content.includes('"permission-mode"'));
    assert.equal(modes().length, 2, 'both lines are in the log');
    assert.deepEqual(modes().map((e) => (e.meta.capture as { line: number }).line), [1, 3]);
    assert.equal(first.present, 0);
    const all = capturedEvents(log).length;

    // Read again from the start (its cursor gone) and as a copy under another path: nothing new.
    log.database.exec('DELETE FROM capture_cursors');
    assert.equal((await importFiles(log, claudeCodeReader, [file])).appended, 0);
    const copy = join(h.home, '.claude', 'projects', '-work-proj', 'copy', `${SESSION}.jsonl`);
    mkdirSync(join(copy, '..'), { recursive: true });
    writeFileSync(copy, readFileSync(file));
    assert.equal((await importFiles(log, claudeCodeReader, [copy])).appended, 0);
    assert.equal(capturedEvents(log).length, all);
  } finally {
    log.close();
    h.dispose();
  }
});

test('a dry run counts a record repeated in a later chunk of its file as new, as the import then appends it', async () => {
  const h = fakeHome();
  const log = openLog(h.dbPath);
  try {
    const file = mainFile(h.home);
    const mode = JSON.stringify({ type: 'permission-mode', permissionMode: 'default', sessionId: SESSION });
    writeFileSync(file, [mode, userLine('d-0001', 'one'), userLine('d-0002', 'two'), mode].join('\n') + '\n');
    const dry = await importFiles(log, claudeCodeReader, [file], { dryRun: true, chunkEvents: 2 });
    const real = await importFiles(log, claudeCodeReader, [file], { chunkEvents: 2 });
    assert.equal(real.appended, 4);
    assert.equal(dry.appended, real.appended);
  } finally {
    log.close();
    h.dispose();
  }
});
