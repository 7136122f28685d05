// Shared by the ingest/search benches: the plain FTS5 floor, CPU timing, percentiles, options.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const Database = require('better-sqlite3');

/** The floor: a plain FTS5 table holding the same text, filled by raw SQL in transactions of a batch. */
export function openFloor(path, tokenize) {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE VIRTUAL TABLE plain USING fts5(content, session UNINDEXED, kind UNINDEXED, tokenize = "${tokenize}")`);
  const ins = db.prepare('INSERT INTO plain(content, session, kind) VALUES (?, ?, ?)');
  const insertBatch = db.transaction((batch) => {
    for (const e of batch) ins.run(e.content, e.session, e.kind);
  });
  return { db, insertBatch };
}

export const cpuMs = (d) => (d.user + d.system) / 1000;

/**
 * [cpu ms, result, wall ms]. CPU time of this process is the primary figure: the machine these
 * benchmarks run on is shared and often oversubscribed, which inflates wall time arbitrarily;
 * search and ingest are single-threaded and in-process (SQLite runs on this thread), so CPU time
 * is what the latency is on an unloaded core. Wall time is printed beside it.
 */
export function timeIt(fn) {
  const c = process.cpuUsage();
  const t = process.hrtime.bigint();
  const r = fn();
  const wall = Number(process.hrtime.bigint() - t) / 1e6;
  return [cpuMs(process.cpuUsage(c)), r, wall];
}

/** The p-th percentile (nearest rank) of a list of numbers. */
export function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

/** The value after `--name` in args, or the default. */
export function option(args, name, dflt) {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : dflt;
}

/**
 * Arguments that are neither options nor the value of one. `npm run bench` passes the same
 * arguments to every benchmark, so a value such as `--corpus 1` must not be read as a path.
 * `flags`: options that take no value.
 */
export function positionals(args, flags = []) {
  return args.filter((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1].startsWith('--') && !flags.includes(args[i - 1])));
}

/**
 * Smoke size (`npm test`'s bench-smoke layer: `node scripts/bench.mjs --smoke`, which sets
 * SCROLL_BENCH_SMOKE=1): every bench runs at a tiny size so a broken one fails CI. Its figures are
 * still printed next to the same-run baseline, but no target is checked; only a crash or a wrong
 * result fails it.
 */
export const SMOKE = process.env.SCROLL_BENCH_SMOKE === '1';

/** A target's verdict, or that it is not checked at smoke size. */
export function verdict(ok, met = 'met', missed = 'MISSED') {
  return SMOKE ? 'not checked (smoke size)' : ok ? met : missed;
}

/** Fails the bench on a wrong result (at every size, smoke included). */
export function check(ok, message) {
  if (!ok) throw new Error(`wrong result: ${message}`);
}
