// Which editor tools @scroll offers (src/vscode/chat/toolboxSelection.ts, pure).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { editedPaths, selectToolbox, type ToolInfoLike } from '../../../../src/vscode/chat/toolboxSelection';
import { prompt } from '../../../../src/prompts';

const OWN = ['scroll_exec', 'scroll_readFile', 'scroll_listFiles', 'scroll_searchText', 'scroll_editFile', 'scroll_runCommand', 'scroll_searchHistory', 'scroll_expandEvent'];
const MCP = ['search_history', 'read_events', 'history_index', 'run_python'].map((t) => prompt(`mcp/${t}`));
const tool = (name: string, tags: string[] = [], description = `${name} does things`): ToolInfoLike => ({ name, tags, description, inputSchema: { type: 'object' } });

const AVAILABLE = [
  tool('scroll_readFile'),
  tool('copilot_readFile', ['vscode_codesearch']),
  tool('copilot_runInTerminal', ['vscode_editing']),
  tool('fixture_weather', ['fixture']),
  tool('mcp_scroll_memory_history_index', [], MCP[2]),
  tool('mcp_renamed_search', [], MCP[0]),
];

test('nothing beyond Scroll own tools unless the setting allows it or the request attached it', () => {
  const none = selectToolbox({ available: AVAILABLE, allowed: [], referenced: [], own: OWN, ownMcpDescriptions: MCP });
  assert.deepEqual(none.offered, []);
  assert.equal(none.replaced.size, 0);
  const byRef = selectToolbox({ available: AVAILABLE, allowed: [], referenced: ['fixture_weather'], own: OWN, ownMcpDescriptions: MCP });
  assert.deepEqual(byRef.offered.map((t) => t.name), ['fixture_weather']);
  const byTag = selectToolbox({ available: AVAILABLE, allowed: ['fixture'], referenced: [], own: OWN, ownMcpDescriptions: MCP });
  assert.deepEqual(byTag.offered.map((t) => t.name), ['fixture_weather']);
});

test('"*" offers every editor tool but Scroll own and its MCP server; the editor equivalents replace Scroll tools', () => {
  const all = selectToolbox({ available: AVAILABLE, allowed: ['*'], referenced: [], own: OWN, ownMcpDescriptions: MCP });
  assert.deepEqual(all.offered.map((t) => t.name), ['copilot_readFile', 'copilot_runInTerminal', 'fixture_weather']);
  assert.deepEqual([...all.replaced], [
    ['scroll_readFile', 'copilot_readFile'],
    ['scroll_runCommand', 'copilot_runInTerminal'],
  ]);
  // Scroll's MCP tools stay out even when attached with #.
  const ref = selectToolbox({ available: AVAILABLE, allowed: [], referenced: ['mcp_renamed_search', 'mcp_scroll_memory_history_index'], own: OWN, ownMcpDescriptions: MCP });
  assert.deepEqual(ref.offered, []);
});

test('editedPaths: the file arguments edit tools use', () => {
  assert.deepEqual(editedPaths({ path: 'a.ts', oldText: 'x', newText: 'y' }), ['a.ts']);
  assert.deepEqual(editedPaths({ filePath: '/w/b.json' }), ['/w/b.json']);
  assert.deepEqual(editedPaths({ replacements: [{ filePath: 'c.ts' }, { filePath: 'c.ts' }, { filePath: 'd.ts' }] }), ['c.ts', 'd.ts']);
  assert.deepEqual(editedPaths({ query: 'nothing to edit' }), []);
});
