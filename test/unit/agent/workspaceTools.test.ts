import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { workspaceTools, insideRoot } from '../../../src/core/agent/workspaceTools';
import type { AgentTool, ToolContext, ToolOutput } from '../../../src/core/agent/tools';

const ctx = { session: 's', step: 1, callId: 'c', callSeq: 1, appendEvent: () => { throw new Error('unused'); } } as unknown as ToolContext;
const text = (r: ToolOutput | string) => (typeof r === 'string' ? r : r.content);
const isError = (r: ToolOutput | string) => typeof r !== 'string' && r.isError === true;

describe('workspace tools', () => {
  let root: string;
  let outside: string;
  let tools: Map<string, AgentTool>;
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'scroll-ws-'));
    outside = mkdtempSync(join(tmpdir(), 'scroll-outside-'));
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'src', 'a.ts'), 'const userId = 1;\nexport function getUser() {}\n');
    writeFileSync(join(root, 'README.md'), '# demo\n');
    mkdirSync(join(root, 'node_modules'));
    writeFileSync(join(root, 'node_modules', 'skip.js'), 'getUser');
    writeFileSync(join(outside, 'secret.txt'), 'top secret');
    symlinkSync(outside, join(root, 'link'));
    tools = new Map(workspaceTools({ root, allowWrite: true, allowRun: true }).map((t) => [t.definition.name, t]));
  });
  after(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  test('only read/list/search without permissions; write and run need confirmation', () => {
    const names = workspaceTools({ root }).map((t) => t.definition.name);
    assert.deepEqual(names, ['scroll_readFile', 'scroll_listFiles', 'scroll_searchText']);
    assert.equal(tools.get('scroll_editFile')!.needsConfirmation, true);
    assert.equal(tools.get('scroll_runCommand')!.needsConfirmation, true);
  });

  test('read, list and search', async () => {
    assert.equal(text(await tools.get('scroll_readFile')!.invoke({ path: 'src/a.ts', startLine: 2, endLine: 2 }, ctx)), 'src/a.ts lines 2-2 of 3\nexport function getUser() {}');
    const list = text(await tools.get('scroll_listFiles')!.invoke({}, ctx));
    assert.match(list, /src\/a\.ts/);
    assert.doesNotMatch(list, /skip\.js/);
    assert.equal(text(await tools.get('scroll_searchText')!.invoke({ query: 'getUser' }, ctx)), 'src/a.ts:2: export function getUser() {}');
    assert.match(text(await tools.get('scroll_searchText')!.invoke({ query: 'user.d', isRegex: true }, ctx)), /src\/a\.ts:1/);
    assert.match(text(await tools.get('scroll_listFiles')!.invoke({ pattern: 'src/*.ts' }, ctx)), /^1 files matching src\/\*\.ts:\nsrc\/a\.ts$/);
  });

  test('paths that escape the workspace are refused, through .. and through symlinks', async () => {
    for (const p of ['../x', '/etc/passwd', 'link/secret.txt']) {
      const r = await tools.get('scroll_readFile')!.invoke({ path: p }, ctx);
      assert.ok(isError(r), p);
      assert.match(text(r), /outside the workspace/);
    }
    assert.throws(() => insideRoot(root, 'link/new-file.txt'), /outside the workspace/);
    const w = await tools.get('scroll_editFile')!.invoke({ path: '../escape.txt', newText: 'x' }, ctx);
    assert.ok(isError(w));
  });

  test('scroll_editFile and scroll_runCommand work inside the workspace; failures are reported, not thrown', async () => {
    assert.equal(text(await tools.get('scroll_editFile')!.invoke({ path: 'new/dir/f.txt', newText: 'hi' }, ctx)), 'Created new/dir/f.txt (1 lines).');
    assert.equal(readFileSync(join(root, 'new', 'dir', 'f.txt'), 'utf8'), 'hi');
    assert.equal(text(await tools.get('scroll_editFile')!.invoke({ path: 'new/dir/f.txt', oldText: 'hi', newText: 'hello\nworld' }, ctx)), 'Edited new/dir/f.txt (2 lines, +1).');
    assert.ok(isError(await tools.get('scroll_editFile')!.invoke({ path: 'new/dir/f.txt', oldText: 'absent', newText: 'x' }, ctx)));
    assert.match(text(await tools.get('scroll_runCommand')!.invoke({ command: 'cat new/dir/f.txt' }, ctx)), /^\$ cat new\/dir\/f\.txt\nexit code 0, \d+ ms\n--- stdout ---\nhello\nworld$/);
    const bad = await tools.get('scroll_runCommand')!.invoke({ command: 'exit 3' }, ctx);
    assert.ok(isError(bad));
    assert.match(text(bad), /exit code 3/);
    const slow = await tools.get('scroll_runCommand')!.invoke({ command: 'sleep 5', timeoutMs: 200 }, ctx);
    assert.match(text(slow), /timed out after \d+ ms \(killed\)/);
    assert.ok(isError(slow));
    assert.ok(isError(await tools.get('scroll_editFile')!.invoke({ path: '.scroll/x', newText: '' }, ctx)));
  });
});
