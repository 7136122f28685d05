// Search quality on LoCoMo: turn-level recall@5/10/20 of our default search, next to plain BM25
// measured the README's way in the same run. Usage: node bench/locomo.bench.mjs [PATH] [--no-captions]
// Default PATH: ../shared/data/locomo/locomo10.json (read in place, never copied).
// Smoke size (SCROLL_BENCH_SMOKE=1): the first conversation only, or a tiny built-in one in LoCoMo's
// format (bench/lib/locomo.mjs) when the dataset is not there; the target is not checked.
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { loadLocomo, recallAt, smokeSample } from './lib/locomo.mjs';
import { SMOKE, check, positionals, verdict } from './lib/measure.mjs';
import { openBenchLog } from './lib/searchDb.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const dataPath = resolve(root, positionals(args, ['--no-captions', '--quick'])[0] ?? '../shared/data/locomo/locomo10.json');
const withCaptions = !args.includes('--no-captions');
const haveData = existsSync(dataPath);
if (!haveData && !SMOKE) {
  console.error(`locomo: dataset not found at ${dataPath} (pass its path as the first argument)`);
  process.exit(2);
}
const outDir = join(root, 'out', 'src', 'core');
if (!existsSync(join(outDir, 'search', 'index.js'))) {
  console.error('locomo: run `npx tsc -p .` first (needs out/src/core)');
  process.exit(2);
}
const { STOP_WORDS } = require(join(outDir, 'search', 'index.js'));
const Database = require('better-sqlite3');

let data = haveData ? JSON.parse(readFileSync(dataPath, 'utf8')) : smokeSample();
if (SMOKE) {
  data = data.slice(0, 1);
  console.log(`smoke size: ${haveData ? `the first conversation of ${dataPath}` : `no dataset at ${dataPath}: a tiny built-in conversation (bench/lib/locomo.mjs)`}`);
}
const { conversations, questions, totalQuestions } = loadLocomo(data);
check(questions.length > 0, 'no question with evidence was loaded');
const K = [5, 10, 20];
const maxK = Math.max(...K);
console.log(`LoCoMo: ${conversations.length} conversations, ${conversations.reduce((n, c) => n + c.turns.length, 0)} turns, ` +
  `${questions.length} of ${totalQuestions} questions with evidence`);

/** How a turn reads as an event: the speaker, what they said, and what a shared photo shows. */
function turnText(t) {
  const caption = withCaptions && t.caption ? ` [shares a photo: ${t.caption}]` : '';
  return `${t.speaker}: ${t.text}${caption}`;
}

// --- ours: the real event log and its default search -------------------------------------------
const dir = mkdtempSync(join(tmpdir(), 'scroll-locomo-'));
const log = openBenchLog(root, join(dir, 'scroll.db'));
const seqToDia = new Map();
let t0 = performance.now();
for (const c of conversations) {
  const events = c.turns.map((t) => ({
    kind: 'conversation', role: 'user', session: c.id, name: t.speaker, content: turnText(t),
    ts: t.date ?? undefined, meta: { dia_id: t.diaId, session_date: t.dateText },
  }));
  const appended = log.appendMany(events);
  appended.forEach((e, i) => seqToDia.set(e.seq, c.turns[i].diaId));
}
const ingestMs = performance.now() - t0;
const ours = [];
let broadenedQueries = 0;
t0 = performance.now();
for (const q of questions) {
  const r = log.search(q.question, { session: q.conv, k: maxK, snippet: false });
  if (r.broadened) broadenedQueries++;
  check(r.hits.length <= maxK && r.hits.every((h) => seqToDia.has(h.seq)), `search "${q.question}" returned ${r.hits.length} hits, or hits outside the ingested turns`);
  ours.push({ evidence: q.evidence, ranked: r.hits.map((h) => seqToDia.get(h.seq)), category: q.category });
}
const oursMs = performance.now() - t0;
log.close();
rmSync(dir, { recursive: true, force: true });

// --- plain BM25 the README's way: one row per turn ("speaker: text", date column), OR of non-stop words
function plainBm25(tokenizer) {
  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE t USING fts5(conv UNINDEXED, dia UNINDEXED, text, date, tokenize = '${tokenizer}')`);
  const ins = db.prepare('INSERT INTO t(conv, dia, text, date) VALUES (?, ?, ?, ?)');
  db.transaction(() => {
    for (const c of conversations) for (const t of c.turns) ins.run(c.id, t.diaId, `${t.speaker}: ${t.text}`, t.dateText);
  })();
  const sel = db.prepare('SELECT dia FROM t WHERE t MATCH ? AND conv = ? ORDER BY bm25(t) LIMIT ?');
  const results = [];
  for (const q of questions) {
    const words = [...new Set((q.question.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).filter((w) => !STOP_WORDS.has(w)))];
    const ranked = words.length ? sel.all(words.map((w) => `"${w}"`).join(' OR '), q.conv, maxK).map((r) => r.dia) : [];
    results.push({ evidence: q.evidence, ranked, category: q.category });
  }
  db.close();
  return results;
}
const plainPorter = plainBm25('porter unicode61');
const plainUnicode = plainBm25('unicode61');

const row = (name, res) => `${name.padEnd(34)}${K.map((k) => recallAt(res, k).toFixed(3).padStart(8)).join('')}`;
console.log(`\n${'turn-level recall'.padEnd(34)}${K.map((k) => `R@${k}`.padStart(8)).join('')}`);
console.log(row('plain BM25, unicode61 (README)', plainUnicode));
console.log(row('plain BM25, porter unicode61', plainPorter));
console.log(row(`scroll search (default${withCaptions ? '' : ', no captions'})`, ours));
const r10 = recallAt(ours, 10);
const base10 = recallAt(plainPorter, 10);
check(recallAt(ours, maxK) > 0, `scroll search found none of the evidence turns in its top ${maxK}`);
console.log(`\nR@10: ${r10.toFixed(3)} vs plain ${base10.toFixed(3)} (${(r10 / base10).toFixed(2)}x); target >= 0.70: ${verdict(r10 >= 0.7)}`);
console.log(`by category (R@10, ours / plain porter):`);
for (const cat of [...new Set(questions.map((q) => q.category))].sort()) {
  const a = ours.filter((r) => r.category === cat);
  const b = plainPorter.filter((r) => r.category === cat);
  console.log(`  category ${cat}: ${String(a.length).padStart(4)} questions  ${recallAt(a, 10).toFixed(3)} / ${recallAt(b, 10).toFixed(3)}`);
}
console.log(`queries whose top ${maxK} include broadened hits (OR or context): ${broadenedQueries} of ${questions.length}`);
console.log(`ingest ${ingestMs.toFixed(0)} ms; ${questions.length} searches ${oursMs.toFixed(0)} ms (${(oursMs / questions.length).toFixed(2)} ms each)`);
