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
    assert.deepEqual(names, ['read_file', 'list_files', 'search_text']);
    assert.equal(tools.get('write_file')!.needsConfirmation, true);
    assert.equal(tools.get('run_command')!.needsConfirmation, true);
  });

  test('read, list and search', async () => {
    assert.match(text(await tools.get('read_file')!.invoke({ path: 'src/a.ts', start_line: 2 }, ctx)), /^src\/a\.ts \(3 lines\)\n2: export function getUser/);
    const list = text(await tools.get('list_files')!.invoke({ recursive: true }, ctx));
    assert.match(list, /src\/a\.ts/);
    assert.doesNotMatch(list, /skip\.js/);
    assert.equal(text(await tools.get('search_text')!.invoke({ pattern: 'getUser' }, ctx)), 'src/a.ts:2: export function getUser() {}');
    assert.match(text(await tools.get('search_text')!.invoke({ pattern: 'user.d', regex: true, ignore_case: true }, ctx)), /src\/a\.ts:1/);
  });

  test('paths that escape the workspace are refused, through .. and through symlinks', async () => {
    for (const p of ['../x', '/etc/passwd', 'link/secret.txt']) {
      const r = await tools.get('read_file')!.invoke({ path: p }, ctx);
      assert.ok(isError(r), p);
      assert.match(text(r), /outside the workspace/);
    }
    assert.throws(() => insideRoot(root, 'link/new-file.txt'), /outside the workspace/);
    const w = await tools.get('write_file')!.invoke({ path: '../escape.txt', content: 'x' }, ctx);
    assert.ok(isError(w));
  });

  test('write_file and run_command work inside the workspace; failures are reported, not thrown', async () => {
    assert.match(text(await tools.get('write_file')!.invoke({ path: 'new/dir/f.txt', content: 'hi' }, ctx)), /wrote 2 bytes/);
    assert.equal(readFileSync(join(root, 'new', 'dir', 'f.txt'), 'utf8'), 'hi');
    assert.equal(text(await tools.get('run_command')!.invoke({ command: 'cat new/dir/f.txt' }, ctx)), 'exit code 0\nhi');
    const bad = await tools.get('run_command')!.invoke({ command: 'exit 3' }, ctx);
    assert.ok(isError(bad));
    assert.match(text(bad), /exit code 3/);
    const slow = await tools.get('run_command')!.invoke({ command: 'sleep 5', timeout_ms: 200 }, ctx);
    assert.match(text(slow), /killed: timed out after 200 ms/);
    assert.ok(isError(await tools.get('write_file')!.invoke({ path: '.scroll/x', content: '' }, ctx)));
  });
});
