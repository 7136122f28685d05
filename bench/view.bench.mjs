// Working-view benchmark: is building the view for the next model call flat in the size of the log?
//
// For each size (default 1,000 and 100,000 logged events) a session history is written to a fresh
// log exactly as the agent loop writes it — model turns, tool calls and results, user messages and
// the eviction sweeps the real WorkingView plans, with deterministic titles — but in bulk
// (appendMany). Then a real AgentLoop is opened on it (rebuilding view and index from the log, the
// restart path) and runs live steps with a scripted model; each step reports the time spent
// building the view (eviction planning + measuring + rendering). The 1k run is the baseline of the
// 100k run: target ratio ≤ 1.5. Also printed: tokens exposed per step vs tokens in the log.
//
// usage: node bench/view.bench.mjs [--sizes 1000,100000] [--steps 300] [--budget 8000]
// Needs the tsc output: `npx tsc -p .` first (`npm run bench` builds). Smoke size
// (SCROLL_BENCH_SMOKE=1): 200 and 2,000 events, 20 live steps; the flatness target is not checked.
import { createRequire } from 'node:module';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SMOKE, verdict } from './lib/measure.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'out', 'src');
if (!existsSync(join(out, 'core', 'agent', 'agentLoop.js'))) {
  console.error('view.bench: compiled output missing — run `npx tsc -p .` first');
  process.exit(2);
}
const require = createRequire(import.meta.url);
const { EventLog } = require(join(out, 'core', 'log', 'eventLog.js'));
const { AgentLoop, evictionMeta } = require(join(out, 'core', 'agent', 'agentLoop.js'));
const { WorkingView } = require(join(out, 'core', 'agent', 'workingView.js'));
const { fallbackTitle } = require(join(out, 'core', 'agent', 'titles.js'));
const { ScriptedModelClient } = require(join(out, 'core', 'agent', 'testing', 'scriptedModel.js'));
const { SYSTEM_PROMPT } = require(join(out, 'prompts', 'index.js'));

function arg(name, dflt) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
}
const sizes = String(arg('sizes', SMOKE ? '200,2000' : '1000,100000')).split(',').map(Number);
const liveSteps = Number(arg('steps', SMOKE ? 20 : 300));
const budget = Number(arg('budget', 8000));
const SESSION = 'bench-view';

/** The host tool of the bench: a deterministic report of 300–1,500 characters. */
const BenchTool = {
  definition: { name: 'check_item', description: 'Check one item.', inputSchema: { type: 'object', properties: { item: { type: 'integer' } } } },
  async invoke(input) {
    return resultText(Number(input.item));
  },
};
function resultText(n) {
  const lines = [`item ${n}: checked module_${n % 97} against rule R${n % 13}`];
  for (let i = 0; i < 6 + (n % 30); i++) lines.push(`  detail ${i}: value ${(n * 7919 + i * 104729) % 100003} within tolerance`);
  return lines.join('\n');
}

/** Writes a session of about `target` events the way the loop would, in bulk. */
async function synthesize(log, target) {
  const view = new WorkingView({ session: SESSION, systemPrompt: SYSTEM_PROMPT(), budget, indexCap: 8 });
  const tools = [BenchTool.definition];
  let seq = log.maxSeq();
  let batch = [];
  const flush = () => {
    if (!batch.length) return;
    const written = log.appendMany(batch);
    if (written[written.length - 1].seq !== seq) throw new Error(`seq drift: log wrote ${written[written.length - 1].seq}, expected ${seq}`);
    batch = [];
  };
  const push = (e) => {
    const ne = { session: SESSION, meta: {}, step: null, toolCallId: null, parentSeq: null, name: null, ...e };
    seq++;
    batch.push(ne);
    view.apply({ ...ne, seq, ts: '', headline: null, payload: null, bytes: 0, tokens: 0 });
    return seq;
  };
  push({ kind: 'user_message', role: 'user', content: 'Work through the inventory checklist.', step: 1 });
  let item = 0;
  while (seq < target) {
    const step = view.nextStep;
    const plan = await view.planEviction(tools);
    if (plan) {
      const title = fallbackTitle(view.planEvents(plan), view.currentRequest());
      const after = view.index.withBlock({ fromSeq: plan.fromSeq, toSeq: plan.toSeq, title, evictionSeq: null });
      push({
        kind: 'eviction',
        role: 'system',
        content: `Evicted seq ${plan.fromSeq}–${plan.toSeq} from the working view. task: ${title.task}`,
        step,
        meta: evictionMeta(plan, title, 'fallback', undefined, SESSION, step, budget, after.snapshot()),
      });
    }
    item++;
    const turn = push({ kind: 'model_turn', role: 'assistant', name: 'scripted', content: item % 9 === 0 ? `Items up to ${item} fine.` : '', step, meta: { step } });
    const call = push({ kind: 'tool_call', role: 'assistant', name: 'check_item', content: JSON.stringify({ item }), toolCallId: `h${item}`, parentSeq: turn, step });
    push({ kind: 'tool_result', role: 'tool', name: 'check_item', content: resultText(item), toolCallId: `h${item}`, parentSeq: call, step, meta: { isError: false } });
    if (item % 200 === 0) push({ kind: 'user_message', role: 'user', content: `Continue with batch ${item / 200 + 1} of the checklist.`, step: step + 1 });
    if (batch.length >= 5000) flush();
  }
  flush();
  return view;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
function p95(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.95))];
}
const fmt = (n) => Math.round(n).toLocaleString('en-US');

/** The log without SQL access: AgentLoop.open then replays the whole session (the baseline rebuild). */
function withoutSql(log) {
  return { append: (e) => log.append(e), maxSeq: () => log.maxSeq(), range: (a, b) => log.range(a, b), iterateSession: (s, n) => log.iterateSession(s, n) };
}

// Phase 1: write each history and open a loop on it (timing the restart rebuild, both ways).
const setups = [];
for (const size of sizes) {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-view-bench-'));
  const log = EventLog.open({ workspace: dir, session: SESSION, redact: false });
  let t = performance.now();
  const planned = await synthesize(log, size);
  const fillMs = performance.now() - t;
  globalThis.gc?.();
  let turn = 0;
  const model = new ScriptedModelClient(() => ({ toolCalls: [{ id: `live${++turn}`, name: 'check_item', input: { item: 1_000_000 + turn } }] }), {
    maxInputTokens: budget * 4,
    keepRequests: 1,
  });
  const steps = [];
  const options = { session: SESSION, model, tools: [BenchTool], maxViewTokens: budget, titleModel: null, view: { indexCap: 8 } };
  if (!setups.length) {
    // Warm both rebuild paths up on the smallest log so the first timing is not a cold JIT.
    AgentLoop.open({ ...options, log });
    AgentLoop.open({ ...options, log: withoutSql(log) });
  }
  t = performance.now();
  const loop = AgentLoop.open({ ...options, log, onProgress: (p) => p.type === 'step' && steps.push(p) });
  const rebuildMs = performance.now() - t;
  if (loop.view.fingerprint() !== planned.fingerprint()) throw new Error('the view rebuilt from the log differs from the one that wrote it');
  t = performance.now();
  const fullReplay = AgentLoop.open({ ...options, log: withoutSql(log) });
  const fullRebuildMs = performance.now() - t;
  if (fullReplay.view.fingerprint() !== planned.fingerprint()) throw new Error('the fully replayed view differs from the one that wrote the log');
  setups.push({ size, dir, log, loop, steps, fillMs, rebuildMs, fullRebuildMs, events: log.maxSeq() });
}

// Phase 2: live steps, interleaved in chunks across sizes so that load and GC on a shared machine
// hit every size alike. The first chunk of each is a warm-up and not counted.
const CHUNK = 10;
try {
  for (const s of setups) await s.loop.run('Warm up.', { maxSteps: CHUNK });
  for (const s of setups) s.steps.length = 0;
  for (let done = 0; done < liveSteps; done += CHUNK) {
    for (const s of setups) await s.loop.run(`Continue with the checklist (${done}).`, { maxSteps: Math.min(CHUNK, liveSteps - done) });
  }
} finally {
  for (const s of setups) s.log.close();
}

const results = setups.map((s) => {
  const ms = s.steps.map((p) => p.viewMs);
  const log = EventLog.open({ path: join(s.dir, '.scroll', 'scroll.db'), readonly: true });
  const session = log.sessions().find((x) => x.session === SESSION);
  log.close();
  rmSync(s.dir, { recursive: true, force: true });
  return {
    size: s.size,
    events: s.events,
    fillMs: s.fillMs,
    rebuildMs: s.rebuildMs,
    fullRebuildMs: s.fullRebuildMs,
    medianMs: median(ms),
    p95Ms: p95(ms),
    meanViewTokens: s.steps.reduce((a, p) => a + p.viewTokens, 0) / s.steps.length,
    maxViewTokens: Math.max(...s.steps.map((p) => p.viewTokens)),
    loggedTokens: session.tokens,
    segments: s.loop.view.index.segments,
    indexLines: s.loop.view.index.size,
  };
});

console.log(`working view: ${liveSteps} live steps per size, budget ${fmt(budget)} tokens, index cap 8`);
console.log('events in log at start | view build per step median / p95 | ratio vs first | view tokens mean (max) | logged tokens | exposed | index lines / segments | restart rebuild (full replay)');
const base = results[0];
let failed = false;
for (const r of results) {
  const ratio = r.medianMs / base.medianMs;
  if (r !== base && ratio > 1.5) failed = true;
  console.log(
    [
      fmt(r.events).padStart(22),
      `${r.medianMs.toFixed(3)} / ${r.p95Ms.toFixed(3)} ms`.padStart(32),
      (r === base ? 'baseline' : ratio.toFixed(2)).padStart(14),
      `${fmt(r.meanViewTokens)} (${fmt(r.maxViewTokens)})`.padStart(22),
      fmt(r.loggedTokens).padStart(13),
      `${((100 * r.meanViewTokens) / r.loggedTokens).toFixed(2)}%`.padStart(7),
      `${r.indexLines} / ${r.segments}`.padStart(22),
      `${fmt(r.rebuildMs)} ms (${fmt(r.fullRebuildMs)} ms)`.padStart(28),
    ].join(' | '),
  );
}
console.log(`(history written in bulk in ${results.map((r) => `${fmt(r.fillMs)} ms`).join(', ')}. The per-step view build never reads the log;`);
console.log(' p95 includes the steps with an eviction sweep, which appends its eviction event to the log. A restart replays the');
console.log(' events after the eviction boundary plus the eviction events; the full replay of the session is its baseline.)');
if (results.length > 1) console.log(`flatness: view build ratio ${(results[results.length - 1].medianMs / base.medianMs).toFixed(2)} for ${fmt(results[results.length - 1].events / base.events)}× the events — target ≤ 1.5: ${verdict(!failed)}`);
process.exit(failed && !SMOKE ? 1 : 0);
