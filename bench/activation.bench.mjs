// Activation cost of the bundled extension (dist/extension.js): module load + activate(), cold (a fresh
// process each run) and warm (activate() again in the same process, after the previous activation's
// subscriptions were disposed). The editor API is a stand-in (bench/lib/vscodeStub.cjs) that answers
// every call at once, so the figure is Scroll's own work only: what activate() does before the editor
// can go on. Baseline, measured the same way in the same run: a minimal extension that registers one
// command and one status bar item. Target: activate() ≤ 30 ms cold.
// Every run also checks what activation did: no error (thrown, or rejected just after), every command,
// tool and chat participant of package.json registered, the activation logged to the "Scroll" channel,
// and no editor API used that the stand-in does not model (it names what to add).
//
//   node bench/activation.bench.mjs [--runs N]      (needs `node scripts/build.mjs` first; npm run bench builds)
import { BUNDLE_ALIAS } from '../scripts/bundleAlias.mjs';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SMOKE, check, option, verdict } from './lib/measure.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const RUNS = Number(option(process.argv, '--runs', SMOKE ? 2 : 15));
const WARM = SMOKE ? 3 : 20;
const bundle = join(root, 'dist', 'extension.js');
if (!existsSync(bundle)) {
  console.error('activation bench: dist/extension.js is missing — run `node scripts/build.mjs` first');
  process.exit(1);
}
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const probe = join(root, 'bench', 'lib', 'activationProbe.cjs');

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

/** Medians of RUNS fresh processes; each run's record is checked (`scroll`: against package.json). */
function measure(name, file, scroll) {
  const out = [];
  for (let i = 0; i < RUNS; i++) {
    const ws = join(work, `ws-${name}-${i}`);
    const storage = join(work, `storage-${name}-${i}`);
    mkdirSync(ws);
    const r = spawnSync(process.execPath, [probe, file, root, ws, storage, String(WARM)], { cwd: ws, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`activation probe failed for ${name}: ${r.stderr}`);
    const o = JSON.parse(r.stdout);
    check(o.missing.length === 0, `${name} used editor API the stand-in does not model: ${o.missing.join(', ')} (add it to bench/lib/vscodeStub.cjs)`);
    check(o.errors.length === 0, `${name}: ${o.errors.join('\n')}`);
    if (scroll) {
      const lacking = (want, got) => want.filter((x) => !got.includes(x));
      const cmds = lacking((manifest.contributes.commands ?? []).map((c) => c.command), o.commands);
      const tools = lacking((manifest.contributes.languageModelTools ?? []).map((t) => t.name), o.tools);
      const parts = lacking((manifest.contributes.chatParticipants ?? []).map((p) => p.id), o.participants);
      check(cmds.length + tools.length + parts.length === 0, `${name}: not registered at activation: ${[...cmds, ...tools, ...parts].join(', ')}`);
      check(o.returnedApi, `${name}: activate() returned no API`);
      const channel = o.channels.find((c) => c.name === 'Scroll');
      check(channel?.log && channel.lines.some((l) => /activated in/.test(l)), `${name}: the activation was not logged to the "Scroll" log channel`);
    } else {
      check(o.commands.includes('baseline.hello'), 'baseline: its command was not registered');
    }
    out.push(o);
  }
  const med = (k) => out.map((o) => o[k]).sort((a, b) => a - b)[Math.floor(out.length / 2)];
  return { requireMs: med('requireMs'), activateMs: med('activateMs'), warmMs: med('warmMs'), coldTotalMs: med('requireMs') + med('activateMs'), editorCalls: out[0].editorCalls };
}

try {
  // The VSIX ships the minified production bundle: measure that too (built here, into the temp folder).
  const production = join(work, 'extension.prod.js');
  const esbuild = await import('esbuild');
  await esbuild.build({
    entryPoints: [join(root, 'src/extension.ts')], outfile: production, bundle: true, minify: true, platform: 'node',
    format: 'cjs', target: 'node20', external: ['vscode', 'better-sqlite3', 'node:sqlite'], alias: BUNDLE_ALIAS, logLevel: 'error', absWorkingDir: root,
  });
  const base = measure('baseline', baseline, false);
  const scroll = measure('scroll (dev build)', bundle, true);
  const prod = measure('scroll (VSIX, min)', production, true);
  const f = (n) => n.toFixed(2).padStart(7);
  console.log(`activation (median of ${RUNS} fresh processes, warm: median of ${WARM}; Node ${process.version})`);
  console.log(`                     require ms  activate ms  cold total  warm activate  editor API calls`);
  console.log(`  baseline (1 cmd)   ${f(base.requireMs)}      ${f(base.activateMs)}    ${f(base.coldTotalMs)}      ${f(base.warmMs)}   ${base.editorCalls}`);
  console.log(`  scroll (dev build) ${f(scroll.requireMs)}      ${f(scroll.activateMs)}    ${f(scroll.coldTotalMs)}      ${f(scroll.warmMs)}   ${scroll.editorCalls}`);
  console.log(`  scroll (VSIX, min) ${f(prod.requireMs)}      ${f(prod.activateMs)}    ${f(prod.coldTotalMs)}      ${f(prod.warmMs)}   ${prod.editorCalls}`);
  console.log(`  ratio scroll/baseline: cold total ${(scroll.coldTotalMs / base.coldTotalMs).toFixed(1)}x, activate ${(scroll.activateMs / base.activateMs).toFixed(1)}x`);
  for (const [name, m] of [['dev build', scroll], ['VSIX bundle', prod]]) {
    console.log(`  target: module load + activate() ≤ 30 ms cold — ${verdict(m.coldTotalMs <= 30, 'met', 'NOT met')} by the ${name} (${m.coldTotalMs.toFixed(1)} ms)`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
