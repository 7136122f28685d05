import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../src/core/log/eventLog';
import { MemoryCallError, ReadOnlySql } from '../../../src/core/memory';

async function rejectsWith(p: Promise<unknown>, type: string, message?: RegExp): Promise<MemoryCallError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof MemoryCallError, `expected a MemoryCallError, got ${String(e)}`);
    assert.equal(e.type, type, e.message);
    if (message) assert.match(e.message, message);
    return e;
  }
  assert.fail(`expected a ${type}`);
}

function setup(): { dir: string; log: EventLog } {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-rosql-'));
  const log = EventLog.open({ path: join(dir, 'scroll.db'), session: 'S1', redact: false });
  const first = log.append({ kind: 'user_message', role: 'user', content: 'Why does the retry cap stop at three?' });
  log.appendMany([
    { kind: 'tool_call', role: 'tool', name: 'grep', content: 'grep -rn MAX_RETRIES src', parentSeq: first.seq },
    { kind: 'tool_result', role: 'tool', name: 'grep', content: 'src/http.ts:3: const MAX_RETRIES = 3', parentSeq: first.seq + 1 },
    { kind: 'model_turn', role: 'assistant', content: 'The retry cap is a constant in src/http.ts.', session: 'S2' },
  ]);
  return { dir, log };
}

/** Everything a write could change: the rows of every ordinary table, and the schema. */
function dump(log: EventLog): string {
  const db = log.database;
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name").all() as Array<{ name: string }>;
  const out: Record<string, unknown> = { schema: db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name').all() };
  const text = (v: unknown) => JSON.stringify(v, (_k, x) => (Buffer.isBuffer(x) || x instanceof Uint8Array ? Buffer.from(x).toString('hex') : x));
  for (const { name } of tables) out[name] = db.prepare(`SELECT * FROM "${name}"`).all().map(text).sort();
  out.max = log.maxSeq();
  return text(out);
}

test('every write, escape and runaway is refused; the log file is unchanged afterwards', async () => {
  const { dir, log } = setup();
  const sql = new ReadOnlySql({ dbPath: log.path, timeoutMs: 1000 });
  try {
    const before = dump(log);
    const files = readdirSync(dir).sort();
    const rw = `file:${log.path}?mode=rw`;
    const vacuumTarget = join(dir, 'copy.db');
    const refused: Array<[string, string, RegExp]> = [
      ['PRAGMA query_only=0', 'PermissionError', /PRAGMA query_only = 0 refused/],
      [`ATTACH '${rw}' AS w`, 'PermissionError', /ATTACH .* refused/],
      [`ATTACH '${rw}' AS w; INSERT INTO w.events(session, kind, role, content, bytes, tokens, ts) VALUES ('x','x','x','x',1,1,'t')`, 'PermissionError', /ATTACH .* refused/],
      ["INSERT INTO events(session, kind, role, content, bytes, tokens, ts) VALUES ('x','x','x','x',1,1,'t') RETURNING seq", 'PermissionError', /INSERT into events refused/],
      ['DELETE FROM events', 'PermissionError', /DELETE from events refused/],
      ["UPDATE events SET content = 'x'", 'PermissionError', /UPDATE of events refused/],
      ['DROP TRIGGER events_no_delete', 'PermissionError', /refused/],
      ['DROP TRIGGER events_no_update', 'PermissionError', /refused/],
      ['DROP TABLE events', 'PermissionError', /refused/],
      ['CREATE TEMP TABLE t(x)', 'PermissionError', /refused/],
      ['CREATE TEMP VIEW v AS SELECT 1', 'PermissionError', /refused/],
      ["CREATE TEMP TRIGGER tr AFTER INSERT ON events BEGIN SELECT 1; END", 'PermissionError', /refused/],
      ['PRAGMA writable_schema=1', 'PermissionError', /PRAGMA writable_schema = 1 refused/],
      ['PRAGMA journal_mode=DELETE', 'PermissionError', /refused/],
      [`VACUUM INTO '${vacuumTarget}'`, 'PermissionError', /refused/],
      ['VACUUM', 'PermissionError', /refused|read-only/],
      ["SELECT load_extension('x')", 'PermissionError', /load_extension\(\) refused/],
      ['BEGIN IMMEDIATE', 'PermissionError', /refused/],
      ['SAVEPOINT s', 'PermissionError', /refused/],
      ['DETACH main', 'PermissionError', /refused/],
      ["WITH x AS (SELECT 1) DELETE FROM events WHERE seq IN (SELECT * FROM x)", 'PermissionError', /DELETE from events refused/],
      ['REINDEX', 'PermissionError', /refused/],
      ['ANALYZE', 'PermissionError', /refused/],
      ["INSERT INTO events_fts(events_fts) VALUES ('delete-all')", 'PermissionError', /refused/],
      ['SELECT 1; SELECT 2', 'ValueError', /^ms\.sql: run one statement at a time$/],
      ['SELECT 1; DELETE FROM events', 'ValueError', /one statement/],
      ['SELEC 1', 'ValueError', /syntax error/],
      ['SELECT * FROM no_such_table', 'ValueError', /no such table/],
    ];
    for (const [q, type, message] of refused) {
      const e = await rejectsWith(sql.query(q, []), type, message);
      if (type === 'PermissionError') assert.match(e.message, /^ms\.sql: the event log is read-only \(.+\)$/, q);
    }
    const started = Date.now();
    await rejectsWith(
      sql.query('WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c', []),
      'TimeoutError',
      /^ms\.sql: the query ran past 1 s and was stopped$/,
    );
    const took = Date.now() - started;
    assert.ok(took >= 900 && took < 2900, `stopped after ${took} ms`);
    // The helper stopped the statement itself and goes on answering.
    assert.deepEqual(await sql.query('SELECT count(*) AS n FROM events', []), { columns: ['n'], rows: [[4]], truncated: false });
    // Nothing was created anywhere: no temp objects on the helper's connection, no copy, no new file.
    assert.deepEqual((await sql.query('SELECT count(*) FROM sqlite_temp_master', [])).rows, [[0]]);
    assert.equal(existsSync(vacuumTarget), false);
    assert.deepEqual(readdirSync(dir).sort(), files);
    assert.equal(dump(log), before);
    // The triggers are still there and still refuse (checked on the host's own writable connection).
    assert.throws(() => log.database.prepare('DELETE FROM events').run(), /append-only/);
  } finally {
    sql.dispose();
    log.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('honest reads: aggregates, joins, CTEs, FTS, params (list and dict), values JSON cannot carry, 1,000-row cap', async () => {
  const { dir, log } = setup();
  const sql = new ReadOnlySql({ dbPath: log.path });
  try {
    assert.deepEqual(await sql.query('SELECT kind, count(*) FROM events GROUP BY kind ORDER BY kind', []), {
      columns: ['kind', 'count(*)'],
      rows: [['model_turn', 1], ['tool_call', 1], ['tool_result', 1], ['user_message', 1]],
      truncated: false,
    });
    const join_ = await sql.query('SELECT c.seq, p.kind FROM events c JOIN events p ON p.seq = c.parent_seq ORDER BY c.seq', []);
    assert.deepEqual(join_.rows, [[2, 'user_message'], [3, 'tool_call']]);
    const cte = await sql.query('WITH s AS (SELECT session, count(*) AS n FROM events GROUP BY session) SELECT * FROM s WHERE n > ? ORDER BY session', [0]);
    assert.deepEqual(cte.rows, [['S1', 3], ['S2', 1]]);
    const named = await sql.query('SELECT seq FROM events WHERE session = :s AND kind = :k', { s: 'S1', k: 'tool_result' });
    assert.deepEqual(named.rows, [[3]]);
    const fts = await sql.query("SELECT rowid FROM events_fts WHERE events_fts MATCH 'cap' ORDER BY rowid", []);
    assert.deepEqual(fts.rows, [[1], [4]]);
    assert.deepEqual((await sql.query("SELECT doc FROM events_vocab WHERE term = 'cap'", [])).rows, [[2]]);
    assert.deepEqual((await sql.query('PRAGMA table_info(scroll_meta)', [])).rows.map((r) => r[1]), ['key', 'value']);
    const values = await sql.query("SELECT x'00ff10', 1e999, -1e999, 9007199254740993, 1.5, NULL, 'é✓', ?", [{ $base64: Buffer.from('hi').toString('base64') }]);
    assert.deepEqual(values.rows, [[{ $base64: 'AP8Q' }, { $float: 'inf' }, { $float: '-inf' }, { $int: '9007199254740993' }, 1.5, null, 'é✓', { $base64: 'aGk=' }]]);
    const many = await sql.query('WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT 1500) SELECT x FROM c', []);
    assert.equal(many.truncated, true);
    assert.equal(many.rows.length, 1000);
    assert.deepEqual(many.rows[999], [1000]);
    const exactly = await sql.query('WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT 1000) SELECT x FROM c', []);
    assert.equal(exactly.truncated, false);
    // Bad parameters: ValueError from SQLite (count), TypeError for values SQL has no type for.
    await rejectsWith(sql.query('SELECT ?', []), 'ValueError', /binding/i);
    await rejectsWith(sql.query('SELECT ?', [[1, 2]]), 'TypeError', /parameter 1/);
    await rejectsWith(sql.query('SELECT ?', 'x' as unknown as unknown[]), 'TypeError');
    await rejectsWith(sql.query(5 as unknown as string, []), 'TypeError', /query must be a string/);
    // Queued queries are answered in order, each with its own result.
    const all = await Promise.all([1, 2, 3, 4, 5].map((i) => sql.query('SELECT ? * 10', [i])));
    assert.deepEqual(all.map((r) => r.rows[0][0]), [10, 20, 30, 40, 50]);
    // Events appended after the helper started are visible to the next query.
    log.append({ kind: 'note', role: 'user', content: 'late' });
    assert.deepEqual((await sql.query('SELECT max(seq) FROM events', [])).rows, [[5]]);
  } finally {
    sql.dispose();
    log.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a helper that stops answering is killed after the time limit + 2 s, and the next query gets a fresh one', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-rosql-stuck-'));
  const kernelDir = join(dir, 'kernel');
  mkdirSync(kernelDir);
  // Stands in for the helper: answers with its pid, except that it hangs on "hang".
  writeFileSync(
    join(kernelDir, 'scroll_sql_server.py'),
    [
      'import json, os, sys, time',
      'print(json.dumps({"ready": True}), flush=True)',
      'for line in sys.stdin:',
      '    msg = json.loads(line)',
      '    if "hang" in msg["sql"]:',
      '        time.sleep(3600)',
      '    print(json.dumps({"id": msg["id"], "columns": ["pid"], "rows": [[os.getpid()]], "truncated": False}), flush=True)',
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'scroll.db'), '');
  const sql = new ReadOnlySql({ dbPath: join(dir, 'scroll.db'), kernelDir, timeoutMs: 200 });
  try {
    const first = (await sql.query('SELECT 1', [])).rows[0][0];
    const started = Date.now();
    const [hung, after] = await Promise.allSettled([sql.query('hang', []), sql.query('SELECT 2', [])]);
    const took = Date.now() - started;
    assert.equal(hung.status, 'rejected');
    const err = (hung as PromiseRejectedResult).reason as MemoryCallError;
    assert.equal(err.type, 'TimeoutError');
    assert.equal(err.message, 'ms.sql: the query ran past 0.2 s and was stopped');
    assert.ok(took >= 2100 && took < 5000, `killed after ${took} ms`);
    assert.equal(after.status, 'fulfilled');
    const second = (after as PromiseFulfilledResult<{ rows: unknown[][] }>).value.rows[0][0];
    assert.notEqual(second, first, 'a fresh helper answered');
    const alive = () => {
      try {
        process.kill(first as number, 0);
        return true;
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 50 && alive(); i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(alive(), false, 'the stuck helper is gone');
  } finally {
    sql.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('no Python, a missing helper or a missing log: a clear RuntimeError, never a hang', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-rosql-nopy-'));
  try {
    const noPython = new ReadOnlySql({ dbPath: join(dir, 'scroll.db'), python: join(dir, 'no-such-python3') });
    await rejectsWith(noPython.query('SELECT 1', []), 'RuntimeError', /cannot start the SQL helper: Python \(".*no-such-python3"\) was not found/);
    noPython.dispose();
    const noHelper = new ReadOnlySql({ dbPath: join(dir, 'scroll.db'), kernelDir: dir });
    await rejectsWith(noHelper.query('SELECT 1', []), 'RuntimeError', /scroll_sql_server\.py is missing/);
    noHelper.dispose();
    const noLog = new ReadOnlySql({ dbPath: join(dir, 'nothing.db') });
    await rejectsWith(noLog.query('SELECT 1', []), 'RuntimeError', /no event log at .*nothing\.db/);
    noLog.dispose();
    const disposed = new ReadOnlySql({ dbPath: join(dir, 'scroll.db') });
    disposed.dispose();
    await rejectsWith(disposed.query('SELECT 1', []), 'RuntimeError', /closed/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
