#!/usr/bin/env node
// The `scroll` command: the bundled CLI when built, else the tsc output (development).
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const bundled = join(__dirname, '..', 'dist', 'cli.js');
const compiled = join(__dirname, '..', 'out', 'src', 'cli', 'main.js');
if (existsSync(bundled)) require(bundled);
else if (existsSync(compiled)) require(compiled);
else {
  process.stderr.write('scroll: not built yet — run `npm run build` first\n');
  process.exit(2);
}
