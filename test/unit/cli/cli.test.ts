import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../../src/core/db';
import { REDACTION_RULESET_VERSION } from '../../../src/core/log/redaction';
import { SCHEMA_VERSION } from '../../../src/core/log/schema';

/** The compiled CLI under test (run as its own process, exactly as a user runs it). */
const CLI = join(__dirname, '..', '..', '..', 'src', 'cli', 'main.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function scroll(cwd: string, args: string[], input?: string): Run {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, input, encoding: 'utf8', env: process.env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function ok(r: Run): Run {
  assert.equal(r.code, 0, `exit ${r.code}: ${r.stderr}`);
  return r;
}

function withDir(fn: (dir: string) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-cli-'));
  try {
    fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const EVENTS = [
  { kind: 'user_message', role: 'user', content: 'Why does getUserById throw in src/core/log.ts?', session: 'alpha', ts: '2026-03-01T10:00:00.000Z' },
  { kind: 'tool_call', role: 'assistant', content: '{"path":"src/core/log.ts"}', session: 'alpha', name: 'read_file', ts: '2026-03-01T10:00:01Z', meta: { attempt: 1, tags: ['a', 'b'] }, step: 1, tool_call_id: 'call_7' },
  { kind: 'tool_result', role: 'tool', content: 'export function getUserById(id) {\n  throw new TypeError("user_id missing");\n}\n' + 'line of a long file\n'.repeat(600), session: 'alpha', name: 'read_file', ts: '2026-03-01T10:00:02Z', tool_call_id: 'call_7', parent_seq: 2 },
  { kind: 'model_turn', role: 'assistant', content: 'The TypeError comes from a missing user_id. ```ts\nconst x = `tick`;\n```', session: 'alpha', headline: 'root cause: user_id missing', ts: '2026-03-01T10:00:03Z' },
  { kind: 'user_message', role: 'user', content: 'unrelated: water the garden 🌱', session: 'beta', ts: '2026-03-02T08:00:00Z' },
];

function writeJsonl(path: string, rows: unknown[]): void {
  writeFileSync(path, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
}

test('ingest → stats/search/show/export → ingest again: identical events', () => {
  withDir((dir) => {
    writeJsonl(join(dir, 'in.jsonl'), EVENTS);
    const ing = JSON.parse(ok(scroll(dir, ['ingest', 'in.jsonl'])).stdout);
    assert.deepEqual(ing, { appended: 5, first_seq: 1, last_seq: 5 });
    assert.ok(existsSync(join(dir, '.scroll', 'scroll.db')), 'default --db is .scroll/scroll.db under cwd');

    const stats = JSON.parse(ok(scroll(dir, ['stats', '--json'])).stdout);
    assert.equal(stats.events, 5);
    assert.equal(stats.sessions, 2);
    assert.equal(stats.payloads, 1);
    assert.ok(stats.bytes > 0);
    assert.equal(stats.schema_version, SCHEMA_VERSION);
    assert.match(ok(scroll(dir, ['stats'])).stdout, /events\s+5/);

    const search = JSON.parse(ok(scroll(dir, ['search', 'getUserById', '--json'])).stdout);
    assert.ok(search.hits.length >= 1);
    for (const h of search.hits) for (const f of ['seq', 'score', 'kind', 'role', 'session', 'snippet']) assert.ok(f in h, f);
    assert.ok(search.hits.some((h: { seq: number }) => h.seq === 1));
    const filtered = JSON.parse(ok(scroll(dir, ['search', 'getUserById', '--kind', 'tool_result', '--json'])).stdout);
    assert.deepEqual(filtered.hits.map((h: { seq: number }) => h.seq), [3]);
    const twoKinds = JSON.parse(ok(scroll(dir, ['search', 'getUserById', '--kind', 'tool_result,user_message', '--json'])).stdout);
    assert.deepEqual(twoKinds.hits.map((h: { seq: number }) => h.seq).sort(), [1, 3]);
    const bySeq = JSON.parse(ok(scroll(dir, ['search', 'getUserById', '--seq-from', '2', '--seq-to', '3', '--json'])).stdout);
    assert.ok(bySeq.hits.every((h: { seq: number }) => h.seq >= 2 && h.seq <= 3));
    assert.match(ok(scroll(dir, ['search', 'garden', '--session', 'beta'])).stdout, /#5/);

    const shown = JSON.parse(ok(scroll(dir, ['show', '3', '--json'])).stdout);
    assert.equal(shown.length, 1);
    assert.equal(shown[0].content, EVENTS[2].content, 'payload resolved: full content');
    assert.equal(JSON.parse(ok(scroll(dir, ['show', '2..4', '--json'])).stdout).length, 3);
    assert.match(ok(scroll(dir, ['show', '4'])).stdout, /root cause: user_id missing/);

    const md = ok(scroll(dir, ['export', '--session', 'alpha', '--format', 'md'])).stdout;
    assert.match(md, /^# Scroll session alpha\n/);
    assert.match(md, /### tool_result · read_file — seq 3/);
    assert.ok(md.includes(EVENTS[2].content));
    assert.ok(!md.includes('water the garden'));

    const exported = ok(scroll(dir, ['export', '--format', 'jsonl'])).stdout;
    const rows = exported.trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(rows.length, 5);
    for (let i = 0; i < EVENTS.length; i++) {
      const src = EVENTS[i] as Record<string, unknown>;
      for (const [k, v] of Object.entries(src)) {
        if (k === 'ts') assert.equal(rows[i].ts, v);
        // Redaction records its rule set in every event's meta.
        else if (k === 'meta') assert.deepEqual(rows[i][k], { ...(v as object), redaction: REDACTION_RULESET_VERSION }, `meta of event ${i + 1}`);
        else assert.deepEqual(rows[i][k], v, `${k} of event ${i + 1}`);
      }
    }
    writeFileSync(join(dir, 'export.jsonl'), exported);
    const again = JSON.parse(ok(scroll(dir, ['ingest', 'export.jsonl', '--db', 'copy/scroll.db'])).stdout);
    assert.deepEqual(again, { appended: 5, first_seq: 1, last_seq: 5 });
    assert.equal(ok(scroll(dir, ['export', '--format', 'jsonl', '--db', 'copy/scroll.db'])).stdout, exported);
    // The same transcript; only the line's export time differs between two exports.
    const exportTimeless = (m: string) => m.replace(/ Exported \S+\.$/m, ' Exported (time).');
    assert.equal(exportTimeless(ok(scroll(dir, ['export', '--format', 'md', '--session', 'alpha', '--db', 'copy/scroll.db'])).stdout), exportTimeless(md));
    // --out writes the same bytes to a file.
    ok(scroll(dir, ['export', '--format', 'jsonl', '--out', 'out.jsonl']));
    assert.equal(readFileSync(join(dir, 'out.jsonl'), 'utf8'), exported);
  });
});

test('reindex rebuilds the search index from the events', () => {
  withDir((dir) => {
    writeJsonl(join(dir, 'in.jsonl'), EVENTS);
    ok(scroll(dir, ['ingest', 'in.jsonl']));
    const before = ok(scroll(dir, ['search', 'getUserById', '--json'])).stdout;
    assert.deepEqual(JSON.parse(ok(scroll(dir, ['reindex', '--json'])).stdout).events, 5);
    assert.equal(ok(scroll(dir, ['search', 'getUserById', '--json'])).stdout, before);
  });
});

test('compact merges the search index into one segment; search prints the same', () => {
  withDir((dir) => {
    writeJsonl(join(dir, 'in.jsonl'), EVENTS);
    // Each ingest is one transaction and leaves a segment of its own.
    for (let i = 0; i < 6; i++) ok(scroll(dir, ['ingest', 'in.jsonl']));
    const before = ok(scroll(dir, ['search', 'getUserById', '--k', '20', '--json'])).stdout;
    const r = JSON.parse(ok(scroll(dir, ['compact', '--json'])).stdout);
    assert.ok(r.segmentsBefore >= 2, JSON.stringify(r));
    assert.equal(r.segmentsAfter, 1);
    assert.ok(r.steps >= 1);
    assert.equal(ok(scroll(dir, ['search', 'getUserById', '--k', '20', '--json'])).stdout, before);
    assert.match(ok(scroll(dir, ['compact'])).stdout, /search index: 1 segment\(s\) → 1/);
    assert.match(ok(scroll(dir, ['--help'])).stdout + ok(scroll(dir, ['compact', '--help'])).stdout, /compact/);
  });
});

test('ingest from stdin, with --session for lines that name none', () => {
  withDir((dir) => {
    const r = JSON.parse(ok(scroll(dir, ['ingest', '-', '--session', 'piped'], '{"kind":"note","role":"system","content":"from a pipe"}\n\n')).stdout);
    assert.deepEqual(r, { appended: 1, first_seq: 1, last_seq: 1 });
    const shown = JSON.parse(ok(scroll(dir, ['show', '1', '--json'])).stdout);
    assert.equal(shown[0].session, 'piped');
    const empty = JSON.parse(ok(scroll(dir, ['ingest', '-'], '')).stdout);
    assert.deepEqual(empty, { appended: 0, first_seq: null, last_seq: null });
  });
});

test('search --batch: one line per query with seq and score', () => {
  withDir((dir) => {
    writeJsonl(join(dir, 'in.jsonl'), EVENTS);
    ok(scroll(dir, ['ingest', 'in.jsonl']));
    writeJsonl(join(dir, 'q.jsonl'), [
      { id: 'q1', query: 'getUserById', k: 2 },
      { id: 7, query: 'garden', session: 'beta' },
      { id: 'q3', query: 'user_id', kind: 'model_turn' },
      { id: 'q4', query: '"(((NEAR *' },
    ]);
    const lines = ok(scroll(dir, ['search', '--batch', 'q.jsonl'])).stdout.trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((l) => l.id), ['q1', 7, 'q3', 'q4']);
    assert.ok(lines[0].hits.length >= 1 && lines[0].hits.length <= 2);
    assert.deepEqual(Object.keys(lines[0].hits[0]).sort(), ['score', 'seq']);
    assert.deepEqual(lines[1].hits.map((h: { seq: number }) => h.seq), [5]);
    assert.deepEqual(lines[2].hits.map((h: { seq: number }) => h.seq), [4]);
    assert.ok(Array.isArray(lines[3].hits));
    writeFileSync(join(dir, 'bad.jsonl'), '{"id":1,"query":"x"}\n{"id":2}\n');
    const bad = scroll(dir, ['search', '--batch', 'bad.jsonl']);
    assert.equal(bad.code, 1);
    assert.equal(bad.stdout, '');
    assert.match(bad.stderr, /line 2 of bad\.jsonl: "query" is required/);
  });
});

test('bad input: a clear one-line error, non-zero exit, nothing half-written', () => {
  withDir((dir) => {
    writeJsonl(join(dir, 'in.jsonl'), EVENTS.slice(0, 2));
    ok(scroll(dir, ['ingest', 'in.jsonl']));
    const oneLine = (r: Run) => {
      assert.notEqual(r.code, 0);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr, /^scroll/);
      return r.stderr;
    };
    writeFileSync(join(dir, 'broken.jsonl'), '{"kind":"note","role":"system","content":"one"}\n{"kind":"note","role":"system","content":"two"}\n{"kind": "note", oops}\n');
    assert.match(oneLine(scroll(dir, ['ingest', 'broken.jsonl'])), /line 3 of broken\.jsonl: not valid JSON/);
    writeFileSync(join(dir, 'missing.jsonl'), '{"kind":"note","role":"system","content":"one"}\n{"kind":"note","content":"no role"}\n');
    assert.match(oneLine(scroll(dir, ['ingest', 'missing.jsonl'])), /line 2 of missing\.jsonl: "role" is required/);
    writeFileSync(join(dir, 'badts.jsonl'), '{"kind":"note","role":"system","content":"one"}\n\n{"kind":"note","role":"system","content":"x","ts":"last tuesday"}\n');
    assert.match(oneLine(scroll(dir, ['ingest', 'badts.jsonl'])), /line 3 of badts\.jsonl: "ts" must be an ISO 8601 time/);
    // Deep in a long input: batches are prepared on a worker, several at once; the line is still named.
    const long = Array.from({ length: 2500 }, (_, i) => JSON.stringify({ kind: 'note', role: 'system', content: `n${i}`, ts: i === 1699 ? 'soon' : '2026-11-30T00:00:00Z' }));
    writeFileSync(join(dir, 'long.jsonl'), long.join('\n') + '\n');
    assert.match(oneLine(scroll(dir, ['ingest', 'long.jsonl'])), /line 1700 of long\.jsonl: "ts" must be an ISO 8601 time \(got "soon"\)/);
    writeFileSync(join(dir, 'arr.jsonl'), '[1,2]\n');
    assert.match(oneLine(scroll(dir, ['ingest', 'arr.jsonl'])), /line 1 of arr\.jsonl: expected a JSON object/);
    assert.match(oneLine(scroll(dir, ['ingest', 'nope.jsonl'])), /cannot read nope\.jsonl/);
    // Nothing from the failed ingests reached the log.
    assert.equal(JSON.parse(ok(scroll(dir, ['stats', '--json'])).stdout).events, 2);

    assert.match(oneLine(scroll(dir, ['show', '99'])), /no event with seq 99 \(the log holds 1\.\.2\)/);
    assert.match(oneLine(scroll(dir, ['show', '50..60'])), /no events in 50\.\.60/);
    assert.match(oneLine(scroll(dir, ['show', 'abc'])), /expected SEQ or A\.\.B/);
    assert.match(oneLine(scroll(dir, ['search', 'x', '--k', 'ten'])), /--k expects an integer/);
    assert.match(oneLine(scroll(dir, ['export', '--format', 'pdf'])), /--format md or --format jsonl/);
    assert.match(oneLine(scroll(dir, ['export', '--format', 'md', '--session', 'nosuch'])), /no session "nosuch"/);
    assert.match(oneLine(scroll(dir, ['frobnicate'])), /unknown command "frobnicate"/);
    assert.equal(scroll(dir, ['search', 'x', '--bogus']).code, 2);
    assert.match(oneLine(scroll(dir, ['stats', '--db', 'elsewhere/none.db'])), /no event log at .*elsewhere\/none\.db/);
    assert.equal(existsSync(join(dir, 'elsewhere')), false, 'readers create nothing');
  });
});

test('a bad line after the first committed-to-transaction batch still leaves the log untouched', () => {
  withDir((dir) => {
    const good = Array.from({ length: 5200 }, (_, i) => JSON.stringify({ kind: 'note', role: 'system', content: `bulk line ${i}` }));
    writeFileSync(join(dir, 'big.jsonl'), good.join('\n') + '\n{"kind":"note","role":"system"}\n');
    const r = scroll(dir, ['ingest', 'big.jsonl']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /line 5201 of big\.jsonl: "content" is required/);
    // The log was created (the first 5000 lines were appended inside the transaction), then rolled back.
    assert.equal(JSON.parse(ok(scroll(dir, ['stats', '--json'])).stdout).events, 0);
    writeFileSync(join(dir, 'big.jsonl'), good.join('\n') + '\n');
    assert.deepEqual(JSON.parse(ok(scroll(dir, ['ingest', 'big.jsonl'])).stdout), { appended: 5200, first_seq: 1, last_seq: 5200 });
  });
});

test('scroll ingest killed with SIGKILL midway: all or nothing of the file, database passes quick_check', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-cli-kill-'));
  try {
    writeJsonl(join(dir, 'first.jsonl'), EVENTS.slice(0, 3));
    ok(scroll(dir, ['ingest', 'first.jsonl']));
    const lines = Array.from({ length: 30_000 }, (_, i) => JSON.stringify({ kind: 'note', role: 'system', content: `streamed event ${i} ${'with some filler words '.repeat(8)}` }));
    writeFileSync(join(dir, 'big.jsonl'), lines.join('\n') + '\n');
    const child = spawn(process.execPath, [CLI, 'ingest', 'big.jsonl'], { cwd: dir, stdio: 'ignore' });
    const wal = join(dir, '.scroll', 'scroll.db-wal');
    // Kill once the transaction is visibly under way (its pages reach the WAL), or when it ends.
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    let finished = false;
    void exited.then(() => (finished = true));
    while (!finished && !(existsSync(wal) && statSync(wal).size > 2_000_000)) await new Promise((r) => setTimeout(r, 10));
    child.kill('SIGKILL');
    await exited;
    const stats = JSON.parse(ok(scroll(dir, ['stats', '--json'])).stdout);
    assert.ok(stats.events === 3 || stats.events === 3 + lines.length, `events: ${stats.events}`);
    const check = spawnSync(process.execPath, ['-e', `const { openDatabase } = require(${JSON.stringify(join(__dirname, '..', '..', '..', 'src', 'core', 'db'))}); const db = openDatabase(process.argv[1]); console.log(db.prepare('PRAGMA quick_check').all().map((r) => r.quick_check).join(','));`, join(dir, '.scroll', 'scroll.db')], { encoding: 'utf8', env: process.env });
    assert.equal(check.stdout.trim(), 'ok', check.stderr);
    // The log keeps working afterwards.
    assert.equal(JSON.parse(ok(scroll(dir, ['ingest', 'first.jsonl'])).stdout).appended, 3);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('hostile search input never crashes the CLI', () => {
  withDir((dir) => {
    writeJsonl(join(dir, 'in.jsonl'), EVENTS);
    ok(scroll(dir, ['ingest', 'in.jsonl']));
    for (const q of ['"', '(', 'NEAR(a b)', '*', '-', 'a OR', 'x'.repeat(10_000), '   ', 'getUserById"*)']) {
      const r = scroll(dir, ['search', '--json', '--', q]);
      assert.equal(r.code, 0, `query ${JSON.stringify(q.slice(0, 20))}: ${r.stderr}`);
      assert.ok(Array.isArray(JSON.parse(r.stdout).hits));
    }
  });
});

test('help: overview and per-command usage', () => {
  withDir((dir) => {
    const overview = ok(scroll(dir, ['--help'])).stdout;
    for (const c of ['ingest', 'search', 'show', 'stats', 'export']) assert.match(overview, new RegExp(`^  ${c}\\b`, 'm'));
    assert.match(ok(scroll(dir, ['search', '--help'])).stdout, /--batch/);
    assert.equal(scroll(dir, []).code, 2);
  });
});

test('check: a healthy log exits 0; a missing and a damaged payload exit 1 naming the events', () => {
  withDir((dir) => {
    writeJsonl(join(dir, 'in.jsonl'), [...EVENTS, { kind: 'tool_result', role: 'tool', content: 'second big output\n'.repeat(800), session: 'alpha' }]);
    ok(scroll(dir, ['ingest', 'in.jsonl']));
    const { chain, ...healthy } = JSON.parse(ok(scroll(dir, ['check', '--json'])).stdout);
    assert.deepEqual(healthy, { ok: true, database: [], index: [], payloads: { checked: 2, missing: [], damaged: [] }, advice: '' });
    assert.equal(chain.ok, true); // the tamper-evidence part (chain.test.ts)
    assert.match(ok(scroll(dir, ['check'])).stdout, /database\s+ok\nindex\s+ok\npayloads\s+2 checked/);

    const db = openDatabase(join(dir, '.scroll', 'scroll.db'), { readonly: true });
    const rows = db.prepare('SELECT seq, payload FROM events WHERE payload IS NOT NULL ORDER BY seq').all() as { seq: number; payload: string }[];
    db.close();
    const file = (h: string) => join(dir, '.scroll', 'payloads', h.slice(0, 2), h);
    rmSync(file(rows[0].payload));
    writeFileSync(file(rows[1].payload), 'not what was stored');
    const r = scroll(dir, ['check', '--json']);
    assert.equal(r.code, 1, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.equal(report.ok, false);
    assert.deepEqual(report.payloads, { checked: 2, missing: [Number(rows[0].seq)], damaged: [Number(rows[1].seq)] });
    assert.deepEqual(report.database, []);
    assert.match(report.advice, /payload file is missing or damaged/);
    assert.match(scroll(dir, ['check']).stdout, new RegExp(`missing for events ${rows[0].seq}, damaged for events ${rows[1].seq}`));
  });
});

test('check: a scrambled search index is reported as the index only, and scroll reindex repairs it', (t) => {
  if (spawnSync('python3', ['-c', 'import sqlite3']).status !== 0) {
    t.skip('python3 with sqlite3 is needed to write into FTS5 shadow tables');
    return;
  }
  withDir((dir) => {
    writeJsonl(join(dir, 'in.jsonl'), Array.from({ length: 300 }, (_, i) => ({ kind: 'note', role: 'user', content: `deploy timeout ${i} retry cache` })));
    ok(scroll(dir, ['ingest', 'in.jsonl']));
    const path = join(dir, '.scroll', 'scroll.db');
    const scramble = spawnSync('python3', ['-c', 'import sqlite3, sys\nc = sqlite3.connect(sys.argv[1])\nc.execute("UPDATE events_fts_data SET block = X\'00\' WHERE id > 10")\nc.commit()', path], { encoding: 'utf8' });
    assert.equal(scramble.status, 0, scramble.stderr);
    const r = scroll(dir, ['check', '--json']);
    assert.equal(r.code, 1, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.deepEqual(report.database, []);
    assert.ok(report.index.length > 0, JSON.stringify(report));
    assert.match(report.advice, /scroll reindex/);
    ok(scroll(dir, ['reindex']));
    assert.equal(JSON.parse(ok(scroll(dir, ['check', '--json'])).stdout).ok, true);
  });
});

test('check: a damaged page in the index storage is damage to the log file (the open check moves it aside), reported, not thrown', () => {
  withDir((dir) => {
    writeJsonl(join(dir, 'in.jsonl'), Array.from({ length: 300 }, (_, i) => ({ kind: 'note', role: 'user', content: `deploy timeout ${i} retry cache` })));
    ok(scroll(dir, ['ingest', 'in.jsonl']));
    const path = join(dir, '.scroll', 'scroll.db');
    const probe = openDatabase(path, { readonly: true });
    const pageSize = Number(probe.prepare('PRAGMA page_size').get().page_size);
    const page = Number((probe.prepare("SELECT pageno FROM dbstat WHERE name = 'events_fts_data' AND pagetype = 'leaf' ORDER BY pageno").get() as { pageno: number }).pageno);
    probe.close();
    const bytes = readFileSync(path);
    bytes.fill(0, (page - 1) * pageSize, (page - 1) * pageSize + 16);
    writeFileSync(path, bytes);
    const r = scroll(dir, ['check', '--json']);
    assert.equal(r.code, 1, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.ok(report.database.some((m: string) => /events_fts_data/.test(m)), JSON.stringify(report));
    assert.deepEqual(report.index, []);
    assert.match(report.advice, /moved aside/);
  });
});

test('search --source: only events captured from that agent (meta.source), in single queries and --batch lines; a mistyped source exits 2', () => {
  withDir((dir) => {
    const lines = [
      { session: 'claude-code:s1', kind: 'user_message', role: 'user', content: 'the retry cap is five', meta: { source: 'claude-code' } },
      { session: 'codex:r1', kind: 'user_message', role: 'user', content: 'the retry cap is six', meta: { source: 'codex' } },
      { session: 'mine', kind: 'user_message', role: 'user', content: 'the retry cap is seven' },
    ].map((e) => JSON.stringify(e)).join('\n');
    ok(scroll(dir, ['ingest', '-'], lines + '\n'));
    const all = JSON.parse(ok(scroll(dir, ['search', 'retry cap', '--json'])).stdout);
    assert.equal(all.hits.length, 3);
    const codex = JSON.parse(ok(scroll(dir, ['search', 'retry cap', '--source', 'codex', '--json'])).stdout);
    assert.deepEqual(codex.hits.map((h: { seq: number }) => h.seq), [2]);
    const batch = [{ id: 'a', query: 'retry cap', source: 'claude-code' }, { id: 'b', query: 'retry cap' }].map((q) => JSON.stringify(q)).join('\n');
    const out = ok(scroll(dir, ['search', '--batch', '-'], batch + '\n')).stdout.trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(out[0].hits.map((h: { seq: number }) => h.seq), [1]);
    assert.equal(out[1].hits.length, 3);
    const typo = scroll(dir, ['search', 'retry', '--source', 'claude_code']);
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /unknown --source claude_code \(did you mean claude-code\?\): sources are claude-code, codex/);
    const badLine = scroll(dir, ['search', '--batch', '-'], JSON.stringify({ id: 'x', query: 'retry', source: 'codx' }) + '\n');
    assert.notEqual(badLine.code, 0);
    assert.match(badLine.stderr, /line 1 of stdin: unknown "source" codx \(did you mean codex\?\)/);
  });
});
