// Activation cost of the bundled extension (dist/extension.js): module load + activate(), cold (a fresh
// process each run) and warm (activate() again in the same process). The editor API is a recording double
// that answers every call instantly, so the figure is Scroll's own work only: what activate() does
// before the editor can go on. Baseline, measured the same way in the same run: a minimal extension that
// registers one command and one status bar item. Target: activate() ≤ 30 ms cold.
//
//   node bench/activation.bench.mjs [--runs N]      (needs `node scripts/build.mjs` first)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 15;
const bundle = join(root, 'dist', 'extension.js');
if (!existsSync(bundle)) {
  console.error('activation bench: dist/extension.js is missing — run `node scripts/build.mjs` first');
  process.exit(1);
}

const work = mkdtempSync(join(tmpdir(), 'scroll-activation-'));
const baseline = join(work, 'baseline-extension.js');
writeFileSync(
  baseline,
  `const vscode = require('vscode');
exports.activate = (context) => {
  context.subscriptions.push(vscode.commands.registerCommand('baseline.hello', () => 'hi'));
  const item = vscode.window.createStatusBarItem('baseline.status', vscode.StatusBarAlignment.Right, 100);
  item.text = 'baseline'; item.show(); context.subscriptions.push(item);
};`,
);

// One measurement in a fresh process: require() time, first activate(), then warm activate() calls.
const probe = join(work, 'probe.cjs');
writeFileSync(
  probe,
  String.raw`const Module = require('node:module');
const path = require('node:path');
const calls = [];
// Recording double of the editor API: every property is callable, constructible and chainable.
function recorder(name) {
  const fn = function () {};
  const assigned = new Map();
  return new Proxy(fn, {
    set(_t, key, value) { assigned.set(key, value); return true; },
    defineProperty(_t, key, d) { assigned.set(key, d.value); return true; },
    get(_t, key) {
      if (assigned.has(key)) return assigned.get(key);
      if (key === 'then') return undefined;               // not a promise
      if (key === Symbol.toPrimitive) return () => name;
      if (key === 'isTrusted') return true;
      if (key === 'workspaceFolders') return [{ uri: { fsPath: process.cwd() }, name: 'ws', index: 0 }];
      return recorder(name + '.' + String(key));
    },
    apply(_t, _this, args) { calls.push(name); return recorder(name + '()'); },
    construct() { calls.push('new ' + name); return recorder('new ' + name); },
  });
}
// The top-level names the module uses (esbuild copies own properties of the required module).
// (A minified bundle renames its import: take the names from the unminified source given as argv[3].)
const source = require('node:fs').readFileSync(process.argv[3] || process.argv[2], 'utf8');
const vscode = {};
for (const m of source.matchAll(/\bvscode\d*\.([A-Za-z_$][\w$]*)/g)) vscode[m[1]] = recorder('vscode.' + m[1]);
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) { return request === 'vscode' ? 'vscode' : resolve.call(this, request, ...rest); };
require.cache.vscode = { id: 'vscode', filename: 'vscode', loaded: true, exports: vscode };
const context = () => ({ subscriptions: [], extensionPath: ${JSON.stringify(root)}, extensionUri: recorder("extensionUri"),
  globalStorageUri: { fsPath: path.join(require('node:os').tmpdir(), 'scroll-bench-global') }, secrets: recorder('secrets'),
  workspaceState: recorder('workspaceState'), globalState: recorder('globalState') });
const file = process.argv[2];
// The extension host has Node's built-ins loaded long before any extension activates: so do we.
for (const m of ['fs', 'path', 'os', 'child_process', 'crypto', 'events', 'util', 'url', 'net', 'stream']) require('node:' + m);
let t = performance.now();
const ext = require(file);
const requireMs = performance.now() - t;
t = performance.now();
ext.activate(context());
const activateMs = performance.now() - t;
const warm = [];
for (let i = 0; i < 20; i++) { const s = performance.now(); ext.activate(context()); warm.push(performance.now() - s); }
warm.sort((a, b) => a - b);
process.stdout.write(JSON.stringify({ requireMs, activateMs, warmMs: warm[10], editorCalls: calls.length }));
`,
);

function measure(file, namesFrom = file) {
  const out = [];
  for (let i = 0; i < RUNS; i++) {
    const r = spawnSync(process.execPath, [probe, file, namesFrom], { cwd: work, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`probe failed for ${file}: ${r.stderr}`);
    out.push(JSON.parse(r.stdout));
  }
  const med = (k) => out.map((o) => o[k]).sort((a, b) => a - b)[Math.floor(out.length / 2)];
  return { requireMs: med('requireMs'), activateMs: med('activateMs'), warmMs: med('warmMs'), coldTotalMs: med('requireMs') + med('activateMs'), editorCalls: out[0].editorCalls };
}

// The VSIX ships the minified production bundle: measure that too (built here, into the temp folder).
const production = join(work, 'extension.prod.js');
const esbuild = await import('esbuild');
await esbuild.build({
  entryPoints: [join(root, 'src/extension.ts')], outfile: production, bundle: true, minify: true, platform: 'node',
  format: 'cjs', target: 'node20', external: ['vscode', 'better-sqlite3', 'node:sqlite'], logLevel: 'error', absWorkingDir: root,
});

try {
  const base = measure(baseline);
  const scroll = measure(bundle);
  const prod = measure(production, bundle);
  const f = (n) => n.toFixed(2).padStart(7);
  console.log(`activation (median of ${RUNS} fresh processes, Node ${process.version})`);
  console.log(`                     require ms  activate ms  cold total  warm activate  editor API calls`);
  console.log(`  baseline (1 cmd)   ${f(base.requireMs)}      ${f(base.activateMs)}    ${f(base.coldTotalMs)}      ${f(base.warmMs)}   ${base.editorCalls}`);
  console.log(`  scroll (dev build) ${f(scroll.requireMs)}      ${f(scroll.activateMs)}    ${f(scroll.coldTotalMs)}      ${f(scroll.warmMs)}   ${scroll.editorCalls}`);
  console.log(`  scroll (VSIX, min) ${f(prod.requireMs)}      ${f(prod.activateMs)}    ${f(prod.coldTotalMs)}      ${f(prod.warmMs)}   ${prod.editorCalls}`);
  console.log(`  ratio scroll/baseline: cold total ${(scroll.coldTotalMs / base.coldTotalMs).toFixed(1)}x, activate ${(scroll.activateMs / base.activateMs).toFixed(1)}x`);
  for (const [name, m] of [['dev build', scroll], ['VSIX bundle', prod]]) {
    console.log(`  target: module load + activate() ≤ 30 ms cold — ${m.coldTotalMs <= 30 ? 'met' : 'NOT met'} by the ${name} (${m.coldTotalMs.toFixed(1)} ms)`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
