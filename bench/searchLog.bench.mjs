// Search on a large existing log, against the plain FTS5 floor holding the same text, without
// importing it again: the ~250M-token history of `node bench/capture.bench.mjs --size 1G` (its
// `scroll ingest` copy, the same events `scroll import` appends) is ingested once into the bench
// cache, the floor built once beside it, and every later run only searches. Queries and floor are
// the capture bench's (same generator and seed, the floor's same AND-then-OR SQL), the sample of
// events the queries are drawn from is seeded here so every run asks the same queries. Per query,
// interleaved: Scroll's search, the floor, and, to tell the code from the index, the floor's own
// SQL on Scroll's index (which holds identifier parts and headlines the floor's table does not).
// CPU time first (this machine is shared), wall beside it.
// Usage: node bench/searchLog.bench.mjs [--size 1G] [--db PATH] [--queries 200] [--rounds 2] [--baseline OUT_DIR] [--other-ranking]
//   --db        search this log instead (the floor is built beside it, as <db>.plain.db)
//   --baseline  another build's out/ (e.g. a worktree at main): its search runs in the same
//               interleaving, and both must return the same hits
//   --other-ranking  the baseline ranks differently on purpose (a ranking change): how many
//               queries return other hits is printed instead of checked
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import { HistoryGenerator, rng } from './lib/synthetic.mjs';
import { SMOKE, check, openFloor, option, pct, timeIt, verdict } from './lib/measure.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const opt = (name, dflt) => option(args, name, dflt);
const nQueries = Number(opt('--queries', SMOKE ? 10 : 200));
const rounds = Number(opt('--rounds', SMOKE ? 1 : 2));
const baseline = opt('--baseline', null);
const otherRanking = args.includes('--other-ranking');
const K = 10;

/** Reads a file to its end in 8 MiB chunks (into the OS page cache), keeping nothing. */
function readThrough(path) {
  const fd = openSync(path, 'r');
  const buf = Buffer.allocUnsafe(8 << 20);
  try {
    while (readSync(fd, buf, 0, buf.length, null) > 0);
  } finally {
    closeSync(fd);
  }
}

const core = join(root, 'out', 'src', 'core');
if (!existsSync(join(core, 'log', 'eventLog.js'))) {
  console.error('searchLog bench: run `npx tsc -p . && node scripts/build.mjs` first (needs out/src/core and dist/)');
  process.exit(2);
}
const { EventLog } = require(join(core, 'log', 'eventLog.js'));
const { parseQuery, BROADEN_BELOW } = require(join(core, 'search', 'index.js'));
const { FTS_TOKENIZE } = require(join(core, 'log', 'schema.js'));
const Database = require('better-sqlite3');

const scratch = SMOKE ? mkdtempSync(join(tmpdir(), 'scroll-searchlog-bench-')) : null;
let dbPath = opt('--db', null);
if (SMOKE) {
  // A small synthetic log stands in for the cached history.
  dbPath = join(scratch, 'log', 'scroll.db');
  const log = EventLog.open({ path: dbPath });
  log.appendMany([...new HistoryGenerator(3, { corpus: 2 }).history(2e5)]);
  log.close();
} else if (!dbPath) {
  const sizeText = opt('--size', '1G');
  const data = join(process.env.SCROLL_DEV_CACHE || join(homedir(), '.cache', 'scroll-dev'), 'bench', `capture-${sizeText}`);
  const ingestFile = join(data, 'ingest.jsonl');
  if (!existsSync(ingestFile)) {
    console.error(`searchLog bench: ${ingestFile} not found: run \`node bench/capture.bench.mjs --size ${sizeText}\` once to generate the history`);
    process.exit(2);
  }
  dbPath = join(data, 'search-log', 'scroll.db');
  if (!existsSync(dbPath)) {
    mkdirSync(dirname(dbPath), { recursive: true });
    console.log(`ingesting ${ingestFile} once into ${dbPath} (scroll ingest)…`);
    const r = spawnSync(process.execPath, [join(root, 'bin', 'scroll.js'), 'ingest', ingestFile, '--db', dbPath], { stdio: ['ignore', 'inherit', 'inherit'] });
    if (r.status !== 0) {
      rmSync(dirname(dbPath), { recursive: true, force: true });
      throw new Error(`scroll ingest failed (${r.status})`);
    }
  }
}

try {
  const log = EventLog.open({ path: dbPath, readonly: true });
  const other = baseline ? require(join(baseline, 'src', 'core', 'log', 'eventLog.js')).EventLog.open({ path: dbPath, readonly: true }) : null;
  // The floor, as the capture bench builds it: content, session and kind of every event, in
  // transactions of 2,000. Built once; the sample the queries come from is seeded.
  const plainPath = `${dbPath}.plain.db`;
  const building = !existsSync(plainPath);
  const partial = `${plainPath}.partial`;
  const floorDb = building ? (rmSync(partial, { force: true }), openFloor(partial, FTS_TOKENIZE)) : null;
  const rand = rng(11);
  const sample = [];
  const row = (e) => ({ content: e.content, session: e.session, kind: e.kind });
  if (floorDb) {
    for (let from = 1; from <= log.maxSeq(); from += 2000) {
      const batch = log.range(from, from + 1999).map(row);
      floorDb.insertBatch(batch);
      for (const e of batch) if (sample.length < 20000 && rand() < 0.2) sample.push(e);
    }
    floorDb.db.close();
    spawnSync('mv', [partial, plainPath]);
  } else {
    // The same sample without reading every event again: which events it holds depends only on
    // the seeded draws (one per event, in seq order, until it is full).
    for (let seq = 1; seq <= log.maxSeq() && sample.length < 20000; seq++) if (rand() < 0.2) sample.push(row(log.range(seq, seq)[0]));
  }
  const plain = new Database(plainPath, { readonly: true });
  const queries = new HistoryGenerator(5, { corpus: 2 }).queries(sample, nQueries).map((q) => ({ query: q.query, opts: q.opts.kind ? { kind: q.opts.kind } : {} }));

  /** The capture bench's floor: the AND of the terms, the OR when it finds fewer than min(k, BROADEN_BELOW). */
  const floorOn = (db, sqlOf) => {
    const stmts = new Map();
    return (q) => {
      const terms = parseQuery(q.query).terms;
      if (terms.length === 0) return [];
      const sql = sqlOf(q.opts);
      if (!stmts.has(sql)) stmts.set(sql, db.prepare(sql));
      const st = stmts.get(sql);
      const params = (expr) => [expr, ...(q.opts.kind ? [q.opts.kind] : []), K];
      const hits = st.all(...params(terms.map((t) => t.fts).join(' AND ')));
      if (terms.length > 1 && hits.length < Math.min(K, BROADEN_BELOW)) hits.push(...st.all(...params(terms.map((t) => t.fts).join(' OR '))));
      return hits.slice(0, K);
    };
  };
  const floor = floorOn(plain, (o) => `SELECT rowid FROM plain WHERE plain MATCH ?${o.kind ? ' AND kind = ?' : ''} ORDER BY rank LIMIT ?`);
  const ourIndex = new Database(dbPath, { readonly: true });
  const floorSqlOnOurs = floorOn(ourIndex, (o) =>
    `SELECT f.rowid FROM events_fts f${o.kind ? ' JOIN events e ON e.seq = f.rowid' : ''} WHERE events_fts MATCH ?${o.kind ? ' AND e.kind = ?' : ''} ORDER BY rank LIMIT ?`);

  const sides = { scroll: (q) => log.search(q.query, { k: K, ...q.opts }).hits, floor, 'floor SQL, our index': floorSqlOnOurs };
  if (other) sides.baseline = (q) => other.search(q.query, { k: K, ...q.opts }).hits;
  if (other) {
    let differ = 0;
    for (const q of queries) if (JSON.stringify(log.search(q.query, { k: K, ...q.opts })) !== JSON.stringify(other.search(q.query, { k: K, ...q.opts }))) differ++;
    if (otherRanking) console.log(`${differ} of ${queries.length} queries return other hits than the baseline build's (--other-ranking)`);
    else check(differ === 0, `${differ} of ${queries.length} queries return other hits than the baseline build's`);
  }
  // Both files are read once through the OS first, so neither side is timed on a page cache the
  // runs before left cold for it and warm for the other (a 1 GB log and its 1.2 GB floor: runs on
  // other files evict either): searches are timed warm, as in an editor that has the log open.
  for (const file of [dbPath, plainPath]) readThrough(file);
  for (const q of queries.slice(0, 10)) for (const run of Object.values(sides)) run(q);
  const names = Object.keys(sides);
  const times = Object.fromEntries(names.map((n) => [n, { cpu: [], wall: [] }]));
  let hits = 0;
  for (let r = 0; r < rounds; r++) {
    for (const q of queries) {
      // Alternating order, so no side always runs on a cache the previous one warmed.
      for (const n of r % 2 ? [...names].reverse() : names) {
        const [cpu, h, wall] = timeIt(() => sides[n](q));
        times[n].cpu.push(cpu);
        times[n].wall.push(wall);
        if (n === 'scroll') hits += h.length;
      }
    }
  }
  check(hits > 0, 'the searches found nothing');
  const tokens = Number(log.database.prepare('SELECT sum(tokens) AS t FROM events').get().t);
  console.log(`${log.maxSeq()} events, ${(tokens / 1e6).toFixed(1)}M tokens (chars/4), ${log.indexSegments()} index segment(s); ${queries.length} queries × ${rounds} round(s), interleaved`);
  const fmt = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(2));
  const f = times.floor.cpu;
  console.log(`${''.padEnd(24)}${'p50 cpu'.padStart(10)}${'p99 cpu'.padStart(10)}${'p50 wall'.padStart(10)}${'p99 wall'.padStart(10)}  p50 ratio to the floor`);
  for (const n of names) {
    const t = times[n];
    console.log(`${n.padEnd(24)}${fmt(pct(t.cpu, 50)).padStart(10)}${fmt(pct(t.cpu, 99)).padStart(10)}${fmt(pct(t.wall, 50)).padStart(10)}${fmt(pct(t.wall, 99)).padStart(10)}  ${(pct(t.cpu, 50) / pct(f, 50)).toFixed(2)}x`);
  }
  const s = times.scroll.cpu;
  console.log(`targets (cpu): p50 <= 1.3x the floor ${verdict(pct(s, 50) <= 1.3 * pct(f, 50))}, p99 <= 250 ms ${verdict(pct(s, 99) <= 250)}`);
  log.close();
  other?.close();
  plain.close();
  ourIndex.close();
} finally {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}
