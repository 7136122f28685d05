#!/usr/bin/env node
// False positives of redaction in real text, two builds side by side in one run.
//
// usage: node bench/redactionRealText.mjs BASE_CHECKOUT NEW_CHECKOUT OUT_PREFIX DIR...
//   BASE_CHECKOUT, NEW_CHECKOUT  checkouts with a compiled out/ (e.g. `git worktree add /tmp/base <rev>`,
//                                link node_modules, `npx tsc -p .`); the baseline and the build under test
//   OUT_PREFIX                   OUT_PREFIX.diff gets every line whose redaction differs between the two
//   DIR...                       folders of real text (ARCHITECTURE/PERFORMANCE name the ones used)
//
// Every text file under DIR (no symlinks, none over 4 MB, none with a NUL) is cut at line ends into events of
// about 8 KB, as a tool's output would be logged, and each build redacts each event. Printed: for each build, the
// lines, files and events it changed. Real text holds few real secrets, so nearly every change is a false
// positive; documentation examples (`https://user:pass@example.com`) count as catches. Not in `npm run bench`:
// its figures depend on what the machine has installed.
import { readdirSync, readFileSync, lstatSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createRequire } from 'node:module';

const [baseRoot, newRoot, outPrefix, ...roots] = process.argv.slice(2);
if (!baseRoot || !newRoot || !outPrefix || roots.length === 0) {
  console.error('usage: node bench/redactionRealText.mjs BASE_CHECKOUT NEW_CHECKOUT OUT_PREFIX DIR...');
  process.exit(2);
}
const load = (root) => {
  const dir = resolve(root);
  return new (createRequire(join(dir, 'package.json'))(join(dir, 'out/src/core/log/redaction.js')).Redactor)();
};
const builds = [
  { label: 'base', redactor: load(baseRoot), lines: 0, files: new Set(), events: 0 },
  { label: 'new', redactor: load(newRoot), lines: 0, files: new Set(), events: 0 },
];

// The redaction fixtures and tests are secrets on purpose; build output repeats the sources.
const SKIP_DIR = /(^|\/)(\.git|test\/fixtures\/redaction|out|dist|\.vscode-test)$/;
const SKIP_FILE = /redaction[^/]*\.(?:test\.|bench\.)|\/redactionRealText\.mjs$/;
const files = [];
const walk = (dir) => {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const e of entries) {
    const p = join(dir, e);
    let st;
    try {
      st = lstatSync(p);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) continue;
    if (st.isDirectory()) {
      if (!SKIP_DIR.test(p)) walk(p);
    } else if (st.isFile() && st.size > 0 && st.size < 4e6 && !SKIP_FILE.test(p)) files.push(p);
  }
};
for (const r of roots) walk(resolve(r));

const EVENT_BYTES = 8192;
let bytes = 0;
let events = 0;
const diffs = [];
for (const f of files) {
  let buf;
  try {
    buf = readFileSync(f);
  } catch {
    continue;
  }
  if (buf.includes(0)) continue;
  bytes += buf.length;
  const lines = buf.toString('utf8').split('\n');
  for (let i = 0; i < lines.length; ) {
    let j = i;
    for (let n = 0; j < lines.length && n < EVENT_BYTES; j++) n += lines[j].length + 1;
    const event = lines.slice(i, j).join('\n');
    events++;
    const outs = builds.map((b) => b.redactor.redact(event));
    const original = event.split('\n');
    builds.forEach((b, k) => {
      if (outs[k] === event) return;
      b.events++;
      b.files.add(f);
      const changed = outs[k].split('\n');
      for (let x = 0; x < original.length; x++) if (original[x] !== changed[x]) b.lines++;
    });
    if (outs[0] !== outs[1]) {
      const [a, b] = outs.map((o) => o.split('\n'));
      for (let x = 0; x < original.length; x++) {
        if (a[x] !== b[x]) diffs.push(`${f}:${i + x + 1}\n  orig ${original[x].slice(0, 300)}\n  base ${(a[x] ?? '').slice(0, 300)}\n  new  ${(b[x] ?? '').slice(0, 300)}`);
      }
    }
    i = j;
  }
}
writeFileSync(`${outPrefix}.diff`, diffs.join('\n') + '\n');
console.log(`${files.length} files, ${(bytes / 1e6).toFixed(0)} MB, ${events} events of about ${EVENT_BYTES / 1024} KB`);
for (const b of builds) console.log(`${b.label.padEnd(4)}: changed ${b.lines} lines in ${b.files.size} files (${b.events} events)`);
console.log(`lines whose redaction differs: ${diffs.length} (${outPrefix}.diff)`);
