// How the synthetic histories (bench/lib/synthetic.mjs) compare with real text on what makes the
// index expensive to build: compound identifiers (each adds its parts to the `parts` column, see
// src/core/search/indexText.ts) per token, and parts per identifier. Real text: this repository's
// own sources and the typings and docs installed under node_modules (an agent's history is mostly
// source files, test output and prose about them). Chunks of real text are cut to the synthetic
// events' mean size, since the parts are listed once per distinct identifier per event.
// Usage: node bench/corpus.bench.mjs [--size 1e6] [DIR_OR_FILE ...]   (extra paths: more real text)
// Smoke size (SCROLL_BENCH_SMOKE=1): 20k synthetic tokens, 200 KB of each real text.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { HistoryGenerator } from './lib/synthetic.mjs';
import { SMOKE, check, option, positionals } from './lib/measure.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const size = Number(option(args, '--size', SMOKE ? '2e4' : '1e6'));
const REAL_BYTES = SMOKE ? 2e5 : 8e6; // real text read per corpus
const core = join(root, 'out', 'src', 'core');
if (!existsSync(join(core, 'search', 'indexText.js'))) {
  console.error('corpus bench: run `npx tsc -p .` first (needs out/src/core)');
  process.exit(2);
}
const { buildIndexDocument } = require(join(core, 'search', 'indexText.js'));
const { TOKEN_RE } = require(join(core, 'search', 'tokens.js'));

/** Figures of a list of documents, as the index sees them. */
function measure(docs) {
  let tokens = 0;
  let identifiers = 0; // distinct compound identifiers per document, summed
  let parts = 0;
  for (const text of docs) {
    const d = buildIndexDocument(text, null);
    tokens += (d.body.match(TOKEN_RE)?.length ?? 0) + (d.code.match(TOKEN_RE)?.length ?? 0);
    if (d.parts) {
      identifiers += d.parts.split('\n').length;
      parts += d.parts.match(TOKEN_RE)?.length ?? 0;
    }
  }
  return { docs: docs.length, tokens, identifiers, parts };
}

/** Files under `path` with one of `exts`, at most `limit` bytes in all (sorted, so runs agree). */
function collect(path, exts, limit) {
  const out = [];
  let bytes = 0;
  const walk = (p) => {
    if (bytes >= limit) return;
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) return;
    if (st.isDirectory()) {
      for (const name of readdirSync(p).sort()) if (name !== '.git' && name !== 'out') walk(join(p, name));
    } else if (exts.some((e) => p.endsWith(e)) && st.size < 4e6) {
      out.push(p);
      bytes += st.size;
    }
  };
  walk(path);
  return out;
}

function chunks(files, chunkChars) {
  const docs = [];
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    for (let i = 0; i < text.length; i += chunkChars) docs.push(text.slice(i, i + chunkChars));
  }
  return docs;
}

const corpora = [1, 2].map((corpus) => {
  const events = [...new HistoryGenerator(7, { corpus }).history(size)];
  return { name: `synthetic, corpus ${corpus}${corpus === 2 ? ' (benchmarks)' : ''}`, docs: events.map((e) => e.content) };
});
const meanEvent = Math.round(corpora[1].docs.reduce((n, d) => n + d.length, 0) / corpora[1].docs.length);
const nm = join(root, 'node_modules');
const real = [
  { name: 'source: this repository', paths: ['src', 'kernel', 'test', 'webview', 'scripts'].map((p) => join(root, p)), exts: ['.ts', '.py', '.mjs'] },
  { name: 'source: TypeScript, VS Code typings', paths: [join(nm, 'typescript', 'lib'), join(nm, '@types', 'vscode')], exts: ['.d.ts'] },
  { name: 'source: better-sqlite3 (C++)', paths: [join(nm, 'better-sqlite3', 'src')], exts: ['.cpp', '.hpp', '.lzz'] },
  { name: 'docs: Markdown under node_modules', paths: [nm], exts: ['.md'] },
];
const extra = positionals(args, ['--quick', '--no-captions']);
if (extra.length) real.push({ name: `given: ${extra.map((p) => relative(process.cwd(), p) || '.').join(', ')}`, paths: extra, exts: ['.ts', '.tsx', '.js', '.mjs', '.py', '.go', '.rs', '.java', '.c', '.cpp', '.h', '.md', '.txt', '.log', '.jsonl'] });
for (const r of real) {
  const files = r.paths.flatMap((p) => collect(p, r.exts, REAL_BYTES));
  if (files.length) corpora.push({ name: r.name, docs: chunks(files, meanEvent) });
  else console.log(`(skipped ${r.name}: nothing found)`);
}

console.log(`real text cut into chunks of ${meanEvent} characters (the synthetic events' mean); synthetic: ${size} tokens`);
console.log(`${'corpus'.padEnd(40)}${'docs'.padStart(8)}${'tokens'.padStart(11)}${'idents/1k tok'.padStart(15)}${'parts/ident'.padStart(13)}${'parts/token'.padStart(13)}`);
for (const c of corpora) {
  const m = measure(c.docs);
  check(m.tokens > 0 && (!c.name.startsWith('synthetic') || m.identifiers > 0), `${c.name}: ${m.tokens} tokens, ${m.identifiers} identifiers`);
  console.log(
    `${c.name.padEnd(40)}${String(m.docs).padStart(8)}${String(m.tokens).padStart(11)}` +
      `${((1000 * m.identifiers) / m.tokens).toFixed(1).padStart(15)}${(m.parts / Math.max(1, m.identifiers)).toFixed(2).padStart(13)}${(m.parts / m.tokens).toFixed(2).padStart(13)}`,
  );
}
console.log('idents/1k tok: distinct compound identifiers per event (or chunk), per 1,000 tokens; parts/token: tokens the parts column adds per token of text');
