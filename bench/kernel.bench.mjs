// Kernel benchmark, every figure next to a baseline measured in the same run on the same interpreter:
//   start-up              unsandboxed vs sandboxed (bubblewrap), and a bare `python -c pass`
//   print(1) round trip   unsandboxed vs sandboxed, and a raw echo through a Python process's pipes
//   ms.search round trip  through the host (sandboxed and not) vs the direct read it replaced
//                         (the standalone reader kernel/scroll_ms.py opened inside the kernel)
// Targets: start-up < 300 ms; sandboxed start <= unsandboxed + 150 ms; print(1) p50 <= 2 ms;
// ms.search through the host <= 2x the direct read.
// Usage: node bench/kernel.bench.mjs [--starts N] [--trips N] [--searches N] [--events N]
// (needs `npx tsc -p .` first; `npm run bench` builds). Smoke size (SCROLL_BENCH_SMOKE=1): 2 starts,
// 5 trips, 5 searches on 200 events, targets not checked; wrong output still fails it.
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SMOKE, check, verdict as targetVerdict } from './lib/measure.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const STARTS = arg('--starts', SMOKE ? 2 : 10);
const TRIPS = arg('--trips', SMOKE ? 5 : 300);
const SEARCHES = arg('--searches', SMOKE ? 5 : 100);
const EVENTS = arg('--events', SMOKE ? 200 : 5000);
const WARMUP = SMOKE ? 2 : 20; // cells run before timing (the first imports ast etc.)

let SubprocessKernel, EventLog, MemoryHost, probeSandbox, ScratchFolder;
try {
  ({ SubprocessKernel } = require(join(root, 'out/src/core/kernel/subprocessKernel.js')));
  ({ EventLog } = require(join(root, 'out/src/core/log/eventLog.js')));
  ({ MemoryHost } = require(join(root, 'out/src/core/memory/memoryHost.js')));
  ({ probeSandbox, ScratchFolder } = require(join(root, 'out/src/core/kernel/sandbox.js')));
} catch (e) {
  console.error(`kernel bench: build first (npx tsc -p .; npm run bench builds): ${e.message}`);
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
const topics = ['retry cap', 'deploy key', 'pool size', 'flaky test', 'cache miss', 'timeout budget', 'schema migration'];
try {
  const log = EventLog.open({ workspace: dir, session: 'bench', redact: false });
  for (let i = 0; i < EVENTS; i++) {
    log.append({ kind: i % 3 ? 'model_turn' : 'user_message', role: i % 3 ? 'assistant' : 'user',
      content: `bench event ${i} about the ${topics[i % topics.length]} and topic ${i % 17}: we decided ${i % 5} attempts` });
  }
  const memory = new MemoryHost({ log, session: 'bench' });
  const probe = probeSandbox();
  const variants = [['unsandboxed', {}]];
  if (probe.available) variants.push(['sandboxed', { sandbox: probe, scratch: ScratchFolder.forSession('bench', dir), hiddenPaths: [dirname(log.path)] }]);
  else console.log(`sandbox unavailable (${probe.reason}); only the unsandboxed figures`);
  const opts = (extra) => ({ pythonPath: python, memory, session: 'bench', cwd: dir, ...extra });

  // Warm the OS file cache for every side before measuring.
  await timeProcess(['-c', 'pass']);
  for (const [, extra] of variants) {
    const warm = new SubprocessKernel(opts(extra));
    await warm.start();
    await warm.killNow();
  }

  const bare = [];
  const starts = Object.fromEntries(variants.map(([n]) => [n, []]));
  for (let i = 0; i < STARTS; i++) {
    bare.push(await timeProcess(['-c', 'pass']));
    for (const [name, extra] of variants) {
      const k = new SubprocessKernel(opts(extra));
      const t0 = now();
      await k.start();
      starts[name].push(now() - t0);
      k.killNow();
    }
  }

  const echo = await rawEchoTrips(TRIPS);
  const trips = {};
  const searches = {};
  let direct = [];
  for (const [name, extra] of variants) {
    const kernel = new SubprocessKernel(opts(extra));
    await kernel.start();
    for (let i = 0; i < WARMUP; i++) await kernel.execute('print(1)'); // warm-up: first cell imports ast etc.
    trips[name] = [];
    for (let i = 0; i < TRIPS; i++) {
      const t0 = now();
      const r = await kernel.execute('print(1)');
      trips[name].push(now() - t0);
      check(r.stdout === '1\n', `print(1) in the ${name} kernel gave ${JSON.stringify(r)}`);
    }
    searches[name] = [];
    for (let i = 0; i < 5; i++) await kernel.execute(`len(ms.search(${JSON.stringify(topics[i % topics.length])}, k=10))`);
    for (let i = 0; i < SEARCHES; i++) {
      const t0 = now();
      const r = await kernel.execute(`len(ms.search(${JSON.stringify(topics[i % topics.length])}, k=10))`);
      searches[name].push(now() - t0);
      check(!r.error, `ms.search failed in the ${name} kernel: ${JSON.stringify(r.error)}`);
      const n = Number(r.stdout.trim());
      check(n >= 1 && n <= 10, `ms.search(k=10) in the ${name} kernel gave ${JSON.stringify(r)}, not 1 to 10 hits`);
    }
    if (name === 'unsandboxed') {
      // The direct read this replaced: the standalone reader's own connection, in the same kernel.
      const kdir = join(root, 'kernel');
      await kernel.execute(`import sys\nsys.path.insert(0, ${JSON.stringify(kdir)})\nimport scroll_ms\n_direct = scroll_ms.connect(${JSON.stringify(log.path)}, session='bench')`);
      for (let i = 0; i < 5; i++) await kernel.execute(`len(_direct.search(${JSON.stringify(topics[i % topics.length])}, k=10))`);
      for (let i = 0; i < SEARCHES; i++) {
        const t0 = now();
        const r = await kernel.execute(`len(_direct.search(${JSON.stringify(topics[i % topics.length])}, k=10))`);
        direct.push(now() - t0);
        check(!r.error, `direct search failed: ${JSON.stringify(r.error)}`);
      }
    }
    await kernel.dispose();
  }
  memory.dispose();
  log.close();

  const p50 = (xs) => pct(xs, 50);
  const line = (label, xs) => `${label.padEnd(44)} p50 ${ms(p50(xs))}  p95 ${ms(pct(xs, 95))}`;
  const verdict = (ok) => targetVerdict(ok, 'PASS', 'FAIL');
  console.log(`python: ${python}; ${STARTS} starts, ${TRIPS} round trips, ${SEARCHES} searches on ${EVENTS} events${SMOKE ? ' (smoke size)' : ''}`);
  console.log(line('start-up  baseline (python -c pass)', bare));
  for (const [name] of variants) console.log(line(`start-up  kernel ${name} (spawn → ms bound)`, starts[name]) + `  target < 300 ms: ${verdict(p50(starts[name]) < 300)}`);
  if (starts.sandboxed) {
    const extra = p50(starts.sandboxed) - p50(starts.unsandboxed);
    console.log(`start-up  sandbox overhead: p50 +${ms(extra)}  target <= +150 ms: ${verdict(extra <= 150)}`);
  }
  console.log(line('round trip baseline (raw pipe echo)', echo));
  for (const [name] of variants) console.log(line(`round trip print(1) ${name}`, trips[name]) + `  target p50 <= 2 ms: ${verdict(p50(trips[name]) <= 2)}`);
  console.log(line('ms.search baseline (direct read in the kernel)', direct));
  for (const [name] of variants) {
    const ratio = p50(searches[name]) / p50(direct);
    console.log(line(`ms.search through the host, ${name}`, searches[name]) + `  ratio ${ratio.toFixed(2)}x  target <= 2x: ${verdict(ratio <= 2)}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
