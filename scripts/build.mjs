// Bundles the extension, the CLI and the panel front end with esbuild.
// `node scripts/build.mjs [--watch] [--production]`
import * as esbuild from 'esbuild';
import { existsSync, watch as watchFs } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeGenerated as writePrompts } from '../src/prompts/build-prompts.mjs';
import { BUNDLE_ALIAS } from './bundleAlias.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const common = {
  bundle: true,
  sourcemap: !production,
  minify: production,
  logLevel: 'info',
  absWorkingDir: root,
  alias: BUNDLE_ALIAS, // scripts/bundleAlias.mjs says why
};

// Prompts (.md) become a TS module so both tsc output and bundles carry them.
writePrompts();

const targets = [
  {
    ...common,
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    // vscode is provided by the host; the native driver is loaded at run time and may be absent.
    external: ['vscode', 'better-sqlite3', 'node:sqlite'],
  },
  {
    ...common,
    entryPoints: ['src/cli/main.ts'],
    outfile: 'dist/cli.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['better-sqlite3', 'node:sqlite'],
  },
  {
    // Bulk ingest prepares batches on a worker thread; the client looks for this file beside the
    // bundle that loads it (without it, batches are prepared in-thread).
    ...common,
    entryPoints: ['src/core/log/ingest/prepareWorker.ts'],
    outfile: 'dist/prepareWorker.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
  },
  {
    // The editor's full check and index rebuild run on a worker thread with its own connection
    // (src/core/log/maintenance.ts looks for this file beside the bundle; without it they run in-thread).
    ...common,
    entryPoints: ['src/core/log/maintenanceWorker.ts'],
    outfile: 'dist/maintenanceWorker.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['better-sqlite3', 'node:sqlite'],
  },
  {
    ...common,
    entryPoints: ['webview/src/main.ts'],
    outfile: 'dist/webview.js',
    platform: 'browser',
    format: 'iife',
    target: 'es2022',
  },
].filter((t) => existsSync(join(root, t.entryPoints[0])));

if (watch) {
  // `npm run watch` runs this beside `tsc -w`: esbuild rebuilds each bundle on change, and an edited
  // prompt (src/prompts/**/*.md) regenerates its TS module, which both then pick up.
  for (const t of targets) (await esbuild.context(t)).watch();
  watchFs(join(root, 'src/prompts'), { recursive: true }, (_event, name) => {
    if (!String(name ?? '').endsWith('.md')) return;
    try { writePrompts(); } catch (e) { console.error(`prompts: ${e.message}`); } // e.g. a file mid-save
  });
} else {
  await Promise.all(targets.map((t) => esbuild.build(t)));
}
