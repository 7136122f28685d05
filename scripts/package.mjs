// `npm run package`: a VSIX with the production bundle, kernel/, media/ and — only when its binary
// loads on the target — better-sqlite3. Everything is staged in a temporary folder so the VSIX holds
// exactly what the extension needs, whatever else sits in the checkout.
//
//   node scripts/package.mjs [--target desktop|node] [--node PATH] [--out FILE.vsix] [--keep-stage]
//
// --target desktop (default): desktop VS Code runs extensions on Electron, whose ABI no binary built
//   here matches; the VSIX carries no native driver and the extension uses the built-in node:sqlite.
// --target node: for a host running on a plain Node (code-server). better-sqlite3 is included when
//   its binary loads under --node PATH (default: this Node) — proven by opening a database with it.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] && !args[i + 1].startsWith('--') ? args[i + 1] : dflt;
};
const target = opt('target', 'desktop');
if (target !== 'desktop' && target !== 'node') fail(`--target must be desktop or node (got ${target})`);
const nodeForTarget = resolve(opt('node', process.execPath));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const outFile = resolve(opt('out', join(root, `${pkg.name}-${pkg.version}${target === 'node' ? '-node' : ''}.vsix`)));
const keepStage = args.includes('--keep-stage');

function fail(msg) {
  console.error(`package: ${msg}`);
  process.exit(1);
}
function run(cmd, argv, cwd = root) {
  const r = spawnSync(cmd, argv, { cwd, stdio: 'inherit' });
  if (r.status !== 0) fail(`${cmd} ${argv.join(' ')} failed (exit ${r.status})`);
}

// 1. production bundles (extension + panel front end)
run(process.execPath, [join(root, 'scripts/build.mjs'), '--production']);
if (!existsSync(join(root, 'dist/extension.js'))) fail('dist/extension.js was not built');
if (!existsSync(join(root, 'dist/maintenanceWorker.js'))) fail('dist/maintenanceWorker.js was not built');

// 2. stage
const stage = mkdtempSync(join(tmpdir(), 'scroll-vsix-'));
const copy = (from, to = from, filter) => {
  const src = join(root, from);
  if (!existsSync(src)) return false;
  cpSync(src, join(stage, to), { recursive: true, filter: filter ?? (() => true) });
  return true;
};
copy('dist/extension.js');
// The editor's full check and index rebuild run on this worker (in-thread without it).
copy('dist/maintenanceWorker.js');
for (const f of existsSync(join(root, 'dist')) ? readdirSync(join(root, 'dist')) : []) {
  if (/^webview\.(js|css)$/.test(f)) copy(`dist/${f}`);
}
copy('kernel', 'kernel', (src) => !/(__pycache__|\.pyc$|(^|[\\/])test_[^\\/]*\.py$)/.test(src));
if (!copy('media')) mkdirSync(join(stage, 'media'));
for (const f of ['README.md', 'LICENSE', 'LICENSE.md', 'CHANGELOG.md', '.vscodeignore']) copy(f);
if (!existsSync(join(stage, 'README.md'))) writeFileSync(join(stage, 'README.md'), `# ${pkg.displayName}\n\n${pkg.description}\n`);
if (!existsSync(join(stage, 'LICENSE')) && !existsSync(join(stage, 'LICENSE.md'))) {
  writeFileSync(join(stage, 'LICENSE'), `${pkg.license} License\n\nCopyright (c) ${new Date().getUTCFullYear()} ${pkg.publisher}\n`);
}

// 3. the native driver, only when it loads on the target (beside the bundle: dist/node_modules)
let driver = 'node:sqlite';
if (target === 'node') {
  const modules = join(stage, 'dist/node_modules');
  const bs = join(root, 'node_modules/better-sqlite3');
  const binary = join(bs, 'build/Release/better_sqlite3.node');
  if (existsSync(binary)) {
    mkdirSync(join(modules, 'better-sqlite3/build/Release'), { recursive: true });
    cpSync(join(bs, 'package.json'), join(modules, 'better-sqlite3/package.json'));
    cpSync(join(bs, 'lib'), join(modules, 'better-sqlite3/lib'), { recursive: true });
    cpSync(binary, join(modules, 'better-sqlite3/build/Release/better_sqlite3.node'));
    // better-sqlite3 finds its binary through `bindings` (which needs file-uri-to-path): code and licences only.
    for (const [dep, files] of [['bindings', ['package.json', 'bindings.js', 'LICENSE.md']], ['file-uri-to-path', ['package.json', 'index.js', 'LICENSE']]]) {
      mkdirSync(join(modules, dep), { recursive: true });
      for (const f of files) if (existsSync(join(root, 'node_modules', dep, f))) cpSync(join(root, 'node_modules', dep, f), join(modules, dep, f));
    }
    cpSync(join(bs, 'LICENSE'), join(modules, 'better-sqlite3/LICENSE'));
    const probe = spawnSync(nodeForTarget, ['-e', "const D=require('better-sqlite3');const d=new D(':memory:');d.exec('CREATE VIRTUAL TABLE t USING fts5(x)');d.close();"], { cwd: join(stage, 'dist'), encoding: 'utf8' });
    if (probe.status === 0) driver = 'better-sqlite3';
    else {
      console.log(`package: better-sqlite3's binary does not load on ${nodeForTarget}; leaving it out (node:sqlite is used)\n${(probe.stderr || '').split('\n')[0]}`);
      rmSync(modules, { recursive: true, force: true });
    }
  }
}
if (driver === 'node:sqlite') {
  // node:sqlite needs Node ≥ 22.13 (VS Code ≥ 1.104 runs Electron 37 / Node 22; code-server 4.139 runs Node 24).
  const probe = spawnSync(nodeForTarget, ['-e', "new (require('node:sqlite').DatabaseSync)(':memory:').exec('CREATE VIRTUAL TABLE t USING fts5(x)')"], { encoding: 'utf8' });
  if (target === 'node' && probe.status !== 0) fail(`neither better-sqlite3 nor node:sqlite loads on ${nodeForTarget}`);
}

// 4. manifest: no scripts, no dev dependencies, no dependencies (the driver is staged by hand)
const manifest = { ...pkg };
delete manifest.devDependencies;
delete manifest.dependencies;
delete manifest.scripts;
delete manifest.bin;
delete manifest.private;
writeFileSync(join(stage, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');

// 5. vsce
const vsce = join(root, 'node_modules/@vscode/vsce/vsce');
run(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--out', outFile], stage);

// 6. what went in
const files = [];
const walk = (d) => {
  for (const f of readdirSync(d)) {
    const p = join(d, f);
    if (statSync(p).isDirectory()) walk(p);
    else files.push([relative(stage, p), statSync(p).size]);
  }
};
walk(stage);
const total = files.reduce((n, [, s]) => n + s, 0);
console.log(`package: ${outFile}\n  target ${target}, database driver ${driver}, ${files.length} files, ${(total / 1024).toFixed(0)} KiB before compression, VSIX ${(statSync(outFile).size / 1024).toFixed(0)} KiB`);
if (keepStage) console.log(`  staged in ${stage}`);
else rmSync(stage, { recursive: true, force: true });
