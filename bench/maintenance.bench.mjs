// The editor's "Check History Integrity" and "Rebuild Search Index" at 10M tokens: how long the
// caller's thread (the extension host's, in the editor) is held. Baseline in the same run: the same
// job in-thread (EventLog.verify / rebuildIndex, what `scroll check` / `scroll reindex` run).
// A 10 ms timer stands in for the editor's other work; its longest gap is the stall.
// Usage: node bench/maintenance.bench.mjs [--size 1e7] [--rounds 2] [--corpus 1|2]
// Smoke size (SCROLL_BENCH_SMOKE=1): 50k tokens, one round. Every size checks that the worker ran
// the job, that the rebuild indexed every event and that the log verifies.
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { HistoryGenerator, corpusOption } from './lib/synthetic.mjs';
import { SMOKE, check, option, pct } from './lib/measure.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const size = Number(option(args, '--size', SMOKE ? '5e4' : '1e7'));
const rounds = Number(option(args, '--rounds', SMOKE ? 1 : 2));
const core = join(root, 'out', 'src', 'core');
if (!existsSync(join(core, 'log', 'maintenance.js'))) {
  console.error('maintenance bench: run `npx tsc -p .` first (needs out/src/core)');
  process.exit(2);
}
const { EventLog } = require(join(core, 'log', 'eventLog.js'));
const { rebuildIndexInBackground, verifyInBackground } = require(join(core, 'log', 'maintenance.js'));

const dir = mkdtempSync(join(tmpdir(), 'scroll-maintenance-bench-'));
const log = EventLog.open({ path: join(dir, 'scroll.db') });
const events = [...new HistoryGenerator(7, { corpus: corpusOption(args) }).history(size)];
const bulk = log.beginBulk();
for (let i = 0; i < events.length; i += 1000) await bulk.submit(events.slice(i, i + 1000));
await bulk.commit();
console.log(`history: ${events.length} events, ${size / 1e6}M tokens; ${rounds} round(s), in-thread and worker alternated`);

/** [elapsed ms, longest gap between 10 ms timer ticks] while `job` runs. */
async function stall(job) {
  let longest = 0;
  let last = performance.now();
  const tick = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 10);
  await new Promise((r) => setTimeout(r, 30)); // the timer is running before the job starts
  last = performance.now();
  const t = performance.now();
  await job();
  const elapsed = performance.now() - t;
  await new Promise((r) => setTimeout(r, 30)); // a blocked timer fires late, after the job
  clearInterval(tick);
  return [elapsed, longest];
}

const runs = { verifyHere: [], verifyWorker: [], rebuildHere: [], rebuildWorker: [] };
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? ['Here', 'Worker'] : ['Worker', 'Here'];
  for (const where of order) {
    let ranOn = 'here';
    const onStarted = (w) => (ranOn = w);
    let verdict;
    runs[`verify${where}`].push(await stall(async () => (verdict = await (where === 'Here' ? log.verify() : verifyInBackground(log, { onStarted })))));
    check(verdict.ok, `the ${where === 'Here' ? 'in-thread' : 'worker'} check found problems in a sound log: ${JSON.stringify(verdict).slice(0, 300)}`);
    let indexed;
    runs[`rebuild${where}`].push(await stall(async () => (indexed = await (where === 'Here' ? log.rebuildIndex() : rebuildIndexInBackground(log, { onStarted })))));
    check(indexed === events.length, `the ${where === 'Here' ? 'in-thread' : 'worker'} rebuild indexed ${indexed} of ${events.length} events`);
    check(where === 'Here' || ranOn === 'worker', `the background jobs ran on ${ranOn}, not on a worker (is out/src/core/log/maintenanceWorker.js built?)`);
  }
}
check(log.verify().ok, 'the log does not verify after the rebuilds');
log.close();
rmSync(dir, { recursive: true, force: true });

const med = (xs, i) => pct(xs.map((x) => x[i]), 50);
const row = (label, here, worker) => {
  const [eh, ew, sh, sw] = [med(here, 0), med(worker, 0), med(here, 1), med(worker, 1)];
  console.log(
    `${label.padEnd(22)} stall ${sw.toFixed(0).padStart(5)} ms vs ${sh.toFixed(0).padStart(5)} ms in-thread (${(sh / sw).toFixed(0)}x shorter); ` +
      `elapsed ${ew.toFixed(0)} vs ${eh.toFixed(0)} ms (${(ew / eh).toFixed(2)}x)`,
  );
};
console.log(`${''.padEnd(22)} (worker vs in-thread, medians; stall = longest the caller's thread was held)`);
row('check (verify)', runs.verifyHere, runs.verifyWorker);
row('rebuild search index', runs.rebuildHere, runs.rebuildWorker);
