// The editor's capture poll on a large ~/.codex/sessions: a heavy user's history of thousands of
// Codex rollouts, most of them other projects' (outside the workspace). While a window is open the
// capture service looks every few seconds (src/vscode/capture/captureService.ts); this measures the
// CPU time of one idle look (nothing changed) and of a look after one rollout grew, in the same run:
//   full look: every located file handed to importFiles (what the service did before ChangedFiles),
//   this build's look: only the files changed since the window imported them, files unchanged for
//     a while stat'ed on every tenth look (changedFiles.ts), p50 and p90 shown,
//   --baseline DIR: the full look with the build in DIR (its own listing and importer), e.g. a
//   worktree at main's commit.
// The rollouts are generated once into ${SCROLL_DEV_CACHE:-~/.cache/scroll-dev}/bench/capture-poll-<n>/.
// Usage: node bench/capturePoll.bench.mjs [--files 5000] [--looks 20] [--baseline DIR]
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { SMOKE, check, cpuMs, option, pct, verdict } from './lib/measure.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const nFiles = Number(option(args, '--files', SMOKE ? 200 : 5000));
const looks = Number(option(args, '--looks', SMOKE ? 3 : 20));
const baselineDir = option(args, '--baseline', undefined);
const POLL_MS = 3000; // captureService.ts POLL_MS
const FULL_LOOK_EVERY = 10; // captureService.ts FULL_LOOK_EVERY
const WORKSPACE = '/bench/mine';
const scope = [WORKSPACE];

const load = (base) => {
  const out = join(base, 'out', 'src');
  if (!existsSync(join(out, 'vscode', 'capture', 'captureLocate.js'))) {
    console.error(`capture poll bench: run \`npx tsc -p .\` in ${base} first (needs out/src)`);
    process.exit(2);
  }
  return {
    capture: require(join(out, 'core', 'capture', 'index.js')),
    locate: require(join(out, 'vscode', 'capture', 'captureLocate.js')).locateForWorkspace,
    changedFiles: existsSync(join(out, 'vscode', 'capture', 'changedFiles.js')) ? require(join(out, 'vscode', 'capture', 'changedFiles.js')) : undefined,
    EventLog: require(join(out, 'core', 'log', 'eventLog.js')).EventLog,
  };
};
const mine = load(root);
const base = baselineDir ? load(baselineDir) : undefined;

const cacheRoot = SMOKE ? mkdtempSync(join(tmpdir(), 'scroll-poll-bench-')) : join(process.env.SCROLL_DEV_CACHE || join(homedir(), '.cache', 'scroll-dev'), 'bench');
const home = join(cacheRoot, `capture-poll-${nFiles}-v2`);
const sessions = join(home, '.codex', 'sessions');

/** Rollouts two hours apart from 2025-01-01 (about 12 a day, so a few hundred day folders); one in ten is this workspace's. */
function generate() {
  const tmp = `${sessions}.partial`;
  rmSync(tmp, { recursive: true, force: true });
  for (let i = 0; i < nFiles; i++) {
    const d = new Date(Date.UTC(2025, 0, 1) + i * 2 * 3600_000);
    const dir = join(tmp, String(d.getUTCFullYear()), String(d.getUTCMonth() + 1).padStart(2, '0'), String(d.getUTCDate()).padStart(2, '0'));
    mkdirSync(dir, { recursive: true });
    const id = `0199a2d7-41c4-78b1-b7cc-${String(i).padStart(12, '0')}`;
    const ts = d.toISOString();
    const cwd = i % 10 === 0 ? WORKSPACE : `/bench/other-${i % 37}`;
    const lines = [
      { timestamp: ts, type: 'session_meta', payload: { id, timestamp: ts, cwd, originator: 'codex_cli_rs', cli_version: '0.46.0' } },
      { timestamp: ts, type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: `question ${i}: why does the build fail on the ${i % 13}th step?` }] } },
      { timestamp: ts, type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `answer ${i}: the cache key misses the lockfile` }] } },
    ];
    const file = join(dir, `rollout-${ts.slice(0, 19).replace(/:/g, '-')}-${id}.jsonl`);
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    utimesSync(file, d, d); // last written when its session ran, as in a real history
  }
  mkdirSync(dirname(sessions), { recursive: true });
  renameSync(tmp, sessions);
}
if (!existsSync(sessions)) generate();

const work = mkdtempSync(join(tmpdir(), 'scroll-poll-run-'));
try {
  const spec = mine.capture.SOURCES.codex;
  const opts = { scope, cwdOf: spec.cwdOf && ((p) => spec.cwdOf(p, scope)) };
  /** One kind of look into its own log: imported once (the window's first look), then measured. */
  const setup = async (build, name) => {
    const log = build.EventLog.open({ path: join(work, name, 'scroll.db'), onWarning: () => undefined });
    const files = build.locate('codex', { home, scope }).files;
    check(files.length === nFiles, `${name}: located ${files.length} of ${nFiles} rollouts`);
    const first = await build.capture.importFiles(log, build.capture.SOURCES.codex.reader, files, opts);
    check(first.appended > 0 && first.outOfScope.length === nFiles - Math.ceil(nFiles / 10), `${name}: first look ${JSON.stringify({ appended: first.appended, out: first.outOfScope.length })}`);
    return log;
  };
  const fullLook = (build, log) => async () => {
    const files = build.locate('codex', { home, scope }).files;
    return build.capture.importFiles(log, build.capture.SOURCES.codex.reader, files, opts);
  };
  const changedLook = (log) => {
    const changes = new mine.changedFiles.ChangedFiles();
    changes.setContext(`${scope.join('\n')}\n${log.path}`);
    // The window's first look imported everything: its stamps are where this look starts.
    const all = mine.locate('codex', { home, scope }).files;
    changes.imported('codex', changes.changes('codex', all).stamps);
    let n = 0;
    return async (fired) => {
      const files = mine.locate('codex', { home, scope }).files;
      // As captureService.ts: one look in FULL_LOOK_EVERY stats every file; between them, cold files
      // only in the folders a watcher fired for (the grown rollout's, after a growth).
      const c = changes.changes('codex', files, { full: ++n % FULL_LOOK_EVERY === 0, fired });
      if (!c.changed.length) return { appended: 0 };
      const s = await mine.capture.importFiles(log, spec.reader, c.changed, opts);
      changes.imported('codex', c.stamps);
      return s;
    };
  };
  const kinds = [['this build (changed files only)', 'changed', mine], ['full look (every file to the importer)', 'full', mine]];
  if (base) kinds.push([`--baseline full look (${baselineDir})`, 'baseline', base]);
  const runs = [];
  for (const [label, name, build] of kinds) {
    const log = await setup(build, name);
    runs.push({ label, log, look: name === 'changed' ? changedLook(log) : fullLook(build, log), idle: [], grown: [] });
  }
  // A rollout of this workspace that grows between looks (an agent at work), a new line each time
  // (unique to this run: the generated history is reused, and Codex records without ids are known by their text).
  const runId = `${process.pid}-${Date.now()}`;
  const active = mine.locate('codex', { home, scope }).files.find((_, i) => i % 10 === 0);
  const grow = (n) =>
    appendFileSync(active, JSON.stringify({ timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(), type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: `follow-up ${n} of run ${runId}` }] } }) + '\n');
  for (let i = 0; i < looks; i++) {
    // Interleaved, so each kind sees the same machine; an idle look, then a look after a growth.
    for (const r of runs) {
      const c0 = process.cpuUsage();
      const s = await r.look();
      r.idle.push(cpuMs(process.cpuUsage(c0)));
      check(s.appended === 0, `${r.label}: an idle look appended ${s.appended}`);
    }
    grow(i);
    for (const r of runs) {
      const c0 = process.cpuUsage();
      const s = await r.look(new Set([dirname(active)]));
      r.grown.push(cpuMs(process.cpuUsage(c0)));
      check(s.appended === 1, `${r.label}: the look after a growth appended ${s.appended}, want 1`);
    }
  }
  console.log(`${nFiles} Codex rollouts (${Math.ceil(nFiles / 10)} of this workspace) in ${sessions}; ${looks} looks of each kind, interleaved; CPU time of this process`);
  const row = (a, b, c, d) => console.log(`${a.padEnd(48)}${String(b).padStart(12)}${String(c).padStart(12)}  ${d}`);
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  row('', 'idle p50', 'idle p90', 'grown p50 · idle CPU share of one core (mean, one look per 3 s)');
  for (const r of runs) row(r.label, `${pct(r.idle, 50).toFixed(1)} ms`, `${pct(r.idle, 90).toFixed(1)} ms`, `${pct(r.grown, 50).toFixed(1)} ms · ${((100 * mean(r.idle)) / POLL_MS).toFixed(2)} %`);
  const ratio = mean(runs[0].idle) / mean(runs[1].idle);
  console.log(`this build's idle looks: ${ratio.toFixed(2)}x of the full look's CPU time, on average (target: well under 1: ${verdict(ratio < 0.5)})`);
  for (const r of runs) r.log.close();
} finally {
  rmSync(work, { recursive: true, force: true });
  if (SMOKE) rmSync(cacheRoot, { recursive: true, force: true });
}
