import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ALL_TOOL_NAMES, LEGACY_TOOL_NAMES, canonicalCall, manifestTools, toolDefinition, type ManifestTool } from '../../../src/core/agent/toolTable';
import { workspaceTools } from '../../../src/core/agent/workspaceTools';
import { scrollExecTool } from '../../../src/core/agent/tools';
import type { Kernel } from '../../../src/core/kernel/kernel';

const root = join(__dirname, '..', '..', '..', '..');

test("package.json's languageModelTools carry the tool table's descriptions and schemas (one source)", () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { contributes: { languageModelTools: ManifestTool[] } };
  const entries = pkg.contributes.languageModelTools;
  assert.deepEqual(entries, manifestTools(entries), 'package.json differs from the tool table: run `npx tsc -p . && node scripts/sync-tool-manifest.mjs`');
});

test("the CLI's tools and the editor's have one name each: the table's", () => {
  const cli = workspaceTools({ root, allowWrite: true, allowRun: true }).map((t) => t.definition);
  const exec = scrollExecTool({} as Kernel).definition;
  for (const d of [...cli, exec]) assert.deepEqual(d, toolDefinition(d.name as (typeof ALL_TOOL_NAMES)[number]));
  assert.deepEqual([...cli.map((d) => d.name), exec.name].sort(), ALL_TOOL_NAMES.filter((n) => !/History|Event/.test(n)).sort());
});

test('a legacy name from an old log means the tool it was, with its input in today\'s fields', () => {
  assert.deepEqual(canonicalCall('read_file', { path: 'a.txt', start_line: 2, end_line: 3 }), { name: 'scroll_readFile', input: { path: 'a.txt', startLine: 2, endLine: 3 } });
  assert.deepEqual(canonicalCall('write_file', { path: 'a.txt', content: 'x' }), { name: 'scroll_editFile', input: { path: 'a.txt', newText: 'x' } });
  assert.deepEqual(canonicalCall('list_files', { path: 'src/', recursive: true }), { name: 'scroll_listFiles', input: { pattern: 'src/**/*' } });
  assert.deepEqual(canonicalCall('list_files', {}), { name: 'scroll_listFiles', input: { pattern: '*' } });
  assert.deepEqual(canonicalCall('search_text', { pattern: 'x', regex: true, max_results: 5 }), { name: 'scroll_searchText', input: { query: 'x', isRegex: true, max: 5 } });
  assert.deepEqual(canonicalCall('run_command', { command: 'ls', timeout_ms: 10 }), { name: 'scroll_runCommand', input: { command: 'ls', timeoutMs: 10 } });
  assert.deepEqual(canonicalCall('scroll_readFile', { path: 'a' }), { name: 'scroll_readFile', input: { path: 'a' } });
  for (const n of Object.values(LEGACY_TOOL_NAMES)) assert.ok(ALL_TOOL_NAMES.includes(n));
});
