#!/usr/bin/env node
// The `scroll` command: the bundled CLI (dist/, `npm run build`) or the tsc output (out/),
// whichever was built last, so a stale bundle never shadows fresh development code.
const { statSync } = require('node:fs');
const { join } = require('node:path');
const candidates = [join(__dirname, '..', 'dist', 'cli.js'), join(__dirname, '..', 'out', 'src', 'cli', 'main.js')];
let entry = null;
let newest = -1;
for (const file of candidates) {
  try {
    const mtime = statSync(file).mtimeMs;
    if (mtime > newest) [entry, newest] = [file, mtime];
  } catch {
    // not built in this form
  }
}
if (!entry) {
  process.stderr.write('scroll: not built yet — run `npm run build` first\n');
  process.exit(2);
}
require(entry).runCli(process.argv.slice(2));
