// The confinement rule as the CLI's workspace tools apply it (issue 18, point 5): every case here
// broke, or would break, a tool that resolves paths lexically or follows links.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { workspaceTools } from '../../../src/core/agent/workspaceTools';
import type { AgentTool, ToolContext, ToolOutput } from '../../../src/core/agent/tools';

const ctx = { session: 's', step: 1, callId: 'c', callSeq: 1, appendEvent: () => { throw new Error('unused'); } } as unknown as ToolContext;
const text = (r: ToolOutput | string) => (typeof r === 'string' ? r : r.content);
const isError = (r: ToolOutput | string) => typeof r !== 'string' && r.isError === true;

describe('workspace confinement (CLI tools)', () => {
  let root: string;
  let outside: string;
  let tools: Map<string, AgentTool>;
  const call = (name: string, input: Record<string, unknown>) => tools.get(name)!.invoke(input, ctx);

  before(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'scroll-confine-')));
    outside = realpathSync(mkdtempSync(join(tmpdir(), 'scroll-confine-out-')));
    mkdirSync(join(root, 'src'));
    mkdirSync(join(root, 'sub'));
    mkdirSync(join(root, '.scroll'));
    writeFileSync(join(root, '.scroll', 'scroll.db'), 'log');
    writeFileSync(join(root, 'src', 'a.txt'), 'inside text\n');
    writeFileSync(join(outside, 'secret.txt'), 'TOPSECRET-42\n');
    symlinkSync(outside, join(root, 'link')); // a folder link leading out
    symlinkSync(join(outside, 'created.txt'), join(root, 'dangling')); // a dangling file link leading out
    symlinkSync(join(outside, 'newdir'), join(root, 'danglingdir')); // a dangling folder link leading out
    symlinkSync(join(root, 'src', 'a.txt'), join(root, 'inlink')); // a file link inside, to inside
    tools = new Map(workspaceTools({ root, allowWrite: true, allowRun: true }).map((t) => [t.definition.name, t]));
  });
  after(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  test('a write through a dangling symlink leaf is refused and creates nothing outside', async () => {
    const r = await call('scroll_editFile', { path: 'dangling', newText: 'pwned' });
    assert.ok(isError(r), text(r));
    assert.match(text(r), /symbolic link/);
    assert.ok(!existsSync(join(outside, 'created.txt')), 'nothing was created outside the workspace');
    const d = await call('scroll_editFile', { path: 'danglingdir/x.txt', newText: 'pwned' });
    assert.ok(isError(d), text(d));
    assert.ok(!existsSync(join(outside, 'newdir')), 'no folder was created outside the workspace');
    assert.deepEqual(readdirSync(outside), ['secret.txt']);
  });

  test('a write through a symlink leaf that stays inside is refused too; the target is unchanged', async () => {
    const r = await call('scroll_editFile', { path: 'inlink', newText: 'changed' });
    assert.ok(isError(r), text(r));
    assert.equal(readFileSync(join(root, 'src', 'a.txt'), 'utf8'), 'inside text\n');
  });

  test('a write to a hard link of a file outside replaces the name and leaves the outside file alone', async (t) => {
    writeFileSync(join(outside, 'shared.txt'), 'outside\n');
    try {
      linkSync(join(outside, 'shared.txt'), join(root, 'hard.txt'));
    } catch {
      t.skip('no hard links between these folders');
      return;
    }
    const r = await call('scroll_editFile', { path: 'hard.txt', newText: 'inside\n' });
    assert.ok(!isError(r), text(r));
    assert.equal(readFileSync(join(outside, 'shared.txt'), 'utf8'), 'outside\n');
    assert.equal(readFileSync(join(root, 'hard.txt'), 'utf8'), 'inside\n');
    rmSync(join(outside, 'shared.txt'));
  });

  test('a folder link leading out is not walked by scroll_searchText or scroll_listFiles, nor readable through', async () => {
    const found = text(await call('scroll_searchText', { query: 'TOPSECRET' }));
    assert.doesNotMatch(found, /TOPSECRET-42/);
    const listed = text(await call('scroll_listFiles', {}));
    assert.doesNotMatch(listed, /secret\.txt/);
    assert.match(listed, /src\/a\.txt/);
    const read = await call('scroll_readFile', { path: 'link/secret.txt' });
    assert.ok(isError(read), text(read));
    assert.doesNotMatch(text(read), /TOPSECRET-42/);
    assert.equal(text(await call('scroll_searchText', { query: 'TOPSECRET', include: 'link/**' })), 'No matches for TOPSECRET in link/**.');
    assert.equal(text(await call('scroll_listFiles', { pattern: 'link/**' })), 'No files match link/**.');
  });

  test('.scroll is protected in any spelling and through ..', async () => {
    for (const p of ['.SCROLL/x', '.Scroll/x', './sub/../.scroll/x', '.scroll/scroll.db', 'sub/../.SCROLL/y']) {
      const r = await call('scroll_editFile', { path: p, newText: 'x' });
      assert.ok(isError(r), `${p}: ${text(r)}`);
      assert.match(text(r), /\.scroll/i);
    }
    assert.deepEqual(readdirSync(root).filter((n) => n.toLowerCase() === '.scroll'), ['.scroll']);
    assert.equal(readFileSync(join(root, '.scroll', 'scroll.db'), 'utf8'), 'log');
    assert.deepEqual(readdirSync(join(root, '.scroll')), ['scroll.db']);
  });

  test('..config is a legal name; absolute paths inside the workspace are fine', async () => {
    const r = await call('scroll_editFile', { path: '..config/x', newText: 'ok' });
    assert.ok(!isError(r), text(r));
    assert.equal(readFileSync(join(root, '..config', 'x'), 'utf8'), 'ok');
    assert.equal(text(await call('scroll_readFile', { path: join(root, '..config', 'x') })), '..config/x (1 lines)\nok');
  });

  test('a catastrophic regular expression returns quickly with a result or a clear error', async () => {
    writeFileSync(join(root, 'src', 'redos.txt'), `${'a'.repeat(28)}b\n`);
    for (const ignore_case of [false, true]) {
      const t0 = Date.now();
      const r = await call('scroll_searchText', { query: ignore_case ? '(?i)(a+)+$' : '(a+)+$', isRegex: true, include: 'src/**' });
      const ms = Date.now() - t0;
      assert.ok(ms < 1000, `took ${ms} ms`);
      assert.ok(!isError(r) || /pattern|regular expression/i.test(text(r)), text(r));
    }
  });

  test('scroll_runCommand does not hand the command credentials from the environment', async () => {
    const saved = { GITHUB_TOKEN: process.env.GITHUB_TOKEN, OPENAI_API_KEY: process.env.OPENAI_API_KEY };
    process.env.GITHUB_TOKEN = 'ghp_confinementtest';
    process.env.OPENAI_API_KEY = 'sk-confinementtest';
    try {
      const r = text(await call('scroll_runCommand', { command: 'env' }));
      assert.match(r, /^\$ env\nexit code 0/);
      assert.match(r, /\nPATH=/);
      assert.doesNotMatch(r, /GITHUB_TOKEN|OPENAI_API_KEY|confinementtest/);
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });
});
