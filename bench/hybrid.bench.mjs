// The in-process cost of the optional hybrid search's fusion (src/core/search/hybrid.ts,
// fusedSearch): the lexical search of the same queries is the baseline, in the same run,
// interleaved. The query vector is given (no endpoint: its latency is the endpoint's, not
// Scroll's), and the stored vectors are random unit vectors (their values do not change the cost:
// the scan is exact). Also the memory the per-connection copy of the vectors takes.
// Measures nothing about retrieval quality (no embedding model is reachable here).
// Usage: node bench/hybrid.bench.mjs [--size 1e6] [--dims 768] [--queries 100] [--corpus 1|2]
// Smoke size (SCROLL_BENCH_SMOKE=1): 1e5 tokens, 64 dimensions, 10 queries.
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { HistoryGenerator, corpusOption, rng } from './lib/synthetic.mjs';
import { SMOKE, check, option, pct, timeIt } from './lib/measure.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const size = Number(option(args, '--size', SMOKE ? 1e5 : 1e6));
const dims = Number(option(args, '--dims', SMOKE ? 64 : 768));
const nQueries = Number(option(args, '--queries', SMOKE ? 10 : 100));
const K = 10;

const core = join(root, 'out', 'src', 'core');
if (!existsSync(join(core, 'search', 'hybrid.js'))) {
  console.error('hybrid bench: run `npx tsc -p .` first (needs out/src/core)');
  process.exit(2);
}
const { EventLog } = require(join(core, 'log', 'eventLog.js'));
const { fusedSearch } = require(join(core, 'search', 'hybrid.js'));
const { putVectors, textHash } = require(join(core, 'search', 'vectorStore.js'));

const dir = mkdtempSync(join(tmpdir(), 'scroll-hybrid-bench-'));
try {
  const gen = new HistoryGenerator(11, { corpus: corpusOption(args) });
  const events = [...gen.history(size)];
  const log = EventLog.open({ path: join(dir, 'scroll.db'), onWarning: () => undefined });
  for (let i = 0; i < events.length; i += 1000) log.appendMany(events.slice(i, i + 1000));
  const rand = rng(5);
  const unit = () => {
    const v = new Float32Array(dims);
    let s = 0;
    for (let j = 0; j < dims; j++) s += (v[j] = rand() - 0.5) ** 2;
    const inv = 1 / Math.sqrt(s);
    for (let j = 0; j < dims; j++) v[j] *= inv;
    return v;
  };
  for (let from = 1; from <= events.length; from += 1000) {
    const rows = [];
    for (let seq = from; seq < Math.min(from + 1000, events.length + 1); seq++) rows.push({ seq, vector: unit(), textHash: textHash(String(seq)) });
    putVectors(log.database, 'bench', rows);
  }
  console.log(`## ${size / 1e6}M tokens: ${events.length} events, ${dims}-dimension vectors (${((events.length * dims * 4) / 1e6).toFixed(1)} MB as float32)`);
  const queries = gen.queries(events, nQueries);
  const vectors = queries.map(() => unit());
  // First hybrid search loads the vectors into memory: timed on its own.
  const used = () => {
    globalThis.gc?.();
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  const heapBefore = used();
  const [loadCpu] = timeIt(() => fusedSearch(log.database, queries[0].query, { k: K, ...queries[0].opts }, 'bench', vectors[0]));
  const heapAfter = used();
  const lexical = [];
  const hybrid = [];
  for (let i = 0; i < queries.length; i++) {
    const q = queries[i];
    const [a, plain] = timeIt(() => log.search(q.query, { k: K, ...q.opts }));
    const [b, fused] = timeIt(() => fusedSearch(log.database, q.query, { k: K, ...q.opts }, 'bench', vectors[i]));
    check(fused.hits.length >= Math.min(K, plain.hits.length), `fused lists at least the lexical hits' count for ${JSON.stringify(q.query)}`);
    lexical.push(a);
    hybrid.push(b);
  }
  const row = (name, xs) => `| ${name} | ${pct(xs, 50).toFixed(2)} | ${pct(xs, 99).toFixed(2)} |`;
  console.log(`first hybrid search (loads the vectors): ${loadCpu.toFixed(0)} ms CPU; memory +${((heapAfter - heapBefore) / 1e6).toFixed(1)} MB`);
  console.log('| search, CPU ms per query | p50 | p99 |\n|---|---|---|');
  console.log(row('lexical (baseline, same queries)', lexical));
  console.log(row('hybrid: lexical top 100 + exact vector scan + RRF', hybrid));
  log.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
