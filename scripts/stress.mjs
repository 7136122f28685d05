#!/usr/bin/env node
// SIGKILL torture of the event log: `npm run stress` (build first: `npx tsc -p .`).
//
//   node scripts/stress.mjs [--trials 50] [--seed N] [--events 4000] [--tmpfs auto|on|off]
//                           [--dir PATH] [--keep] [--json] [--out DIR]
//
// --tmpfs (default auto: when running as root): the log lives on a fresh `noatime` tmpfs. There,
// reading a file does not update its access time, so only the writer's explicit claim
// (PayloadStore.claim) keeps gc from removing a file it reuses; with relatime (most disks) the
// reuse's own read would mark the file too and hide a missing claim.
//
// Each trial is one of (in turn):
//   gc        `scroll gc --grace 0` (no writer running), killed at a random time, after a killed
//             ingest has left orphans
//   gc+reuse  an ingest that reuses the payload contents of a killed ingest (its orphans, aged past
//             the grace period) while `scroll gc` (default grace) runs beside it; either killed at
//             random: a writer's claim on a reused file must win over gc
//   reindex   `scroll reindex`, killed at a random time
//   writers   two `scroll ingest`s at once (the second waits for the first's write lock), each
//             killed at its own random time (or left to finish)
//   ingest    `scroll ingest` of a fresh file, killed (SIGKILL) at a random time
// After each trial, read-only: every event of every ingest that committed is there with its exact
// content (payload files read back against their hash), every ingest is all or nothing (no partial
// event), seqs are 1..max without holes (except ones a `recovery` event declares in
// meta.holes: [[from, to], ...]), and the full check (`verify`) passes. At the end, one
// `scroll gc --grace 0`, after which the check must report 0 orphan payload files and 0 temp files.
// Prints the counts; exit code 1 when anything was lost, partial, missing or left over.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({
  options: {
    trials: { type: 'string', default: '50' },
    seed: { type: 'string' },
    dir: { type: 'string' },
    keep: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    out: { type: 'string', default: join(root, 'out') }, // the tsc build to run (CLI and core)
    events: { type: 'string', default: '4000' }, // events per ingest
    tmpfs: { type: 'string', default: 'auto' },
  },
});
const trials = Number(args.trials);
const perIngest = Number(args.events);
if (!Number.isInteger(trials) || trials < 1) throw new Error(`--trials expects a positive integer (got ${args.trials})`);
const outDir = resolve(args.out);
const cli = join(outDir, 'src', 'cli', 'main.js');
if (!existsSync(cli)) {
  process.stderr.write(`stress: no build at ${outDir} — run \`npx tsc -p .\` first\n`);
  process.exit(2);
}
const require = createRequire(import.meta.url);
const { EventLog } = require(join(outDir, 'src', 'core', 'log', 'eventLog.js'));

// A small seeded PRNG (mulberry32): a failing run can be replayed with --seed.
const seed = args.seed !== undefined ? Number(args.seed) : Math.floor(Math.random() * 2 ** 31);
let state = seed >>> 0;
const random = () => {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

if (!['auto', 'on', 'off'].includes(args.tmpfs)) throw new Error(`--tmpfs expects auto, on or off (got ${args.tmpfs})`);
const base = args.dir ? resolve(args.dir) : mkdtempSync(join(tmpdir(), 'scroll-stress-'));
mkdirSync(base, { recursive: true });
let mounted;
if (args.tmpfs === 'on' || (args.tmpfs === 'auto' && process.getuid?.() === 0)) {
  const point = join(base, 'noatime-tmpfs');
  mkdirSync(point, { recursive: true });
  const m = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=2g,noatime', 'tmpfs', point], { encoding: 'utf8' });
  if (m.status === 0) mounted = point;
  else if (args.tmpfs === 'on') {
    process.stderr.write(`stress: cannot mount a tmpfs: ${(m.stderr || m.error?.message || '').trim()}\n`);
    process.exit(2);
  }
}
const work = mounted ?? base;
const unmount = () => {
  if (mounted && !args.keep) spawnSync('umount', ['-l', mounted]);
};
process.on('exit', unmount);
const db = join(work, '.scroll', 'scroll.db');
const payloadDir = join(work, '.scroll', 'payloads');

const WORDS = 'retry cache timeout parser header session kernel index payload commit rollback search token eviction budget'.split(' ');
/** Event i of content seed `cs`: deterministic; every 50th is big enough for a payload file. */
function content(cs, i) {
  const head = `${cs}:${i}: ${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} parseHeader_${i % 40}`;
  return i % 50 === 0 ? `${head} ${'log line of a long tool output\n'.repeat(300 + (i % 7) * 40)}` : head;
}

/** Writes the ingest file of session `tag` with contents of seed `cs`; returns its path. */
function ingestFile(tag, cs) {
  const path = join(work, `${tag}.jsonl`);
  const lines = [];
  for (let i = 0; i < perIngest; i++) {
    lines.push(JSON.stringify({ kind: i % 3 === 0 ? 'tool_result' : 'model_turn', role: i % 3 === 0 ? 'tool' : 'assistant', session: tag, content: content(cs, i), meta: { cs, i }, ts: '2026-11-30T02:00:00Z' }));
  }
  writeFileSync(path, lines.join('\n') + '\n');
  return path;
}

function run(cmdArgs) {
  const child = spawn(process.execPath, [cli, ...cmdArgs], { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c) => (stdout += c));
  child.stderr.on('data', (c) => (stderr += c));
  const done = new Promise((ok) => child.on('close', (code, signal) => ok({ code, signal, stdout, stderr })));
  return { child, done };
}

/** Runs `cmdArgs`, killed with SIGKILL after `killAfterMs` (or never when undefined). */
async function runKilled(cmdArgs, killAfterMs) {
  const { child, done } = run(cmdArgs);
  const timer = killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
  const r = await done;
  clearTimeout(timer);
  return { ...r, killed: r.signal === 'SIGKILL' };
}

const counts = {
  trials: 0,
  byKind: {},
  kills: 0,
  ingests: { started: 0, committed: 0, rolledBack: 0, failed: 0 },
  events: { committed: 0, checked: 0 },
  lost: 0,
  partial: 0,
  holes: 0,
  checkFailures: 0,
  /** The most orphan payload files / temp files the check saw after a trial (what kills leave). */
  orphansPeak: { files: 0, temps: 0 },
  /** What the gc runs of the trials freed (those not killed). */
  trialGcFreed: { runs: 0, payloads: 0, temps: 0, bytes: 0 },
  orphansBeforeFinalGc: { files: 0, temps: 0 },
  finalGcFreed: null,
  orphansAfterFinalGc: null,
  tempsAfterFinalGc: null,
};
const problems = [];
/** session tag → { cs, n }: ingests whose events must all be there, from now on. */
const committed = new Map();
/** Ingests that did not commit (killed or failed): their content seeds, for gc+reuse. */
const rolledBack = [];
let tagNo = 0;
const nextTag = () => `t${String(++tagNo).padStart(4, '0')}`;

/** Adds what a gc run that finished freed. */
function gcDone(label, r) {
  if (r.killed) {
    counts.kills++;
    return;
  }
  if (r.code !== 0) {
    problems.push(`${label}: gc failed: ${r.stderr.trim()}`);
    return;
  }
  const { freed } = JSON.parse(r.stdout);
  counts.trialGcFreed.runs++;
  counts.trialGcFreed.payloads += freed.payloads;
  counts.trialGcFreed.temps += freed.temps;
  counts.trialGcFreed.bytes += freed.bytes;
}

/** All-or-nothing of `tag` (an ingest just run); updates `committed`. */
function settle(tag, cs, result) {
  counts.ingests.started++;
  if (result.killed) counts.kills++;
  const log = EventLog.open({ path: db, readonly: true, onWarning: () => undefined });
  let n;
  try {
    n = Number(log.database.prepare('SELECT count(*) AS n FROM events WHERE session = ?').get(tag).n);
  } finally {
    log.close();
  }
  if (n === perIngest) {
    committed.set(tag, { cs, n });
    counts.ingests.committed++;
    counts.events.committed += n;
  } else if (n === 0) {
    rolledBack.push(cs);
    if (result.killed) counts.ingests.rolledBack++;
    else {
      counts.ingests.failed++;
      problems.push(`${tag}: ingest failed without being killed (exit ${result.code}): ${result.stderr.trim().slice(0, 300)}`);
    }
  } else {
    counts.partial++;
    problems.push(`${tag}: ${n} of ${perIngest} events (a partial ingest)`);
  }
  if (!result.killed && result.code === 0 && n !== perIngest) problems.push(`${tag}: ingest said it succeeded but ${n} events are there`);
}

/** The invariants, read-only, after a trial. */
function verifyAll(label) {
  const log = EventLog.open({ path: db, readonly: true, onWarning: () => undefined });
  try {
    const rows = log.database.prepare('SELECT seq, kind, meta FROM events ORDER BY seq').all();
    const declared = [];
    for (const r of rows) {
      if (r.kind !== 'recovery') continue;
      try {
        for (const h of JSON.parse(r.meta).holes ?? []) declared.push(Array.isArray(h) ? h : [h.from, h.to]);
      } catch {
        // not ours to judge
      }
    }
    let expect = 1;
    for (const r of rows) {
      const seq = Number(r.seq);
      if (seq !== expect && !declared.some(([a, b]) => a === expect && b === seq - 1)) {
        counts.holes++;
        problems.push(`${label}: seq ${expect}..${seq - 1} missing (a hole)`);
      }
      expect = seq + 1;
    }
    // Every committed ingest's events, with their exact content.
    for (const [tag, { cs, n }] of committed) {
      let seen = 0;
      try {
        // Payloads read back and checked against their hash on the way.
        for (const e of log.iterateSession(tag, 2000)) {
          seen++;
          counts.events.checked++;
          if (e.content !== content(cs, e.meta.i)) {
            counts.partial++;
            problems.push(`${label}: event ${e.seq} of ${tag} does not hold what was ingested`);
          }
        }
      } catch (err) {
        counts.lost++; // its content (a payload file) is gone
        problems.push(`${label}: an event of ${tag} cannot be read: ${err.message}`);
        continue;
      }
      if (seen !== n) {
        counts.lost += n - seen;
        problems.push(`${label}: ${tag} has ${seen} of its ${n} committed events`);
      }
    }
    const v = log.verify();
    counts.orphansPeak.files = Math.max(counts.orphansPeak.files, v.hygiene?.orphans.files ?? 0);
    counts.orphansPeak.temps = Math.max(counts.orphansPeak.temps, v.hygiene?.temps.files ?? 0);
    if (!v.ok) {
      counts.checkFailures++;
      problems.push(`${label}: check failed: ${JSON.stringify({ database: v.database, index: v.index, payloads: v.payloads }).slice(0, 400)}`);
    }
    return v;
  } finally {
    log.close();
  }
}

/**
 * Moves the payload files' clocks back by `ms`: written (mtime) then, last read (atime) a little
 * later, as a file read once since (relatime then leaves atime alone on the next read, so only
 * an explicit claim can mark it in use).
 */
function ageAll(dir, ms) {
  if (!existsSync(dir)) return;
  const written = new Date(Date.now() - ms - 600_000);
  const read = new Date(Date.now() - ms);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) ageAll(p, ms);
    else if (!e.name.startsWith('.')) utimesSync(p, read, written);
  }
}

const started = Date.now();
// Calibration (and a first committed ingest): how long the CLI takes to start and one uninterrupted
// ingest takes here. Kills land mostly after start-up, where there is something to interrupt.
const ts = Date.now();
spawnSync(process.execPath, [cli, '--help'], { cwd: work });
const startupMs = Date.now() - ts;
/** When to kill a job that takes `ms` uninterrupted: sometimes during start-up, mostly while it works, sometimes after. */
const killTime = (ms) => (random() < 0.15 ? random() * startupMs : startupMs + random() * Math.max(ms - startupMs, 1) * 1.15);
const calTag = nextTag();
const t0 = Date.now();
const cal = await runKilled(['ingest', ingestFile(calTag, calTag)]);
const ingestMs = Date.now() - t0;
settle(calTag, calTag, cal);
if (cal.code !== 0) {
  process.stderr.write(`stress: the calibration ingest failed: ${cal.stderr}\n`);
  process.exit(2);
}
const t1 = Date.now();
await runKilled(['reindex']);
const reindexMs = Date.now() - t1;
const t2 = Date.now();
await runKilled(['gc']);
const gcMs = Date.now() - t2;
verifyAll('calibration');

// Ending on a killed ingest, so the final gc has its leftovers to remove.
const KINDS = ['gc', 'gc+reuse', 'reindex', 'writers', 'ingest'];
for (let trial = 0; trial < trials; trial++) {
  const kind = KINDS[trial % KINDS.length];
  counts.trials++;
  counts.byKind[kind] = (counts.byKind[kind] ?? 0) + 1;
  const label = `trial ${trial + 1} (${kind})`;
  if (kind === 'ingest') {
    const tag = nextTag();
    const file = ingestFile(tag, tag);
    settle(tag, tag, await runKilled(['ingest', file], killTime(ingestMs)));
  } else if (kind === 'writers') {
    const [a, b] = [nextTag(), nextTag()];
    const [fa, fb] = [ingestFile(a, a), ingestFile(b, b)];
    // Each killed somewhere in the time both take, or (one time in four) left to finish.
    const when = () => (random() < 0.25 ? undefined : killTime(2 * ingestMs));
    const [ra, rb] = await Promise.all([runKilled(['ingest', fa], when()), runKilled(['ingest', fb], when())]);
    settle(a, a, ra);
    settle(b, b, rb);
  } else if (kind === 'reindex') {
    const r = await runKilled(['reindex'], killTime(reindexMs));
    if (r.killed) counts.kills++;
    else if (r.code !== 0) problems.push(`${label}: reindex failed: ${r.stderr.trim()}`);
  } else if (kind === 'gc') {
    // Orphans to collect: an ingest killed midway.
    const tag = nextTag();
    settle(tag, tag, await runKilled(['ingest', ingestFile(tag, tag)], startupMs + (ingestMs - startupMs) * (0.3 + 0.5 * random())));
    gcDone(label, await runKilled(['gc', '--grace', '0', '--json'], killTime(gcMs)));
  } else {
    // gc+reuse: an ingest killed late leaves most of its payload files; they age past the grace
    // period; then the same contents are ingested again (the files are reused, not rewritten)
    // while a gc runs, its walk timed to land while the new ingest is reusing them.
    const cs = nextTag();
    settle(cs, cs, await runKilled(['ingest', ingestFile(cs, cs)], startupMs + (ingestMs - startupMs) * (0.6 + 0.3 * random())));
    ageAll(payloadDir, 2 * 3_600_000);
    const tag = nextTag();
    const file = ingestFile(tag, cs);
    const killIngest = random() < 0.3 ? killTime(ingestMs) : undefined;
    const [ri, rg] = await Promise.all([
      runKilled(['ingest', file], killIngest),
      new Promise((ok) => setTimeout(ok, random() * (ingestMs - startupMs) * 0.7)).then(() => runKilled(['gc', '--json'], random() < 0.2 ? killTime(gcMs) : undefined)),
    ]);
    gcDone(label, rg);
    settle(tag, cs, ri);
  }
  verifyAll(label);
}

// The final gc: nothing is writing, so every unreferenced file may go.
const before = (() => {
  const log = EventLog.open({ path: db, readonly: true, onWarning: () => undefined });
  try {
    return log.verify().hygiene;
  } finally {
    log.close();
  }
})();
counts.orphansBeforeFinalGc = { files: before?.orphans.files ?? 0, temps: before?.temps.files ?? 0 };
const finalGc = spawnSync(process.execPath, [cli, 'gc', '--grace', '0', '--json'], { cwd: work, encoding: 'utf8' });
if (finalGc.status !== 0) problems.push(`final gc failed: ${finalGc.stderr.trim()}`);
else counts.finalGcFreed = JSON.parse(finalGc.stdout).freed;
const after = verifyAll('after the final gc');
counts.orphansAfterFinalGc = after.hygiene?.orphans.files ?? 0;
counts.tempsAfterFinalGc = after.hygiene?.temps.files ?? 0;
if (counts.orphansAfterFinalGc || counts.tempsAfterFinalGc) problems.push(`after the final gc: ${counts.orphansAfterFinalGc} orphan(s), ${counts.tempsAfterFinalGc} temp file(s) left`);

const ms = Date.now() - started;
const ok = problems.length === 0;
const summary = { ok, seed, onNoatimeTmpfs: mounted !== undefined, ...counts, timing: { startupMs, ingestMs, reindexMs, gcMs, totalMs: ms }, problems: problems.slice(0, 50), dir: args.keep ? work : undefined };
if (args.json) process.stdout.write(JSON.stringify(summary) + '\n');
else {
  const out = [
    `stress: ${counts.trials} trials (${Object.entries(counts.byKind).map(([k, n]) => `${n} ${k}`).join(', ')}), seed ${seed}, ${(ms / 1000).toFixed(1)} s` +
      (mounted ? ', on a noatime tmpfs' : ''),
    `  kills            ${counts.kills}`,
    `  ingests          ${counts.ingests.started} started: ${counts.ingests.committed} committed, ${counts.ingests.rolledBack} killed before commit (nothing of them in the log), ${counts.ingests.failed} failed`,
    `  events           ${counts.events.committed} committed, ${counts.events.checked} read back and compared`,
    `  lost             ${counts.lost}`,
    `  partial          ${counts.partial}`,
    `  seq holes        ${counts.holes}`,
    `  check failures   ${counts.checkFailures}`,
    `  left by kills    up to ${counts.orphansPeak.files} orphan payload file(s) and ${counts.orphansPeak.temps} temp file(s) at once`,
    `  trial gc runs    ${counts.trialGcFreed.runs} finished, freed ${counts.trialGcFreed.payloads} payload file(s), ${counts.trialGcFreed.temps} temp file(s), ${counts.trialGcFreed.bytes} bytes`,
    `  before final gc  ${counts.orphansBeforeFinalGc.files} orphan payload file(s), ${counts.orphansBeforeFinalGc.temps} temp file(s)`,
    `  final gc freed   ${counts.finalGcFreed ? `${counts.finalGcFreed.payloads} payload file(s), ${counts.finalGcFreed.temps} temp file(s), ${counts.finalGcFreed.bytes} bytes` : '—'}`,
    `  after final gc   ${counts.orphansAfterFinalGc} orphan(s), ${counts.tempsAfterFinalGc} temp file(s)`,
    ok ? 'ok' : `FAILED:\n${problems.slice(0, 20).map((p) => `  - ${p}`).join('\n')}`,
  ];
  if (args.keep) out.push(`kept: ${work}${mounted ? ` (a tmpfs: umount ${mounted} when done)` : ''}`);
  process.stdout.write(out.join('\n') + '\n');
}
unmount();
if (!args.keep) mounted = undefined;
if (!args.keep && !args.dir) rmSync(base, { recursive: true, force: true });
process.exitCode = ok ? 0 : 1;
