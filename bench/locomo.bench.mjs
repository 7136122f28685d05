// Search quality on LoCoMo: turn-level recall@5/10/20, hit@1/5 and MRR of our default search, next
// to plain BM25 measured the README's way in the same run, on the development half (the only one
// anything was tuned on) and the held-out half (../shared/data/locomo/README.md), per category. Usage: node bench/locomo.bench.mjs [PATH] [--no-captions] [--one-ts]
//   --one-ts: every turn carries the same ts (a history ingested without its own dates: no day
//   tells one sitting from another, and no date cue can act)
// Default PATH: ../shared/data/locomo/locomo10.json (read in place, never copied).
// Smoke size (SCROLL_BENCH_SMOKE=1): the first conversation only, or a tiny built-in one in LoCoMo's
// format (bench/lib/locomo.mjs) when the dataset is not there; the target is not checked.
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { halfOf, hitAt, loadLocomo, mrr, recallAt, smokeSample } from './lib/locomo.mjs';
import { SMOKE, check, positionals, verdict } from './lib/measure.mjs';
import { openBenchLog } from './lib/searchDb.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const oneTs = args.includes('--one-ts');
const ONE_TS = '2024-01-01T00:00:00.000Z';
const dataPath = resolve(root, positionals(args, ['--no-captions', '--quick', '--one-ts'])[0] ?? '../shared/data/locomo/locomo10.json');
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
  `${questions.length} of ${totalQuestions} questions with evidence${oneTs ? '; one ts for every turn (--one-ts)' : ''}`);

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
    ts: oneTs ? ONE_TS : t.date ?? undefined, meta: { dia_id: t.diaId, session_date: t.dateText },
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

// --- report: both halves, every method, one run ----------------------------------------------
const methods = [
  ['plain BM25, unicode61 (README)', plainUnicode],
  ['plain BM25, porter unicode61', plainPorter],
  [`scroll search (default${withCaptions ? '' : ', no captions'})`, ours],
];
const halves = ['development', 'held-out'];
const inHalf = (res, half) => res.filter((r, i) => halfOf(questions[i].conv) === half);
const figures = (res) => [recallAt(res, 5), recallAt(res, 10), recallAt(res, 20), hitAt(res, 1), hitAt(res, 5), mrr(res)];
const header = ['R@5', 'R@10', 'R@20', 'hit@1', 'hit@5', 'MRR'];
for (const half of halves) {
  const n = questions.filter((q) => halfOf(q.conv) === half).length;
  if (n === 0) {
    console.log(`\n${half} half: no questions loaded`);
    continue;
  }
  console.log(`\n${`${half} half (${n} questions)`.padEnd(34)}${header.map((h) => h.padStart(8)).join('')}`);
  for (const [name, res] of methods) console.log(`${name.padEnd(34)}${figures(inHalf(res, half)).map((x) => x.toFixed(3).padStart(8)).join('')}`);
  console.log(`  by category, R@10 (questions: plain porter / scroll):`);
  for (const cat of [...new Set(questions.map((q) => q.category))].sort()) {
    const pick = (res) => inHalf(res, half).filter((r) => r.category === cat);
    const a = pick(ours);
    if (!a.length) continue;
    const b = pick(plainPorter);
    console.log(`    category ${cat}: ${String(a.length).padStart(4)}   ${recallAt(b, 10).toFixed(3)} / ${recallAt(a, 10).toFixed(3)}   (${((recallAt(a, 10) - recallAt(b, 10)) * 100).toFixed(1)} points)`);
  }
}
check(recallAt(ours, maxK) > 0, `scroll search found none of the evidence turns in its top ${maxK}`);
const held = inHalf(ours, 'held-out');
const heldPlain = inHalf(plainPorter, 'held-out');
const r10 = recallAt(held, 10);
const worst = Math.min(...[...new Set(questions.map((q) => q.category))].map((cat) => {
  const a = held.filter((r) => r.category === cat);
  const b = heldPlain.filter((r) => r.category === cat);
  return a.length ? recallAt(a, 10) - recallAt(b, 10) : 0;
}));
console.log(`\nheld-out R@10: ${r10.toFixed(3)} vs plain porter ${recallAt(heldPlain, 10).toFixed(3)}; target >= 0.78: ${verdict(held.length > 0 && r10 >= 0.78)}`);
console.log(`held-out worst category vs plain porter: ${(worst * 100).toFixed(1)} points; target >= -1: ${verdict(held.length > 0 && worst >= -0.01)}`);
console.log(`queries whose top ${maxK} include broadened hits (OR or context): ${broadenedQueries} of ${questions.length}`);
const perQuery = oursMs / questions.length;
console.log(`ingest ${ingestMs.toFixed(0)} ms; ${questions.length} searches ${oursMs.toFixed(0)} ms (${perQuery.toFixed(2)} ms each); target < 3 ms: ${verdict(perQuery < 3)}`);
