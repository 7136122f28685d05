// A proxy of a long-chat benchmark, for a sanity check only (no constant is ever chosen on it):
// LoCoMo with one event per message in the hidden benchmark's shape — the first speaker's turns
// as `user_message`, the second's as long `model_turn` replies (the turn placed among PAD turns of
// another conversation, as a verbose reply buries the answer) — searched with the conversation as
// the session filter and k 20, next to plain BM25 over the same events in the same run.
// Usage: node bench/locomo-longchat.bench.mjs [PATH] [--pad N] [--one-ts] [--persons]
//   --one-ts: every event carries the same ts (a history ingested without its own dates).
//   --persons: each question asked as the hidden benchmark asks, by the user of an assistant: the
//     first speaker (whose turns are the user_messages) named as I / my, the second (the padded
//     model_turns) as you / your.
// Smoke size (SCROLL_BENCH_SMOKE=1): the first conversation, or the built-in tiny one.
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { halfOf, hitAt, loadLocomo, mrr, recallAt, smokeSample } from './lib/locomo.mjs';
import { SMOKE, check, positionals } from './lib/measure.mjs';
import { openBenchLog } from './lib/searchDb.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const padAt = args.indexOf('--pad');
const PAD = padAt >= 0 ? Number(args[padAt + 1]) : 6;
const oneTs = args.includes('--one-ts');
const persons = args.includes('--persons');
const dataPath = resolve(root, positionals(args, ['--one-ts', '--persons'])[0] ?? '../shared/data/locomo/locomo10.json');
const haveData = existsSync(dataPath);
if (!haveData && !SMOKE) {
  console.error(`locomo-longchat: dataset not found at ${dataPath} (pass its path as the first argument)`);
  process.exit(2);
}
if (!existsSync(join(root, 'out', 'src', 'core', 'search', 'index.js'))) {
  console.error('locomo-longchat: run `npx tsc -p .` first (needs out/src/core)');
  process.exit(2);
}
const { STOP_WORDS } = require(join(root, 'out', 'src', 'core', 'search', 'index.js'));
const Database = require('better-sqlite3');
let data = haveData ? JSON.parse(readFileSync(dataPath, 'utf8')) : smokeSample();
if (SMOKE) data = data.slice(0, 1);
const { conversations, questions } = loadLocomo(data);
check(questions.length > 0, 'no question with evidence was loaded');
if (persons) {
  // "What did Caroline research?" → "What did I research?"; "Melanie's kids" → "your kids".
  const speakers = new Map(conversations.map((c) => [c.id, [...new Set(c.turns.map((t) => t.speaker))]]));
  const name = (n) => new RegExp(`\\b${n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b('s)?`, 'g');
  for (const q of questions) {
    const [first, second] = speakers.get(q.conv) ?? [];
    if (first) q.question = q.question.replace(name(first), (_, s) => (s ? 'my' : 'I'));
    if (second) q.question = q.question.replace(name(second), (_, s) => (s ? 'your' : 'you'));
  }
}

// Deterministic filler: the same proxy every run.
let seed = 7;
const rand = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
const events = [];
conversations.forEach((c, ci) => {
  const other = conversations[(ci + 5) % conversations.length].turns;
  const first = c.turns[0]?.speaker;
  for (const t of c.turns) {
    const text = t.text + (t.caption ? ` [shares a photo: ${t.caption}]` : '');
    if (t.speaker === first) {
      events.push({ conv: c.id, diaId: t.diaId, kind: 'user_message', role: 'user', content: text, ts: t.date });
      continue;
    }
    const parts = Array.from({ length: PAD }, () => other[Math.floor(rand() * other.length)].text);
    parts.splice(Math.floor(rand() * (PAD + 1)), 0, text);
    events.push({ conv: c.id, diaId: t.diaId, kind: 'model_turn', role: 'assistant', content: parts.join('\n\n'), ts: t.date });
  }
});

const dir = mkdtempSync(join(tmpdir(), 'scroll-longchat-'));
const log = openBenchLog(root, join(dir, 'scroll.db'));
const seqToDia = new Map();
const SAME_TS = '2026-01-01T00:00:00.000Z';
log.appendMany(events.map((e) => ({ kind: e.kind, role: e.role, session: e.conv, content: e.content, ts: oneTs ? SAME_TS : e.ts ?? SAME_TS })))
  .forEach((e, i) => seqToDia.set(e.seq, events[i].diaId));
const ours = [];
const t0 = performance.now();
for (const q of questions) {
  const r = log.search(q.question, { session: q.conv, k: 20, snippet: false });
  ours.push({ evidence: q.evidence, category: q.category, ranked: r.hits.map((h) => seqToDia.get(h.seq)) });
}
const perQuery = (performance.now() - t0) / questions.length;
log.close();
rmSync(dir, { recursive: true, force: true });

const db = new Database(':memory:');
db.exec(`CREATE VIRTUAL TABLE t USING fts5(conv UNINDEXED, dia UNINDEXED, text, tokenize = 'porter unicode61')`);
const ins = db.prepare('INSERT INTO t(conv, dia, text) VALUES (?, ?, ?)');
db.transaction(() => { for (const e of events) ins.run(e.conv, e.diaId, e.content); })();
const sel = db.prepare('SELECT dia FROM t WHERE t MATCH ? AND conv = ? ORDER BY bm25(t) LIMIT 20');
const plain = questions.map((q) => {
  const words = [...new Set((q.question.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).filter((w) => !STOP_WORDS.has(w)))];
  return { evidence: q.evidence, category: q.category, ranked: words.length ? sel.all(words.map((w) => `"${w}"`).join(' OR '), q.conv).map((r) => r.dia) : [] };
});
db.close();

const replies = events.filter((e) => e.kind === 'model_turn');
console.log(`long-chat proxy (sanity check only; nothing is tuned on it): ${events.length} events, ${replies.length} long replies ` +
  `(mean ${Math.round(replies.reduce((n, e) => n + e.content.length, 0) / Math.max(1, replies.length))} characters; pad ${PAD}), ` +
  `${oneTs ? 'one ts for every event' : 'session dates as ts'}${persons ? ', questions in the first and second person' : ''}, session filter, k 20`);
const header = ['R@5', 'R@10', 'R@20', 'hit@1', 'hit@5', 'MRR'];
console.log(`${''.padEnd(34)}${header.map((h) => h.padStart(8)).join('')}`);
for (const half of ['development', 'held-out']) {
  const pick = (res) => res.filter((_, i) => halfOf(questions[i].conv) === half);
  if (!pick(ours).length) continue;
  for (const [name, res] of [['plain BM25 (porter)', plain], ['scroll search', ours]]) {
    const r = pick(res);
    console.log(`${`${half}: ${name}`.padEnd(34)}${[recallAt(r, 5), recallAt(r, 10), recallAt(r, 20), hitAt(r, 1), hitAt(r, 5), mrr(r)].map((x) => x.toFixed(3).padStart(8)).join('')}`);
  }
}
check(recallAt(ours, 20) > 0, 'scroll search found none of the evidence in its top 20');
console.log(`${questions.length} searches, ${perQuery.toFixed(2)} ms each`);
