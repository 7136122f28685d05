// `npm run bench`: builds what the benches load (tsc → out/, esbuild → dist/), then runs every
// bench/*.bench.mjs in turn; each prints its own figures next to a baseline measured in the same run.
// Extra arguments are passed through (e.g. a data path).
//   --smoke     every bench at a tiny size (SCROLL_BENCH_SMOKE=1 for each): seconds each, figures
//               printed, no target checked; a crash or a wrong result fails it (npm test's bench-smoke layer)
//   --no-build  use out/ and dist/ as they are (npm test has just built them)
//   SCROLL_BENCH=search            only the benches whose file name starts with that
//   SCROLL_BENCH_SKIP="a b"        leave those out (by the same prefix), with a note
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const smoke = argv.includes('--smoke');
const build = !argv.includes('--no-build');
const passed = argv.filter((a) => a !== '--smoke' && a !== '--no-build');
const only = process.env.SCROLL_BENCH; // e.g. SCROLL_BENCH=search to run one
const skip = (process.env.SCROLL_BENCH_SKIP ?? '').split(/[\s,]+/).filter(Boolean);
const files = readdirSync(join(root, 'bench'))
  .filter((f) => f.endsWith('.bench.mjs'))
  .filter((f) => !only || f.startsWith(only))
  .sort();

const run = (cmd, args) => spawnSync(cmd, args, { stdio: 'inherit', cwd: root }).status === 0;
if (build) {
  console.log('== bench: building (npx tsc -p . && node scripts/build.mjs; --no-build skips it)');
  if (!run('npx', ['tsc', '-p', '.']) || !run(process.execPath, [join(root, 'scripts', 'build.mjs')])) {
    console.error('bench: the build failed');
    process.exit(1);
  }
}

const env = { ...process.env, ...(smoke ? { SCROLL_BENCH_SMOKE: '1' } : {}) };
const results = [];
for (const f of files) {
  if (skip.some((s) => f.startsWith(s))) {
    console.log(`\n=== ${f}: SKIPPED (SCROLL_BENCH_SKIP=${skip.join(' ')}) ===`);
    results.push([f, 'skipped', 0]);
    continue;
  }
  console.log(`\n=== ${f}${smoke ? ' (smoke size)' : ''} ===`);
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--expose-gc', join(root, 'bench', f), ...passed], { stdio: 'inherit', cwd: root, env });
  const s = (performance.now() - t0) / 1000;
  const ok = r.status === 0;
  results.push([f, ok ? 'ok' : `FAILED (${r.signal ?? `exit ${r.status}`})`, s]);
}
const failed = results.filter(([, v]) => v.startsWith('FAILED'));
console.log(`\n== bench${smoke ? ' (smoke)' : ''}: ${results.map(([f, v, s]) => `${f.replace('.bench.mjs', '')} ${v}${v === 'skipped' ? '' : ` ${s.toFixed(1)} s`}`).join(', ')}`);
process.exit(failed.length ? 1 : 0);
