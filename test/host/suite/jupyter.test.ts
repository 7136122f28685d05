// In-host tests of the Jupyter kernel adapter (src/vscode/kernel), in the real extension host with
// the fake Jupyter fixture (test/fixtures/fake-jupyter, id ms-toolsai.jupyter) installed: session
// notebook, kernel picked on running the bootstrap cell, access prompt, fallback to the subprocess kernel.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { EventLog } from '../../../src/core/log/eventLog';
import { createSessionKernel, type SessionKernelRequest } from '../../../src/vscode/kernel/factory';
import { resolvePythonPath } from '../../../src/vscode/kernel/pythonPath';
import { SESSION_NOTEBOOK } from '../../../src/vscode/kernel/jupyterSession';
import { repoRoot, waitFor } from './helpers';

interface FakeJupyterState {
  accessPrompts: number;
  apiExecuted: string[];
  cellsRun: number;
  liveKernels: string[];
}

const fakeState = async () => (await vscode.commands.executeCommand('fakeJupyter.state')) as FakeJupyterState;

describe('Jupyter kernel adapter (with the fake ms-toolsai.jupyter)', function () {
  this.timeout(120_000);
  let dir: string;
  let log: EventLog;
  let notices: string[] = [];
  const kernels: { dispose(): Promise<void> }[] = [];

  const request = (backend: 'auto' | 'jupyter' | 'subprocess'): SessionKernelRequest => ({
    session: 'jh',
    config: { kernelBackend: backend, pythonPath: '', outputCap: 20000, kernelTimeoutMs: 30000 },
    workspace: dir,
    log,
    extensionPath: repoRoot,
    notify: (m) => notices.push(m),
    jupyterConnectTimeoutMs: 30_000,
  });
  const open = async (backend: 'auto' | 'jupyter' | 'subprocess') => {
    const k = await createSessionKernel(request(backend));
    kernels.push(k);
    return k;
  };

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scroll-jupyter-host-'));
    log = EventLog.open({ path: path.join(dir, '.scroll', 'scroll.db'), session: 'jh', redact: false });
    log.append({ kind: 'user_message', role: 'user', content: 'the nightly build runs at 02:00' });
  });

  afterEach(async () => {
    for (const k of kernels.splice(0)) await k.dispose();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('fakeJupyter.reset');
    await vscode.workspace.getConfiguration('fakeJupyter').update('access', undefined, vscode.ConfigurationTarget.Global);
    notices = [];
  });

  after(() => {
    log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('finds the fake as the Jupyter extension; other tests keep the subprocess kernel by default', () => {
    const ext = vscode.extensions.getExtension('ms-toolsai.jupyter');
    assert.ok(ext, 'fixture installed');
    assert.match(ext.packageJSON.displayName, /Fake Jupyter/);
    assert.equal(vscode.workspace.getConfiguration('scroll').get('kernel.backend'), 'subprocess');
  });

  it('runs cells in the notebook kernel: session notebook, bootstrap cell, access prompt, ms, log', async () => {
    const k = await open('jupyter');
    // Only the user's messages: the log also holds this very cell (kernel_exec, logged before it runs).
    const r = await k.execute('nightly = [e.content for e in ms.recent(5) if e.kind == "user_message"]\nlen(nightly)');
    assert.equal(r.error, null, JSON.stringify(r.error));
    assert.equal(r.stdout, '1\n');
    assert.equal(k.backend, 'jupyter');
    const r2 = await k.execute('print(nightly[0])');
    assert.equal(r2.stdout, 'the nightly build runs at 02:00\n');
    assert.ok(r2.variables.some((v) => v.name === 'nightly' && v.type === 'list'), JSON.stringify(r2.variables));

    const nb = path.join(dir, '.scroll', SESSION_NOTEBOOK);
    assert.ok(vscode.workspace.notebookDocuments.some((d) => d.uri.fsPath === nb), 'session notebook is open');
    const state = await fakeState();
    assert.ok(state.cellsRun >= 1, 'the bootstrap cell ran in the notebook');
    assert.equal(state.accessPrompts, 1);
    assert.match(state.apiExecuted[0], /scroll_jupyter\.bootstrap/);
    assert.ok(state.apiExecuted.includes('print(nightly[0])'));

    const logged = log.recent(10, 'jh').filter((e) => e.kind === 'kernel_exec' || e.kind === 'kernel_output');
    assert.deepEqual(
      logged.map((e) => e.kind),
      ['kernel_exec', 'kernel_output', 'kernel_exec', 'kernel_output'],
    );
    assert.equal(logged[3].content, 'the nightly build runs at 02:00');
    assert.equal(logged[3].meta.execSeq, logged[2].seq);
  });

  it('a cell past its limit is interrupted and the kernel keeps its variables', async () => {
    const k = await open('jupyter');
    await k.execute('kept = 5');
    const r = await k.execute('import time\ntime.sleep(30)', { timeoutMs: 500 });
    assert.equal(r.error?.ename, 'TimeoutError');
    assert.equal((await k.execute('kept * 2')).stdout, '10\n');
    assert.equal(k.backend, 'jupyter');
  });

  it('denied access falls back to the subprocess kernel with a clear message', async () => {
    await vscode.workspace.getConfiguration('fakeJupyter').update('access', 'deny', vscode.ConfigurationTarget.Global);
    const k = await open('auto');
    const r = await k.execute('print(ms.expand(ms.search("nightly build", kind="user_message"))[0].content)');
    assert.equal(r.error, null, JSON.stringify(r.error));
    assert.equal(r.stdout, 'the nightly build runs at 02:00\n');
    assert.equal(k.backend, 'subprocess');
    assert.equal(notices.length >= 1, true);
    assert.match(notices[notices.length - 1], /refused access.*Scroll's own Python process/);
  });

  it('a Jupyter kernel that dies mid-session is replaced by the subprocess kernel', async () => {
    const k = await open('jupyter');
    assert.equal((await k.execute('a = 1\na')).stdout, '1\n');
    await vscode.commands.executeCommand('fakeJupyter.killKernel');
    await waitFor('the Jupyter kernel to be dead', () => k.status === 'dead');
    const r = await k.execute('print("after")');
    assert.equal(r.stdout, 'after\n');
    assert.equal(r.restarted, true);
    assert.match(r.stderr, /variables from the Jupyter kernel are not here/);
    assert.equal(k.backend, 'subprocess');
    assert.ok(notices.some((m) => /Jupyter kernel is gone|Jupyter kernel is dead/.test(m)), notices.join('\n'));
  });

  it('backend "subprocess" never touches Jupyter', async () => {
    const before = await fakeState();
    const k = await open('subprocess');
    assert.equal((await k.execute('print(6 * 7)')).stdout, '42\n');
    assert.equal(k.backend, 'subprocess');
    const state = await fakeState();
    assert.equal(state.accessPrompts, 0);
    assert.equal(state.cellsRun, before.cellsRun);
    assert.deepEqual(state.liveKernels, []);
  });

  it('python path: the setting wins, else python3 when the Python extension is absent', async () => {
    assert.deepEqual(await resolvePythonPath('/opt/py/bin/python3'), { path: '/opt/py/bin/python3', source: 'setting' });
    assert.equal(vscode.extensions.getExtension('ms-python.python'), undefined);
    assert.deepEqual(await resolvePythonPath(''), { path: 'python3', source: 'default' });
  });
});
