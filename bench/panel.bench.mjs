// History panel, host side, on a log of about 10M tokens: how long the extension takes to answer
// the panel's requests and how big the messages are. Each figure is printed next to a baseline
// measured in the same run:
//   first search page (count pass + snippet page, what the panel sends)  vs  one plain
//   `log.search(q, {k: page})` — the price of the total count
//   message bytes per page  vs  the log's size on disk — the panel never receives the whole log
// Target (issue 7): results render within 150 ms of the debounced keystroke; the host share is
// measured here, the browser share by the end-to-end test (test/e2e/panel*).
// Usage: node bench/panel.bench.mjs [--tokens N] [--runs N] [--keep DIR]  (needs `npx tsc -p .`)
// Smoke size (SCROLL_BENCH_SMOKE=1): 200k tokens, 2 runs of each request.
import { createRequire } from 'node:module';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SMOKE, check } from './lib/measure.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : dflt;
};
const TOKENS = Number(arg('--tokens', SMOKE ? 200_000 : 10_000_000));
const RUNS = Number(arg('--runs', SMOKE ? 2 : 15));
const keepDir = arg('--keep', undefined);

let EventLog, EventLogPanelSource, PanelRequestHandler, PAGE, HIT_CAP, eventFacets, sessionsSql, facetsSql;
try {
  ({ EventLog } = require(join(root, 'out/src/core/log/eventLog.js')));
  ({ eventFacets, sessionsSql, facetsSql } = require(join(root, 'out/src/core/log/historyQueries.js')));
  ({ EventLogPanelSource } = require(join(root, 'out/src/vscode/panel/eventLogSource.js')));
  ({ PanelRequestHandler } = require(join(root, 'out/src/vscode/panel/panelRequestHandler.js')));
  ({ SEARCH_PAGE_SIZE: PAGE, HIT_CAP } = require(join(root, 'out/src/shared/panelProtocol.js')));
} catch (e) {
  console.error(`panel bench: build first (npx tsc -p .): ${e.message}`);
  process.exit(1);
}

// --- a deterministic synthetic history ---------------------------------------------------------
// mulberry32: 32-bit integer arithmetic only (a float LCG loses its low bits and cycles early).
let seed = 0x5eed;
const rand = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
};
const SYL = ['ka', 'lo', 'mi', 'ter', 'sun', 'pa', 'ri', 'dex', 'on', 'val', 'qu', 'zor', 'en', 'ti', 'bra', 'mo', 'ple', 'stan'];
const VOCAB = Array.from({ length: 6000 }, (_, i) => {
  let w = '';
  for (let n = 2 + (i % 3); n > 0; n--) w += SYL[Math.floor(rand() * SYL.length)];
  return `${w}${i % 7 === 0 ? i : ''}`;
});
// Zipf-like: word i has weight 1/(i+10).
const CUM = [];
VOCAB.reduce((s, _, i) => (CUM[i] = s + 1 / (i + 10)), 0);
const TOTAL_W = CUM[CUM.length - 1];
function word() {
  const x = rand() * TOTAL_W;
  let lo = 0, hi = CUM.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (CUM[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return VOCAB[lo];
}
function prose(chars) {
  const out = [];
  let n = 0;
  while (n < chars) {
    const w = word();
    out.push(w);
    n += w.length + 1;
  }
  return out.join(' ');
}

function buildLog(dir) {
  const log = EventLog.open({ path: join(dir, 'scroll.db'), redact: false, onWarning: () => {} });
  const sessions = 20;
  let tokens = 0;
  let step = 0;
  let ts = Date.parse('2026-01-01T00:00:00Z');
  const t0 = performance.now();
  while (tokens < TOKENS) {
    const session = `s${Math.floor((tokens / TOKENS) * sessions)}`;
    step++;
    const batch = [];
    const add = (e) => {
      batch.push({ session, ts: new Date((ts += 1500)).toISOString(), step, ...e });
      tokens += Math.ceil(e.content.length / 4);
    };
    add({ kind: 'user_message', role: 'user', content: prose(200 + rand() * 400) });
    add({ kind: 'model_turn', role: 'assistant', content: prose(300 + rand() * 900), meta: { viewTokens: Math.round(20_000 + rand() * 90_000), budget: 120_000, step } });
    add({ kind: 'tool_call', role: 'assistant', name: 'scroll_exec', content: `hits = ms.search("${word()} ${word()}", k=20)\nprint(hits)` });
    // Mostly a few KB of output; now and then a big one that goes to the payload store.
    add({ kind: 'tool_result', role: 'tool', name: 'scroll_exec', content: prose(rand() < 0.02 ? 60_000 : 1500 + rand() * 4000) });
    if (step % 25 === 0) {
      add({ kind: 'eviction', role: 'system', content: 'evicted', meta: { from_seq: Math.max(1, log.maxSeq() - 80), to_seq: log.maxSeq(), title: { task: prose(40), state: prose(30), next: prose(30) } } });
    }
    log.appendMany(batch);
  }
  return { log, tokens, buildMs: performance.now() - t0 };
}

// --- measuring ---------------------------------------------------------------------------------
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const f = (x) => `${x.toFixed(1)} ms`;
function time(fn, runs = RUNS) {
  const xs = [];
  let out;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    out = fn(i);
    xs.push(performance.now() - t0);
  }
  return { p50: pct(xs, 50), p95: pct(xs, 95), out };
}
const bytes = (o) => Buffer.byteLength(JSON.stringify(o));

const dir = keepDir ?? mkdtempSync(join(tmpdir(), 'scroll-panel-bench-'));
try {
  const fresh = !existsSync(join(dir, 'scroll.db'));
  const built = fresh ? buildLog(dir) : { log: EventLog.open({ path: join(dir, 'scroll.db'), redact: false }), tokens: NaN, buildMs: 0 };
  const log = built.log;
  const stats = log.stats();
  const logTokens = Number(log.database.prepare('SELECT SUM(tokens) AS t FROM events').get().t);
  console.log(`log: ${stats.events.toLocaleString()} events, ${stats.sessions} sessions, ${logTokens.toLocaleString()} tokens, ` +
    `${(stats.bytes / 1e6).toFixed(1)} MB db + ${(stats.payloadBytes / 1e6).toFixed(1)} MB payloads` +
    (fresh ? ` (built in ${(built.buildMs / 1000).toFixed(1)} s)` : ' (reused)'));

  const handler = new PanelRequestHandler(EventLogPanelSource.open(log));
  // Queries of different selectivity: the word ranks in the Zipf vocabulary decide how many hit.
  const queries = {
    'rare word': VOCAB[4000],
    'mid word': VOCAB[300],
    'common word': VOCAB[20],
    'two words': `${VOCAB[150]} ${VOCAB[900]}`,
    'prefix typed so far': VOCAB[60].slice(0, 4),
  };
  console.log(`\nsearch, first page of ${PAGE} (what the panel waits for after the debounce):`);
  console.log('query                 hits     panel p50/p95        plain search(k=page) p50   ratio   page msg');
  let worstP95 = 0;
  for (const [label, q] of Object.entries(queries)) {
    const panel = time(() => {
      handler.invalidate();
      return handler.search(q, {}, 0, PAGE);
    });
    const plain = time(() => log.search(q, { k: PAGE }));
    worstP95 = Math.max(worstP95, panel.p95);
    const page = panel.out;
    check(page.hits.length <= PAGE && page.hits.length <= page.total, `${label}: a page of ${page.hits.length} hits of ${page.total}`);
    if (label === 'common word') check(page.total > 0 && page.hits.length > 0, `the common word "${q}" found nothing`);
    console.log(`${label.padEnd(20)} ${String(page.total + (page.capped ? '+' : '')).padStart(6)}   ${f(panel.p50).padStart(9)} / ${f(panel.p95).padStart(9)}   ${f(plain.p50).padStart(9)}              ` +
      `${(panel.p50 / plain.p50).toFixed(2).padStart(5)}   ${(bytes(page) / 1024).toFixed(1)} KB`);
  }
  const mid = queries['mid word'];
  handler.search(mid, {}, 0, PAGE);
  const deep = time((i) => handler.search(mid, {}, Math.min(HIT_CAP - PAGE, PAGE * 5 * (i + 1)), PAGE));
  console.log(`\nscrolling: a later page of ${PAGE} (total cached) p50 ${f(deep.p50)}, p95 ${f(deep.p95)}`);
  const filtered = time(() => {
    handler.invalidate();
    return handler.search(mid, { kind: ['tool_result'], session: 's3' }, 0, PAGE);
  });
  console.log(`filtered (kind + session) first page p50 ${f(filtered.p50)}, p95 ${f(filtered.p95)}, ${filtered.out.total} hits`);

  const bigRow = log.database.prepare('SELECT seq, bytes FROM events WHERE payload IS NOT NULL ORDER BY bytes DESC LIMIT 1').get();
  if (bigRow) {
    const ex = time(() => handler.expand(bigRow.seq, bigRow.seq));
    console.log(`\nexpand the largest event (${(bigRow.bytes / 1024).toFixed(0)} KB, payload): p50 ${f(ex.p50)}; message ${(bytes(ex.out) / 1024).toFixed(1)} KB (content capped, rest on demand)`);
  }
  const rangeFrom = Math.max(1, Math.min(1000, stats.events - 50 * RUNS)); // 1000 but in a small log (smoke size)
  const rangeT = time((i) => handler.expand(rangeFrom + i * 50, 1_000_000));
  check(rangeT.out.events.length > 0, `expanding from seq ${rangeFrom + (RUNS - 1) * 50} gave no events`);
  console.log(`expand a range, one page of 50 events: p50 ${f(rangeT.p50)}, message ${(bytes(rangeT.out) / 1024).toFixed(1)} KB`);
  const sessions = log.sessions().sort((a, b) => b.events - a.events);
  const biggest = sessions[0].session;
  const tl = time(() => handler.timeline(biggest), 5);
  console.log(`timeline of the biggest session (${sessions[0].events.toLocaleString()} events): p50 ${f(tl.p50)}, ${tl.out.points.length} points, ${(bytes(tl.out) / 1024).toFixed(1)} KB`);
  const ix = time(() => handler.index(biggest), 5);
  console.log(`eviction index of that session: p50 ${f(ix.p50)}, ${ix.out.segments} segments, ${(bytes(ix.out) / 1024).toFixed(1)} KB`);
  // The panel asks for the sessions each time the log grows: timed right after an append, next to
  // the whole-table grouping that answered before (the same SQL over every event, same run).
  const grownMs = [];
  let listed;
  for (let i = 0; i < 5; i++) {
    log.append({ kind: 'note', role: 'user', content: `panel bench append ${i}`, session: 's0' });
    const t0 = performance.now();
    listed = handler.sessions();
    grownMs.push(performance.now() - t0);
  }
  const wholeTable = log.database.prepare(
    'SELECT session, MIN(seq) AS firstSeq, MAX(seq) AS lastSeq, MIN(ts) AS firstTs, MAX(ts) AS lastTs, COUNT(*) AS events, SUM(tokens) AS tokens FROM events GROUP BY session ORDER BY MIN(seq)',
  );
  const whole = time(() => wholeTable.all(), 5);
  check(JSON.stringify(listed.map((x) => [x.session, x.events, x.tokens, x.lastSeq])) === JSON.stringify(whole.out.map((x) => [x.session, x.events, Number(x.tokens), x.lastSeq])), 'the sessions list differs from the whole-table grouping');
  const fa = time(() => handler.facets(), 5);
  console.log(`sessions list after an append p50 ${f(pct(grownMs, 50))} (the whole-table grouping: p50 ${f(whole.p50)}); facets (kinds, roles) p50 ${f(fa.p50)}`);
  // A window opening the panel: its first sessions list and filters, on a connection of its own
  // (nothing kept yet), next to the same listing read through the rows by seq (schema 4's plan),
  // each on a new connection too, interleaved, same run. The OS cache is warm for both; a cold
  // read (the first window after a restart) widens the gap (docs/PERFORMANCE.md).
  const firstOpen = [];
  const throughRows = [];
  for (let i = 0; i < RUNS; i++) {
    const c = EventLog.open({ path: log.path, readonly: true });
    let t0 = performance.now();
    const listedFirst = c.sessions();
    eventFacets(c, false);
    firstOpen.push(performance.now() - t0);
    const max = c.maxSeq();
    t0 = performance.now();
    const rowsRead = c.database.prepare(sessionsSql(1)).all(0, max);
    c.database.prepare(facetsSql(1)).all(0, max);
    throughRows.push(performance.now() - t0);
    check(listedFirst.length === rowsRead.length, 'the first sessions list and the listing through the rows differ');
    c.close();
  }
  console.log(`first sessions list and filters on a new connection (the panel opening) p50 ${f(pct(firstOpen, 50))} (read through the rows: p50 ${f(pct(throughRows, 50))})`);
  const logBytes = stats.bytes + stats.payloadBytes;
  console.log(`\nlargest message above vs the log on disk: the panel never holds more than a page (log ${(logBytes / 1e6).toFixed(0)} MB)`);
  console.log(`worst first-page p95 on the host: ${f(worstP95)} (budget 150 ms incl. the browser render)`);
  log.close();
} finally {
  if (!keepDir) rmSync(dir, { recursive: true, force: true });
}
