// The editor's workspace tools under the core's confinement rule (issue 18, point 5), in the real
// extension host: links that leave the workspace are neither read nor walked (VS Code's own file
// search follows them), edits never go through a link or into `.scroll` in any spelling, `..config`
// is a name, and model-given regular expressions and globs cannot hang the extension host.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { applyEdit, listWorkspaceFiles, planEdit, resolveInWorkspace, runWorkspaceCommand, searchWorkspaceText } from '../../../src/vscode/tools/workspaceFiles';
import { scrollApi, toolText, workspaceRoot } from './helpers';

const invoke = async (name: string, input: Record<string, unknown>) =>
  toolText(await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }));

describe('workspace tools: one confinement rule (editor)', function () {
  this.timeout(60_000);
  let root: string;
  let outside: string;
  const made: string[] = [];
  const link = (target: string, name: string) => {
    fs.symlinkSync(target, path.join(root, name));
    made.push(path.join(root, name));
  };

  before(async () => {
    await scrollApi();
    root = workspaceRoot();
    outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'scroll-host-outside-')));
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'HOSTSECRET-7\n');
    link(outside, 'cf-link');
    link(path.join(outside, 'created.txt'), 'cf-dangling');
    link(path.join(root, 'ledger_sync', 'report.py'), 'cf-inlink.py');
    fs.mkdirSync(path.join(root, 'cf-sub'));
    made.push(path.join(root, 'cf-sub'));
    fs.writeFileSync(path.join(root, 'cf-sub', 'redos.txt'), `${'a'.repeat(28)}b\n`);
  });
  after(() => {
    for (const p of [...made, path.join(root, '..config'), path.join(root, '.SCROLL'), path.join(root, '.Scroll')]) fs.rmSync(p, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  });

  it('a read through a link that leaves the workspace is refused (rootlink/etc/passwd, link/secret)', async () => {
    link('/', 'cf-rootlink');
    try {
      for (const p of ['cf-rootlink/etc/passwd', 'cf-link/secret.txt']) {
        assert.throws(() => resolveInWorkspace(p), /outside the workspace/, p);
        await assert.rejects(invoke('scroll_readFile', { path: p }), /outside the workspace/, p);
      }
    } finally {
      fs.rmSync(path.join(root, 'cf-rootlink'));
    }
    assert.match(await invoke('scroll_readFile', { path: 'cf-inlink.py', startLine: 1, endLine: 1 }), /^ledger_sync\/report\.py lines 1-1/);
  });

  it('list and search never walk into a linked folder that leads out', async () => {
    const listed = await invoke('scroll_listFiles', { pattern: '**/secret.txt' });
    assert.match(listed, /^No files match/, listed);
    const found = await invoke('scroll_searchText', { query: 'HOSTSECRET' });
    assert.doesNotMatch(found, /HOSTSECRET-7/);
    assert.doesNotMatch(await listWorkspaceFiles({ pattern: 'cf-link/**' }), /secret/);
    assert.match(await invoke('scroll_listFiles', { pattern: '**/*.py' }), /ledger_sync\/report\.py/);
  });

  it('an edit through a link leaf (dangling or not) or into .scroll is refused and writes nothing', async () => {
    await assert.rejects(planEdit({ path: 'cf-dangling', newText: 'pwned' }), /symbolic link/);
    await assert.rejects(planEdit({ path: 'cf-inlink.py', newText: 'pwned' }), /symbolic link/);
    assert.ok(!fs.existsSync(path.join(outside, 'created.txt')), 'nothing created outside');
    for (const p of ['.SCROLL/x', '.Scroll/x', './cf-sub/../.scroll/x', '.scroll/scroll.db']) {
      await assert.rejects(planEdit({ path: p, newText: 'x' }), /\.scroll/, p);
    }
    await assert.rejects(invoke('scroll_editFile', { path: '.SCROLL/x', newText: 'x' }), /\.scroll/);
    assert.ok(!fs.existsSync(path.join(root, '.SCROLL')) && !fs.existsSync(path.join(root, '.Scroll')));
  });

  it('..config is a legal name: planned and applied inside the workspace', async () => {
    const plan = await planEdit({ path: '..config/x.txt', newText: 'ok\n' });
    assert.equal(plan.create, true);
    assert.equal(plan.uri.fsPath, path.join(fs.realpathSync(root), '..config', 'x.txt'));
    assert.match(await applyEdit(plan), /Created \.\.config\/x\.txt/);
    assert.equal(fs.readFileSync(path.join(root, '..config', 'x.txt'), 'utf8'), 'ok\n');
  });

  it('a catastrophic regular expression returns quickly with a result or a clear error', async () => {
    const t0 = Date.now();
    let out: string;
    try {
      out = await searchWorkspaceText({ query: '(a+)+$', isRegex: true, include: 'cf-sub/*.txt' });
    } catch (e) {
      out = (e as Error).message;
    }
    assert.ok(Date.now() - t0 < 1000, `took ${Date.now() - t0} ms`);
    assert.match(out, /No matches|cannot be used/);
    await assert.rejects(invoke('scroll_searchText', { query: '(a)\\1', isRegex: true }), /backreference.*literal/);
  });

  it('a pathological glob returns quickly', async () => {
    fs.writeFileSync(path.join(root, 'cf-sub', `${'a'.repeat(200)}.txt`), 'x');
    const t0 = Date.now();
    const out = await invoke('scroll_listFiles', { pattern: `cf-sub/${'*a'.repeat(25)}*b` });
    assert.ok(Date.now() - t0 < 5000, `took ${Date.now() - t0} ms`);
    assert.match(out, /^No files match/);
  });

  it('run_command gets the filtered environment, as the CLI does', async () => {
    const saved = process.env.GITHUB_TOKEN;
    process.env.GITHUB_TOKEN = 'ghp_hostconfinement';
    try {
      const r = await runWorkspaceCommand('env', { timeoutMs: 10_000 });
      assert.equal(r.exitCode, 0);
      assert.doesNotMatch(r.stdout, /GITHUB_TOKEN|ghp_hostconfinement|OPENAI_API_KEY/);
    } finally {
      if (saved === undefined) delete process.env.GITHUB_TOKEN;
      else process.env.GITHUB_TOKEN = saved;
    }
  });
});
