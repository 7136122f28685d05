// Capture at scale: a synthetic Claude Code history (session files as Claude Code writes them: user
// messages, assistant text with thinking, tool calls, long tool outputs, file reads whose content
// the record's toolUseResult repeats, edits with diffs), imported with `scroll import`, side by side
// with `scroll ingest` of the same events (what the reader makes of them, as JSONL) in the same run.
// Figures: throughput (import vs ingest, target ≥ 0.6×), peak RSS of each process (target ≤ 300 MB),
// re-import of the unchanged files (target ≤ 5 % of the first import's time), and search p50/p99 on
// the imported log against a plain FTS5 table holding the same text (the floor).
// The history is generated once into ${SCROLL_DEV_CACHE:-~/.cache/scroll-dev}/bench/capture-<size>/
// (free disk is checked first) and reused.
// Each child's CPU time (user + system, its own rusage, bench/lib/childUsage.cjs) is printed beside
// wall time: the machine these run on is shared. --baseline DIR also imports with the build in DIR
// (a checkout with out/ built, e.g. a worktree at main's commit), in the same run, for before/after.
// Usage: node bench/capture.bench.mjs [--size 1G|256M|…] [--queries 200] [--rounds 1] [--baseline DIR]
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, renameSync, rmSync, statfsSync, statSync, writeSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { HistoryGenerator } from './lib/synthetic.mjs';
import { SMOKE, check, openFloor, option, pct, timeIt, verdict } from './lib/measure.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const parseSize = (s) => {
  const m = /^(\d+(?:\.\d+)?)([KMG]?)B?$/i.exec(s);
  if (!m) throw new Error(`--size expects bytes such as 1G, 256M or 500K (got ${s})`);
  return Math.round(Number(m[1]) * 1024 ** ({ '': 0, K: 1, M: 2, G: 3 }[m[2].toUpperCase()]));
};
const sizeText = option(args, '--size', SMOKE ? '2M' : '1G');
const size = parseSize(sizeText);
const nQueries = Number(option(args, '--queries', SMOKE ? 10 : 200));
const rounds = Number(option(args, '--rounds', 1));
const baselineDir = option(args, '--baseline', undefined);
const K = 10;

const core = join(root, 'out', 'src', 'core');
if (!existsSync(join(core, 'capture', 'index.js'))) {
  console.error('capture bench: run `npx tsc -p .` first (needs out/src/core)');
  process.exit(2);
}
const { readClaudeCodeRecord } = require(join(core, 'capture', 'index.js'));
const { EventLog } = require(join(core, 'log', 'eventLog.js'));
const { parseQuery, BROADEN_BELOW } = require(join(core, 'search', 'index.js'));
const { FTS_TOKENIZE } = require(join(core, 'log', 'schema.js'));
const CLI = join(root, 'out', 'src', 'cli', 'main.js');
const BASELINE_CLI = baselineDir && join(baselineDir, 'out', 'src', 'cli', 'main.js');
if (BASELINE_CLI && !existsSync(BASELINE_CLI)) throw new Error(`--baseline: no ${BASELINE_CLI} (build it there: npx tsc -p .)`);
const USAGE = join(root, 'bench', 'lib', 'childUsage.cjs');
const WORKSPACE = '/bench/workspace';

const cacheRoot = SMOKE ? mkdtempSync(join(tmpdir(), 'scroll-capture-bench-')) : join(process.env.SCROLL_DEV_CACHE || join(homedir(), '.cache', 'scroll-dev'), 'bench');
const data = join(cacheRoot, `capture-${sizeText}`);
const home = join(data, 'home');
const projects = join(home, '.claude', 'projects', WORKSPACE.replace(/[^A-Za-z0-9]/g, '-'));
const ingestFile = join(data, 'ingest.jsonl');
const fmt = (x, d = 2) => (x >= 100 ? x.toFixed(0) : x.toFixed(d));
const mb = (b) => `${(b / 1024 / 1024).toFixed(0)} MB`;

/** Buffered appends to a file (the generator never holds more than a megabyte). */
function writer(path) {
  const fd = openSync(path, 'w');
  let buf = [];
  let n = 0;
  let bytes = 0;
  const flush = () => {
    if (buf.length) writeSync(fd, buf.join(''));
    buf = [];
    n = 0;
  };
  return {
    line(s) {
      buf.push(s, '\n');
      n += s.length + 1;
      bytes += Buffer.byteLength(s) + 1;
      if (n > 1 << 20) flush();
    },
    get bytes() {
      return bytes;
    },
    close() {
      flush();
      closeSync(fd);
    },
  };
}

function generate() {
  mkdirSync(data, { recursive: true });
  const free = statfsSync(data).bavail * statfsSync(data).bsize;
  // The history, its ingest copy, and two logs of about its size each.
  if (free < size * 5) throw new Error(`capture bench: ${mb(free)} free in ${data}, need about ${mb(size * 5)} for a ${sizeText} history (try --size 256M)`);
  const tmp = `${projects}.partial`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const gen = new HistoryGenerator(11, { corpus: 2 });
  const ingest = writer(`${ingestFile}.partial`);
  let total = 0;
  let events = 0;
  let t = Date.parse('2026-01-01T00:00:00Z');
  const perSession = SMOKE ? 200 : 3000;
  while (total < size) {
    const sessionId = randomUUID();
    const file = join(tmp, `${sessionId}.jsonl`);
    const out = writer(file);
    let parent = null;
    let pendingCall = null;
    for (let i = 0; i < perSession && total + out.bytes < size; i++) {
      const e = gen.event(sessionId, new Date((t += 4000)).toISOString());
      const uuid = randomUUID();
      const base = { parentUuid: parent, isSidechain: false, userType: 'external', cwd: WORKSPACE, sessionId, version: '2.0.14', gitBranch: 'main', uuid, timestamp: e.ts };
      let rec;
      if (e.kind === 'user_message') rec = { ...base, type: 'user', message: { role: 'user', content: e.content } };
      else if (e.kind === 'model_turn') {
        const blocks = [];
        if (gen.rand() < 0.3) blocks.push({ type: 'thinking', thinking: gen.prose(2 + gen.int(4)), signature: 'Eq' + uuid.replace(/-/g, '') });
        blocks.push({ type: 'text', text: e.content });
        rec = { ...base, type: 'assistant', requestId: `req_${uuid.slice(0, 8)}`, message: { id: `msg_${uuid.slice(0, 12)}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: blocks, usage: { input_tokens: 1000 + gen.int(9000), output_tokens: gen.int(900) } } };
      } else if (e.kind === 'tool_call') {
        const r = gen.rand();
        const id = `toolu_${uuid.replace(/-/g, '').slice(0, 24)}`;
        const name = r < 0.4 ? 'Read' : r < 0.55 ? 'Edit' : 'Bash';
        const input = name === 'Read' ? { file_path: `${WORKSPACE}/${gen.path()}` } : name === 'Edit' ? { file_path: `${WORKSPACE}/${gen.path()}`, old_string: gen.code(2 + gen.int(6)), new_string: gen.code(2 + gen.int(8)) } : { command: e.content, description: gen.prose(1) };
        pendingCall = { id, name, input };
        rec = { ...base, type: 'assistant', message: { id: `msg_${uuid.slice(0, 12)}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [{ type: 'tool_use', id, name, input }] } };
      } else {
        const call = pendingCall ?? { id: `toolu_${uuid.slice(0, 8)}`, name: 'Bash', input: {} };
        pendingCall = null;
        let content = e.content;
        let detail;
        if (call.name === 'Read') {
          // A file read: long, numbered lines; Claude Code keeps the file's text in toolUseResult too.
          const text = gen.code(60 + gen.int(gen.rand() < 0.1 ? 1500 : 300));
          content = text.split('\n').map((l, k) => `${String(k + 1).padStart(6)}\t${l}`).join('\n');
          detail = { type: 'text', file: { filePath: call.input.file_path, content: text, numLines: text.split('\n').length, startLine: 1, totalLines: text.split('\n').length } };
        } else if (call.name === 'Edit') {
          const original = gen.code(40 + gen.int(200));
          content = `The file ${call.input.file_path} has been updated.`;
          detail = { filePath: call.input.file_path, oldString: call.input.old_string, newString: call.input.new_string, originalFile: original,
            structuredPatch: [{ oldStart: 10, oldLines: 3, newStart: 10, newLines: 4, lines: call.input.old_string.split('\n').map((l) => `-${l}`).concat(call.input.new_string.split('\n').map((l) => `+${l}`)) }] };
        } else detail = { stdout: content, stderr: '', interrupted: false, isImage: false };
        const isError = /failing|Error/.test(content) && gen.rand() < 0.5;
        rec = { ...base, type: 'user', message: { role: 'user', content: [{ tool_use_id: call.id, type: 'tool_result', content, is_error: isError }] }, toolUseResult: detail };
      }
      parent = uuid;
      const line = JSON.stringify(rec);
      out.line(line);
      // The same events as `scroll ingest` takes them: what the reader makes of this record.
      for (const ev of readClaudeCodeRecord(rec, { path: file }).events) {
        ingest.line(JSON.stringify({ kind: ev.kind, role: ev.role, content: ev.content, session: ev.session, name: ev.name ?? undefined, ts: ev.ts, tool_call_id: ev.toolCallId ?? undefined, meta: { ...ev.meta, source: 'claude-code', capture: { record: ev.recordId } } }));
        events++;
      }
    }
    total += out.bytes;
    out.close();
  }
  ingest.close();
  rmSync(projects, { recursive: true, force: true });
  renameSync(tmp, projects);
  renameSync(`${ingestFile}.partial`, ingestFile);
  return { total, events };
}

/**
 * Runs the CLI: wall ms, peak RSS MB (VmHWM) and the peak of its anonymous part (RssAnon, polled):
 * the rest of the resident set is file pages (node's code, the database's memory map: PRAGMA mmap_size),
 * which the kernel can drop at any time.
 */
async function cli(argv, cliPath = CLI) {
  const t0 = performance.now();
  const usageFile = join(work, `usage-${randomUUID()}.json`);
  const child = spawn(process.execPath, ['-r', USAGE, cliPath, ...argv], { env: { ...process.env, HOME: home, SCROLL_BENCH_USAGE: usageFile }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  let hwm = 0;
  let anon = 0;
  const poll = setInterval(() => {
    try {
      const st = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      hwm = Math.max(hwm, Number(/VmHWM:\s+(\d+)/.exec(st)?.[1] ?? 0) / 1024);
      anon = Math.max(anon, Number(/RssAnon:\s+(\d+)/.exec(st)?.[1] ?? 0) / 1024);
    } catch {
      // exited
    }
  }, 100);
  const code = await new Promise((ok) => child.on('close', ok));
  clearInterval(poll);
  const wall = performance.now() - t0;
  if (code !== 0 && code !== 1) throw new Error(`scroll ${argv[0]} failed (${code}): ${stderr.slice(-2000)}`);
  const usage = JSON.parse(readFileSync(usageFile, 'utf8'));
  // Peak RSS: the kernel's own high-water mark (getrusage), which a 100 ms poll can miss.
  return { wall, cpu: usage.userMs + usage.systemMs, sys: usage.systemMs, rss: Math.max(hwm, usage.maxRssKiB / 1024), anon: anon || NaN, stdout };
}

const files = () => (existsSync(projects) ? readdirSync(projects).filter((f) => f.endsWith('.jsonl')) : []);
let generated = '';
if (!existsSync(ingestFile) || files().length === 0) {
  const [, g, w] = timeIt(generate);
  generated = ` (generated now in ${fmt(w / 1000)} s: ${g.events} events)`;
}
const historyBytes = files().reduce((n, f) => n + statSync(join(projects, f)).size, 0);
console.log(`history: ${files().length} Claude Code session files, ${mb(historyBytes)} in ${projects}${generated}; ingest copy ${mb(statSync(ingestFile).size)}`);

const work = mkdtempSync(join(SMOKE ? cacheRoot : tmpdir(), 'scroll-capture-run-'));
try {
  const runs = { import: [], ingest: [], reimport: [], baseline: [], baselineReimport: [] };
  let importDb;
  let imported;
  for (let r = 0; r < rounds; r++) {
    // Alternating order across rounds, so both see the same machine.
    const order = r % 2 === 0 ? ['ingest', 'import'] : ['import', 'ingest'];
    if (BASELINE_CLI) order.splice(r % 2 === 0 ? 1 : 2, 0, 'baseline');
    for (const what of order) {
      const db = join(work, `${what}-${r}`, 'scroll.db');
      if (what === 'baseline') {
        const x = await cli(['import', 'claude-code', '--workspace', WORKSPACE, '--db', db, '--json'], BASELINE_CLI);
        runs.baseline.push({ ...x, appended: JSON.parse(x.stdout).sources[0].appended });
        runs.baselineReimport.push(await cli(['import', 'claude-code', '--workspace', WORKSPACE, '--db', db, '--json'], BASELINE_CLI));
        rmSync(join(work, `${what}-${r}`), { recursive: true, force: true });
      } else if (what === 'ingest') {
        const x = await cli(['ingest', ingestFile, '--db', db]);
        runs.ingest.push({ ...x, appended: JSON.parse(x.stdout).appended });
      } else {
        const x = await cli(['import', 'claude-code', '--workspace', WORKSPACE, '--db', db, '--json']);
        const s = JSON.parse(x.stdout).sources[0];
        check(s.problems.length === 0, `import problems: ${JSON.stringify(s.problems.slice(0, 3))}`);
        runs.import.push({ ...x, appended: s.appended });
        const again = await cli(['import', 'claude-code', '--workspace', WORKSPACE, '--db', db, '--json']);
        const s2 = JSON.parse(again.stdout).sources[0];
        check(s2.appended === 0, `re-import appended ${s2.appended}`);
        runs.reimport.push(again);
        importDb = db;
        imported = s.appended;
      }
    }
  }
  check(runs.import[0].appended === runs.ingest[0].appended, `import appended ${runs.import[0].appended}, ingest ${runs.ingest[0].appended}: the same events`);
  const best = (xs, k) => Math.min(...xs.map((x) => x[k]));
  const importMs = best(runs.import, 'wall');
  const ingestMs = best(runs.ingest, 'wall');
  const reimportMs = best(runs.reimport, 'wall');
  const importCpu = best(runs.import, 'cpu');
  const ingestCpu = best(runs.ingest, 'cpu');
  const reimportCpu = best(runs.reimport, 'cpu');

  // --- search on the imported log vs plain FTS5 holding the same text -------------------------
  const log = EventLog.open({ path: importDb, readonly: true });
  const { db: plain, insertBatch } = openFloor(join(work, 'plain.db'), FTS_TOKENIZE);
  const sample = [];
  for (let from = 1; from <= log.maxSeq(); from += 2000) {
    const batch = log.range(from, from + 1999).map((e) => ({ content: e.content, session: e.session, kind: e.kind }));
    insertBatch(batch);
    for (const e of batch) if (sample.length < 20000 && Math.random() < 0.2) sample.push(e);
  }
  const gen = new HistoryGenerator(5, { corpus: 2 });
  const queries = gen.queries(sample, nQueries).map((q) => ({ query: q.query, opts: q.opts.kind ? { kind: q.opts.kind } : {} }));
  const plainSql = (o) => `SELECT rowid FROM plain WHERE plain MATCH ?${o.kind ? ' AND kind = ?' : ''} ORDER BY rank LIMIT ?`;
  const stmts = new Map();
  const plainSearch = (q) => {
    const terms = parseQuery(q.query).terms;
    if (terms.length === 0) return [];
    const sql = plainSql(q.opts);
    if (!stmts.has(sql)) stmts.set(sql, plain.prepare(sql));
    const st = stmts.get(sql);
    const params = (expr) => [expr, ...(q.opts.kind ? [q.opts.kind] : []), K];
    const hits = st.all(...params(terms.map((t) => t.fts).join(' AND ')));
    if (terms.length > 1 && hits.length < Math.min(K, BROADEN_BELOW)) hits.push(...st.all(...params(terms.map((t) => t.fts).join(' OR '))));
    return hits.slice(0, K);
  };
  for (const q of queries.slice(0, 10)) {
    log.search(q.query, { k: K, ...q.opts });
    plainSearch(q);
  }
  const ours = [];
  const floor = [];
  for (const q of queries) {
    ours.push(timeIt(() => log.search(q.query, { k: K, ...q.opts }))[2]);
    floor.push(timeIt(() => plainSearch(q))[2]);
  }
  const tokens = Number(log.database.prepare('SELECT sum(tokens) AS t FROM events').get().t);
  log.close();
  plain.close();

  // --- report -------------------------------------------------------------------------------
  const row = (name, a, b, unit, ratio) => console.log(`${name.padEnd(34)}${String(a).padStart(14)}${String(b).padStart(14)}  ${unit.padEnd(8)}${ratio}`);
  console.log(`\n${imported} events, ${(tokens / 1e6).toFixed(1)}M tokens (chars/4); best of ${rounds} round(s); wall time (this machine is shared)`);
  row('', 'scroll import', 'scroll ingest', 'unit', 'ratio');
  const mbps = (ms) => fmt(historyBytes / 1024 / 1024 / (ms / 1000));
  row('throughput (source MB/s)', mbps(importMs), mbps(ingestMs), 'MB/s', `${(ingestMs / importMs).toFixed(2)}x of ingest (target >= 0.6x: ${verdict(ingestMs / importMs >= 0.6)})`);
  row('wall time', fmt(importMs / 1000), fmt(ingestMs / 1000), 's', `${(ingestMs / importMs).toFixed(2)}x`);
  row('CPU time (user + system)', fmt(importCpu / 1000), fmt(ingestCpu / 1000), 's', `${(ingestCpu / importCpu).toFixed(2)}x of ingest by CPU time (target >= 0.6x: ${verdict(ingestCpu / importCpu >= 0.6)})`);
  const rssImport = Math.max(...runs.import.map((x) => x.rss));
  const rssIngest = Math.max(...runs.ingest.map((x) => x.rss));
  row('peak RSS', fmt(rssImport, 0), fmt(rssIngest, 0), 'MB', `import target <= 300 MB: ${verdict(rssImport <= 300)}`);
  const anonImport = Math.max(...runs.import.map((x) => x.anon));
  const anonIngest = Math.max(...runs.ingest.map((x) => x.anon));
  row('  of it anonymous (not file pages)', fmt(anonImport, 0), fmt(anonIngest, 0), 'MB', `${verdict(anonImport <= 300)} (the rest is file pages: node's own code and the database's memory map)`);
  row('re-import of unchanged files', fmt(reimportMs / 1000), '', 's', `${((100 * reimportMs) / importMs).toFixed(1)}% of the first import (target <= 5%: ${verdict(reimportMs <= 0.05 * importMs)}; incl. node start)`);
  row('  by CPU time', fmt(reimportCpu / 1000), '', 's', `${((100 * reimportCpu) / importCpu).toFixed(1)}% of the first import's`);
  row('  its peak RSS', fmt(Math.max(...runs.reimport.map((x) => x.rss)), 0), '', 'MB', '');
  if (runs.baseline.length) {
    check(runs.baseline[0].appended === runs.import[0].appended, `baseline appended ${runs.baseline[0].appended}, this build ${runs.import[0].appended}`);
    row('', 'this build', `--baseline`, '', `(${baselineDir})`);
    row('import CPU time', fmt(importCpu / 1000), fmt(best(runs.baseline, 'cpu') / 1000), 's', `${(importCpu / best(runs.baseline, 'cpu')).toFixed(2)}x of the baseline's`);
    row('import wall time', fmt(importMs / 1000), fmt(best(runs.baseline, 'wall') / 1000), 's', '');
    row('import peak RSS', fmt(rssImport, 0), fmt(Math.max(...runs.baseline.map((x) => x.rss)), 0), 'MB', '');
    row('  of it anonymous', fmt(anonImport, 0), fmt(Math.max(...runs.baseline.map((x) => x.anon)), 0), 'MB', '');
    row('re-import peak RSS', fmt(Math.max(...runs.reimport.map((x) => x.rss)), 0), fmt(Math.max(...runs.baselineReimport.map((x) => x.rss)), 0), 'MB', '');
    row('re-import CPU time', fmt(reimportCpu / 1000), fmt(best(runs.baselineReimport, 'cpu') / 1000), 's', '');
  }
  row('', 'scroll search', 'plain FTS5', '', '');
  row(`search p50 (${queries.length} queries)`, fmt(pct(ours, 50)), fmt(pct(floor, 50)), 'ms', `${(pct(ours, 50) / pct(floor, 50)).toFixed(2)}x`);
  row('search p99', fmt(pct(ours, 99)), fmt(pct(floor, 99)), 'ms', `${(pct(ours, 99) / pct(floor, 99)).toFixed(2)}x (targets: <= 1.3x, p99 <= 250 ms at ~250M tokens)`);
} finally {
  rmSync(work, { recursive: true, force: true });
  if (SMOKE) rmSync(cacheRoot, { recursive: true, force: true });
}
