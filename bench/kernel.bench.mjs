// Kernel benchmark: start-up time and `print(1)` round trip of the subprocess kernel, each next
// to a baseline measured in the same run on the same interpreter:
//   start-up   vs  a bare `python -c pass` process start
//   round trip vs  a raw echo round trip through a Python process's pipes
// Targets (issue 4): start-up < 300 ms, print(1) round trip p50 <= 5 ms.
// Usage: node bench/kernel.bench.mjs [--starts N] [--trips N]   (needs `npx tsc -p .` first)
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const STARTS = arg('--starts', 10);
const TRIPS = arg('--trips', 300);

let SubprocessKernel, EventLog;
try {
  ({ SubprocessKernel } = require(join(root, 'out/src/core/kernel/subprocessKernel.js')));
  ({ EventLog } = require(join(root, 'out/src/core/log/eventLog.js')));
} catch (e) {
  console.error(`kernel bench: build first (npx tsc -p .): ${e.message}`);
  process.exit(1);
}

// The interpreter itself, not a launcher shim (pyenv's shim alone costs more than the kernel).
const python = spawnSync(process.env.SCROLL_PYTHON || 'python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' })
  .stdout.trim();
if (!python) {
  console.error('kernel bench: no python3 found');
  process.exit(1);
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const ms = (x) => `${x.toFixed(2)} ms`;
const now = () => Number(process.hrtime.bigint()) / 1e6;

function timeProcess(args) {
  return new Promise((resolve, reject) => {
    const t0 = now();
    const p = spawn(python, args, { stdio: 'ignore' });
    p.on('error', reject);
    p.on('exit', () => resolve(now() - t0));
  });
}

async function rawEchoTrips(n) {
  const p = spawn(python, ['-u', '-c', 'import sys\nfor line in sys.stdin: sys.stdout.write(line); sys.stdout.flush()'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  p.stdout.setEncoding('utf8');
  let waiting;
  let buf = '';
  p.stdout.on('data', (d) => {
    buf += d;
    if (buf.includes('\n') && waiting) {
      buf = '';
      const w = waiting;
      waiting = undefined;
      w();
    }
  });
  const out = [];
  for (let i = 0; i < n; i++) {
    const t0 = now();
    await new Promise((r) => {
      waiting = r;
      p.stdin.write(JSON.stringify({ id: String(i), code: 'print(1)' }) + '\n');
    });
    out.push(now() - t0);
  }
  p.stdin.end();
  return out;
}

const dir = mkdtempSync(join(tmpdir(), 'scroll-kernel-bench-'));
try {
  const log = EventLog.open({ workspace: dir, session: 'bench', redact: false });
  for (let i = 0; i < 200; i++) log.append({ kind: 'note', role: 'user', content: `bench event ${i} about topic ${i % 17}` });
  const opts = { pythonPath: python, dbPath: log.path, session: 'bench', cwd: dir };

  // Warm the OS file cache for both sides before measuring.
  await timeProcess(['-c', 'pass']);
  const warm = new SubprocessKernel(opts);
  await warm.start();
  await warm.dispose();

  const bare = [];
  const kernelStart = [];
  for (let i = 0; i < STARTS; i++) {
    bare.push(await timeProcess(['-c', 'pass']));
    const k = new SubprocessKernel(opts);
    const t0 = now();
    await k.start();
    kernelStart.push(now() - t0);
    await k.dispose();
  }

  const echo = await rawEchoTrips(TRIPS);
  const kernel = new SubprocessKernel(opts);
  await kernel.start();
  for (let i = 0; i < 20; i++) await kernel.execute('print(1)'); // warm-up: first cell imports ast etc.
  const trips = [];
  for (let i = 0; i < TRIPS; i++) {
    const t0 = now();
    const r = await kernel.execute('print(1)');
    trips.push(now() - t0);
    if (r.stdout !== '1\n') throw new Error(`unexpected output ${JSON.stringify(r)}`);
  }
  const searchTrips = [];
  for (let i = 0; i < 50; i++) {
    const t0 = now();
    await kernel.execute('len(ms.recent(50))');
    searchTrips.push(now() - t0);
  }
  await kernel.dispose();
  log.close();

  console.log(`python: ${python}; ${STARTS} starts, ${TRIPS} round trips`);
  console.log(`start-up  baseline (python -c pass): p50 ${ms(pct(bare, 50))}`);
  console.log(`start-up  kernel (spawn → ms bound):  p50 ${ms(pct(kernelStart, 50))}  max ${ms(Math.max(...kernelStart))}` +
    `  ratio ${(pct(kernelStart, 50) / pct(bare, 50)).toFixed(2)}x  target < 300 ms: ${pct(kernelStart, 50) < 300 ? 'PASS' : 'FAIL'}`);
  console.log(`start-up  kernel overhead over the bare start: p50 ${ms(pct(kernelStart, 50) - pct(bare, 50))}`);
  console.log(`round trip baseline (raw pipe echo):  p50 ${ms(pct(echo, 50))}  p95 ${ms(pct(echo, 95))}`);
  console.log(`round trip kernel print(1):           p50 ${ms(pct(trips, 50))}  p95 ${ms(pct(trips, 95))}` +
    `  ratio ${(pct(trips, 50) / pct(echo, 50)).toFixed(2)}x  target p50 <= 5 ms: ${pct(trips, 50) <= 5 ? 'PASS' : 'FAIL'}`);
  console.log(`round trip kernel len(ms.recent(50)): p50 ${ms(pct(searchTrips, 50))}  p95 ${ms(pct(searchTrips, 95))}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
