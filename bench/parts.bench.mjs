// Identifier parts: in the FTS index (what Scroll does) or expanded at query time (the
// alternative weighed in issue 2: it ingests faster only on synthetic corpus 1, whose identifier
// density is about 3x real code's, and its worst queries take seconds). Same synthetic history and
// queries as search.bench.mjs. Prints, side by side:
//  - ingest by raw SQL (no EventLog work) of the floor, of today's index, and of the index without
//    the parts column plus a table of distinct identifiers indexed by their parts (batches alternated);
//  - the ranked FTS5 query (bm25, LIMIT 40) on today's index vs the same terms on the other layout,
//    each word or compound expanded to the whole identifiers containing it, and whether both find
//    the same number of events.
// Usage: node bench/parts.bench.mjs [--quick] [--size 1e7] [--queries 200] [--corpus 1|2]
// Smoke size (SCROLL_BENCH_SMOKE=1): 100k tokens, 20 queries.
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { HistoryGenerator, corpusOption } from './lib/synthetic.mjs';
import { SMOKE, check, openFloor, option, pct, timeIt } from './lib/measure.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const opt = (name, dflt) => option(args, name, dflt);
const size = args.includes('--quick') ? 1e6 : Number(opt('--size', SMOKE ? 1e5 : 1e7));
const nQueries = Number(opt('--queries', SMOKE ? 20 : 200));
const BATCH = 1000;

const core = join(root, 'out', 'src', 'core');
if (!existsSync(join(core, 'log', 'eventLog.js'))) {
  console.error('parts bench: run `npx tsc -p .` first (needs out/src/core)');
  process.exit(2);
}
const { parseQuery } = require(join(core, 'search', 'index.js'));
const { FTS_TOKENIZE, MIGRATIONS } = require(join(core, 'log', 'schema.js'));
const { buildIndexDocument } = require(join(core, 'search', 'indexText.js'));
const { splitCompound } = require(join(core, 'search', 'tokens.js'));
const { BM25_WEIGHTS } = require(join(core, 'search', 'constants.js'));
const Database = require('better-sqlite3');

const dir = mkdtempSync(join(tmpdir(), 'scroll-parts-bench-'));
const gen = new HistoryGenerator(7, { corpus: corpusOption(args) });
const events = [...gen.history(size)];
const docs = events.map((e) => buildIndexDocument(e.content, null));
console.log(`## ${size / 1e6}M tokens: ${events.length} events`);

function openOurs(name, extraSql = '') {
  const db = new Database(join(dir, name));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  for (const m of MIGRATIONS) db.exec(m.sql);
  if (extraSql) db.exec(extraSql);
  const ev = db.prepare('INSERT INTO events(session, kind, role, content, bytes, tokens, ts) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const fts = db.prepare('INSERT INTO events_fts(rowid, body, code, parts, headline) VALUES (?, ?, ?, ?, ?)');
  const row = (e) => ev.run(e.session, e.kind, e.role, e.content.length > 8192 ? e.content.slice(0, 512) : e.content, e.content.length, Math.ceil(e.content.length / 4), e.ts).lastInsertRowid;
  return { db, fts, row };
}

// Today's layout: the parts column.
const today = openOurs('today.db');
const todayBatch = today.db.transaction((from, to) => {
  for (let j = from; j < to; j++) today.fts.run(today.row(events[j]), docs[j].body, docs[j].code, docs[j].parts, docs[j].headline);
});
// The other layout: no parts column; each distinct identifier once, indexed by its parts.
const other = openOurs(
  'expanded.db',
  `CREATE TABLE idents(id INTEGER PRIMARY KEY, ident TEXT UNIQUE NOT NULL);
   CREATE VIRTUAL TABLE ident_fts USING fts5(parts, content = '', tokenize = "${FTS_TOKENIZE}");`,
);
const addIdent = other.db.prepare('INSERT INTO idents(ident) VALUES (?)');
const addIdentParts = other.db.prepare('INSERT INTO ident_fts(rowid, parts) VALUES (?, ?)');
// Like the index text above, the identifiers each event introduces are found before timing:
// both contenders are timed on their SQL only.
const known = new Set();
const COMPOUND = /[A-Za-z0-9_]*(?:_[A-Za-z0-9]|[a-z0-9][A-Z]|[A-Z][A-Z][a-z])[A-Za-z0-9_]*/g;
const newIdents = events.map((e) => {
  const out = [];
  for (const m of e.content.matchAll(COMPOUND)) {
    const whole = m[0].toLowerCase();
    if (whole.length > 64 || known.has(whole)) continue;
    known.add(whole);
    const parts = splitCompound(m[0]);
    if (parts.length <= 8) out.push([whole, parts.join(' ').toLowerCase()]);
  }
  return out;
});
const otherBatch = other.db.transaction((from, to) => {
  for (let j = from; j < to; j++) {
    other.fts.run(other.row(events[j]), docs[j].body, docs[j].code, '', docs[j].headline);
    for (const [whole, parts] of newIdents[j]) addIdentParts.run(addIdent.run(whole).lastInsertRowid, parts);
  }
});
const floor = openFloor(join(dir, 'floor.db'), FTS_TOKENIZE);
const ms = { floor: 0, today: 0, other: 0 };
for (let i = 0; i < events.length; i += BATCH) {
  const to = Math.min(events.length, i + BATCH);
  ms.floor += timeIt(() => floor.insertBatch(events.slice(i, to)))[0];
  ms.today += timeIt(() => todayBatch(i, to))[0];
  ms.other += timeIt(() => otherBatch(i, to))[0];
}
const line = (name, v, note = '') => console.log(`${name.padEnd(44)}${(v / 1000).toFixed(2).padStart(8)} s  ${(ms.floor / v).toFixed(2)}x of floor${note}`);
console.log('ingest by raw SQL (cpu; no EventLog work; index text built beforehand)');
line('  plain FTS5 floor', ms.floor);
line('  parts column (today)', ms.today);
line('  no parts column + identifier table', ms.other, ` (${known.size} distinct identifiers)`);

// --- the ranked query, same terms, both layouts --------------------------------------------
const rank = `bm25(events_fts, ${BM25_WEIGHTS.map((w) => w.toFixed(1)).join(', ')})`;
const ranked = (db) => db.prepare(`SELECT rowid FROM events_fts WHERE events_fts MATCH ? ORDER BY ${rank} LIMIT 40`);
const count = (db) => db.prepare('SELECT count(*) AS n FROM events_fts WHERE events_fts MATCH ?');
const q = { today: ranked(today.db), other: ranked(other.db), todayN: count(today.db), otherN: count(other.db) };
const expansion = other.db.prepare('SELECT i.ident FROM ident_fts f JOIN idents i ON i.id = f.rowid WHERE ident_fts MATCH ?');
const quote = (s) => `"${s.replace(/"/g, '""')}"`;
const sizes = [];
const expand = (terms) =>
  terms
    .map((t) => {
      if (t.type === 'phrase') return t.fts;
      const ids = expansion.all(quote(t.type === 'compound' ? t.parts.join(' ') : t.text)).map((r) => r.ident);
      sizes.push(ids.length);
      const alts = [t.text, ...ids.filter((x) => x !== t.text)].map(quote);
      return alts.length > 1 ? `(${alts.join(' OR ')})` : alts[0];
    })
    .join(' AND ');
const t = { today: [], other: [] };
let compared = 0;
let same = 0;
for (const query of gen.queries(events, nQueries)) {
  const terms = parseQuery(query.query).terms;
  if (terms.length === 0) continue;
  const todayExpr = terms.map((x) => x.fts).join(' AND ');
  t.today.push(timeIt(() => q.today.all(todayExpr))[0]);
  let otherExpr = '';
  t.other.push(timeIt(() => q.other.all((otherExpr = expand(terms))))[0]);
  if (compared < 60) {
    compared++;
    if (q.todayN.get(todayExpr).n === q.otherN.get(otherExpr).n) same++;
  }
}
for (const [name, d] of [['today', today.db], ['expanded', other.db]]) {
  const n = d.prepare('SELECT count(*) AS n FROM events').get().n;
  check(n === events.length, `the ${name} layout holds ${n} of ${events.length} events`);
}
check(t.today.length > 0 && sizes.length > 0, `${t.today.length} queries ran, ${sizes.length} terms expanded`);
const f = (x) => x.toFixed(2).padStart(9);
console.log(`\nranked FTS5 query (cpu ms, ${t.today.length} queries)      p50      p99     mean`);
const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
console.log(`  parts column (today)                  ${f(pct(t.today, 50))}${f(pct(t.today, 99))}${f(mean(t.today))}`);
console.log(`  expanded to whole identifiers         ${f(pct(t.other, 50))}${f(pct(t.other, 99))}${f(mean(t.other))}   p50 ${(pct(t.other, 50) / pct(t.today, 50)).toFixed(2)}x`);
console.log(`identifiers per expanded term: p50 ${pct(sizes, 50)}, p90 ${pct(sizes, 90)}, max ${Math.max(...sizes)}; ` +
  `same number of matches in ${same} of ${compared} queries compared`);
for (const d of [today.db, other.db, floor.db]) d.close();
rmSync(dir, { recursive: true, force: true });
