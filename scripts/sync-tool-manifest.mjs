// Writes package.json's `languageModelTools` descriptions and input schemas from the tool table
// (src/core/agent/toolTable.ts, descriptions in src/prompts/tools/*.md), the one source of both.
// Run after `npx tsc -p .`: node scripts/sync-tool-manifest.mjs   (test/unit/agent/toolTable.test.ts
// fails while package.json differs from the table).
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { manifestTools } = require(join(root, 'out', 'src', 'core', 'agent', 'toolTable.js'));
const file = join(root, 'package.json');
const pkg = JSON.parse(readFileSync(file, 'utf8'));
pkg.contributes.languageModelTools = manifestTools(pkg.contributes.languageModelTools);
const text = JSON.stringify(pkg, null, 2) + '\n';
if (text !== readFileSync(file, 'utf8')) {
  writeFileSync(file, text);
  console.log('package.json: languageModelTools updated from the tool table');
} else console.log('package.json: languageModelTools already match the tool table');
