// The agent's Python kernel in the OS sandbox, and the consent rules of scroll_exec, in the real
// extension host: the factory builds a sandboxed subprocess kernel (the workspace is read-only to it,
// even through `/tmp/..`; it writes only to its scratch folder; the log's folder is out of reach; `ms`
// answers through the host); a cell asks first exactly when it will not run in Scroll's sandbox
// (`scroll.kernel.sandbox: off`, no sandbox on the machine, the Jupyter backend); `require` without a
// sandbox refuses, with how to install one. Two paths: other agents call the scroll_exec tool, whose
// prepareInvocation gives VS Code its confirmationMessages; @scroll's loop runs cells in its session's
// kernel and asks through its confirm hook (CellConsent; here its prompt is replaced by a recorder, the
// real dialog is driven in test/e2e/consent.e2e.js).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ScrollApi } from '../../../src/api';
import { decideSandbox, probeSandbox } from '../../../src/core/kernel/sandbox';
import type { LogEvent } from '../../../src/core/types';
import { EventLog } from '../../../src/core/log/eventLog';
import { EXEC_CONFIRMATION_TITLE } from '../../../src/vscode/kernel/cellConfinement';
import type { AgentSession } from '../../../src/vscode/chat/agentSession';
import type { ConsentAnswer, ConsentRequest } from '../../../src/vscode/chat/cellConsent';
import { createSessionKernel, hiddenPaths, kernelSandboxed, KernelRefusedError, type SessionKernelRequest } from '../../../src/vscode/kernel/factory';
import { statusText } from '../../../src/vscode/statusBar';
import { execTool } from '../../../src/vscode/tools/registerTools';
import { repoRoot, scrollApi, scrollChannelText, waitFor, workspaceRoot } from './helpers';

const MISSING_BWRAP = '/nonexistent/scroll-test/bwrap';
const config = () => vscode.workspace.getConfiguration('scroll');
const token = new vscode.CancellationTokenSource().token;

interface ScriptedLm { vendor: string; setScript(s: unknown): void; reset(): void }

describe('kernel sandbox and scroll_exec consent', function () {
  this.timeout(120_000);
  let api: ScrollApi;
  let dir: string;
  let log: EventLog;
  const kernels: { dispose(): Promise<void> }[] = [];

  const request = (over: Partial<SessionKernelRequest> = {}): SessionKernelRequest => ({
    session: 'sandbox-host',
    config: { kernelBackend: 'subprocess', kernelSandbox: 'auto', pythonPath: '', outputCap: 20000, kernelTimeoutMs: 30000 },
    workspace: workspaceRoot(),
    log,
    extensionPath: repoRoot,
    notify: () => undefined,
    logCells: false,
    ...over,
  });

  /** What scroll_exec's prepareInvocation returns for a cell now (the tool object the extension registers). */
  const prepare = async (code = 'print(1)') => {
    const tool = execTool(api.services);
    return (await tool.prepareInvocation!({ input: { code } }, token)) as vscode.PreparedToolInvocation | undefined;
  };
  const setting = async (key: string, value: unknown) => {
    await config().update(key, value, vscode.ConfigurationTarget.Global);
    await waitFor(`${key} = ${JSON.stringify(value)}`, () => config().inspect(key)?.globalValue === value);
  };
  const mdText = (m: string | vscode.MarkdownString | undefined) => (typeof m === 'string' ? m : m?.value ?? '');
  /** Where the next cell of another agent runs (the session scroll_exec uses outside @scroll). */
  const confinement = () => api.services.kernels.cellConfinement(api.services.sessions.execSession());

  // @scroll's path: an AgentSession on the scripted model, the consent prompt replaced by a recorder.
  let lm: ScriptedLm;
  const asked: ConsentRequest[] = [];
  const answering = (answer: ConsentAnswer) => api.services.consent.setPrompt(async (req) => {
    asked.push(req);
    return answer;
  });
  const scrollSessions: string[] = [];
  const agentSession = async (name: string): Promise<AgentSession> => {
    const { AgentSession: Session } = await import('../../../src/vscode/chat/agentSession');
    const id = `${name}-${Date.now()}`;
    scrollSessions.push(id);
    return new Session(id, api.services);
  };
  /** One @scroll turn: the model sends these cells one per step, then answers DONE. Returns the turn's events. */
  const turn = async (agent: AgentSession, ...cells: string[]): Promise<{ events: LogEvent[]; text: string }> => {
    lm.reset();
    lm.setScript({ turns: [...cells.map((code) => ({ toolCalls: [{ name: 'scroll_exec', input: { code } }] })), { text: 'DONE' }] });
    const [model] = await vscode.lm.selectChatModels({ vendor: lm.vendor });
    const log = api.services.logs.log();
    const before = log.maxSeq();
    const r = await agent.run('run the cells', model, { toolInvocationToken: undefined, token, onProgress: () => undefined });
    return { events: log.range(before + 1, log.maxSeq()).filter((e) => e.session === agent.session), text: r.text };
  };
  const results = (events: LogEvent[]) => events.filter((e) => e.kind === 'tool_result' && e.name === 'scroll_exec');

  before(async () => {
    api = await scrollApi();
    lm = await vscode.extensions.getExtension<ScriptedLm>('scroll-test.scripted-lm')!.activate();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scroll-sandbox-host-'));
    log = EventLog.open({ path: path.join(dir, '.scroll', 'scroll.db'), session: 'sandbox-host', redact: false });
    log.append({ kind: 'user_message', role: 'user', content: 'the sandbox drill word is periwinkle' });
    // Every prepareInvocation below asks about a session without a kernel of its own.
    await api.services.kernels.stop(api.services.sessions.execSession());
  });

  afterEach(async () => {
    for (const k of kernels.splice(0)) await k.dispose();
    for (const s of scrollSessions.splice(0)) await api.services.kernels.stop(s);
    api.services.consent.setPrompt(undefined);
    asked.splice(0);
    lm.reset();
    api.services.kernels.setSandboxProbe(undefined);
    await setting('kernel.sandbox', undefined);
    await setting('kernel.backend', undefined);
    await setting('kernel.timeoutMs', undefined);
    await config().update('kernel.backend', undefined, vscode.ConfigurationTarget.Workspace);
    await api.services.kernels.stop(api.services.sessions.execSession());
  });

  after(() => {
    log.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('this machine has a sandbox (bubblewrap) and the default settings use it', () => {
    const probe = probeSandbox();
    assert.equal(probe.available, true, `the host tests need bwrap: ${JSON.stringify(probe)}`);
    assert.equal(api.services.config.kernelSandbox, 'auto');
    assert.equal(confinement().kind, 'sandboxed');
  });

  it('the factory builds a sandboxed kernel: the workspace is read-only, the scratch folder writable, the log hidden, ms works', async () => {
    const ws = workspaceRoot();
    const k = await createSessionKernel(request());
    kernels.push(k);
    assert.equal(k.backend, 'subprocess');
    assert.equal(kernelSandboxed(k), true);
    const run = async (code: string) => {
      const r = await k.execute(code);
      return { ...r, text: r.stdout + (r.error ? `${r.error.ename}: ${r.error.evalue}` : '') };
    };
    // Through /tmp/.. (the sandbox's /tmp is its own tmpfs) and directly: the workspace is read-only.
    const traversal = await run(`open('/tmp/../' + ${JSON.stringify(ws)} + '/x', 'w')`);
    assert.ok(traversal.error, `writing through /tmp/.. must fail: ${traversal.text}`);
    assert.match(traversal.error!.ename, /OSError|PermissionError/);
    const direct = await run(`open(${JSON.stringify(path.join(ws, 'sandbox-was-here.txt'))}, 'w').write('x')`);
    assert.ok(direct.error, `writing the workspace must fail: ${direct.text}`);
    assert.equal(fs.existsSync(path.join(ws, 'x')), false);
    assert.equal(fs.existsSync(path.join(ws, 'sandbox-was-here.txt')), false);
    // Reading the workspace works.
    const read = await run(`print(open(${JSON.stringify(path.join(ws, 'ledger_sync', 'report.py'))}).read()[:0] + 'read ok')`);
    assert.equal(read.stdout, 'read ok\n', read.text);
    // The scratch folder is TMPDIR and writable.
    const scratch = await run("import os, tempfile\np = os.path.join(tempfile.gettempdir(), 'note.txt')\nopen(p, 'w').write('hi')\nprint(os.environ['TMPDIR'] == tempfile.gettempdir(), open(p).read())");
    assert.equal(scratch.stdout, 'True hi\n', scratch.text);
    // The log's folder is hidden: neither this log nor the workspace's own .scroll/.
    for (const db of [log.path, path.join(ws, '.scroll', 'scroll.db')]) {
      const r = await run(`import os\nprint(os.path.exists(${JSON.stringify(db)}))`);
      assert.equal(r.stdout, 'False\n', `${db} must not be visible: ${r.text}`);
    }
    // ms answers through the host.
    const ms = await run("hits = ms.search('sandbox drill word', k=3)\nprint(ms.expand(hits)[0].content)");
    assert.equal(ms.stdout, 'the sandbox drill word is periwinkle\n', ms.text);
    // Disposing the kernel removes its scratch folder.
    const scratchDir = (await run('import tempfile\nprint(tempfile.gettempdir())')).stdout.trim();
    assert.ok(fs.existsSync(scratchDir), `scratch folder ${scratchDir} exists while the kernel lives`);
    await k.dispose();
    assert.equal(fs.existsSync(scratchDir), false, 'scratch folder removed with the kernel');
  });

  it('a restart keeps the scratch folder; only disposing the kernel removes it', async () => {
    const k = await createSessionKernel(request({ session: 'sandbox-restart' }));
    kernels.push(k);
    const tmp = (await k.execute("import tempfile\nopen(tempfile.gettempdir() + '/kept', 'w').write('1')\nprint(tempfile.gettempdir())")).stdout.trim();
    await k.restart();
    assert.equal((await k.execute(`print(open(${JSON.stringify(tmp + '/kept')}).read())`)).stdout, '1\n');
    await k.dispose();
    assert.equal(fs.existsSync(tmp), false);
  });

  it('hides the log files, not the workspace, when the log sits in the workspace folder itself', () => {
    const ws = '/work/ws';
    assert.deepEqual(hiddenPaths({ path: '/work/ws/.scroll/scroll.db', payloads: { dir: '/work/ws/.scroll/payloads' } }, ws), ['/work/ws/.scroll']);
    assert.deepEqual(hiddenPaths({ path: '/work/ws/scroll.db', payloads: { dir: '/work/ws/payloads' } }, ws), [
      '/work/ws/scroll.db', '/work/ws/scroll.db-wal', '/work/ws/scroll.db-shm', '/work/ws/scroll.db-journal', '/work/ws/payloads',
    ]);
    assert.deepEqual(hiddenPaths({ path: '/logs/scroll.db', payloads: { dir: '/payloads' } }, ws), ['/logs', '/payloads']);
  });

  it('the "Scroll" output channel says which mode is in force, and again when the setting changes', async () => {
    const channelText = scrollChannelText;
    await waitFor('the start-up line', () => /Python kernel: sandboxed \(bubblewrap [\d.]+\) \[start-up/.test(channelText()), 20_000);
    await setting('kernel.sandbox', 'off');
    await waitFor('the line after the change', () => /not sandboxed: scroll\.kernel\.sandbox is off .*\[settings changed; scroll\.kernel\.sandbox: off/.test(channelText()), 20_000);
  });

  it('a sandboxed cell does not ask; the status bar says it is sandboxed', async () => {
    const prepared = await prepare();
    assert.equal(prepared?.confirmationMessages, undefined);
    assert.match(statusText(api.services).tooltip, /Python kernel: sandboxed \(bubblewrap \d+\.\d+\.\d+\)/);
  });

  it('scroll.kernel.sandbox off: every cell asks, with the code and why', async () => {
    await setting('kernel.sandbox', 'off');
    await waitFor('the setting to reach Scroll', () => confinement().kind === 'unsandboxed');
    const prepared = await prepare('print("hello from the test")');
    assert.ok(prepared?.confirmationMessages, 'asks first');
    assert.equal(prepared.confirmationMessages.title, EXEC_CONFIRMATION_TITLE);
    const text = mdText(prepared.confirmationMessages.message);
    assert.match(text, /```python\nprint\("hello from the test"\)\n```/);
    assert.match(text, /the kernel is not sandboxed: scroll\.kernel\.sandbox is off/);
    assert.match(statusText(api.services).tooltip, /not sandboxed: scroll\.kernel\.sandbox is off — every cell asks first/);
    // The kernel it builds is not sandboxed.
    const k = await createSessionKernel(request({ session: 'sandbox-off', config: { ...request().config, kernelSandbox: 'off' } }));
    kernels.push(k);
    assert.equal(kernelSandboxed(k), false);
  });

  it('a started sandboxed kernel stops when scroll.kernel.sandbox turns off (the next cell asks)', async () => {
    const session = api.services.sessions.execSession();
    await api.services.kernels.get(session);
    assert.equal(api.services.kernels.cellConfinement(session).kind, 'sandboxed');
    await setting('kernel.sandbox', 'off');
    await waitFor('the sandboxed kernel to stop', () => !api.services.kernels.has(session));
    assert.equal(api.services.kernels.cellConfinement(session).kind, 'unsandboxed');
  });

  it('no sandbox on the machine (auto): every cell asks, saying why and how to fix it', async () => {
    api.services.kernels.setSandboxProbe(() => probeSandbox({ bwrapPath: MISSING_BWRAP }));
    const prepared = await prepare();
    assert.ok(prepared?.confirmationMessages);
    const text = mdText(prepared.confirmationMessages.message);
    assert.match(text, /the kernel is not sandboxed: bwrap not found at \/nonexistent\/scroll-test\/bwrap/);
    assert.match(text, /install bubblewrap/);
    assert.match(statusText(api.services).tooltip, /not sandboxed: bwrap not found .* every cell asks first; fix: install bubblewrap/);
  });

  it('the Jupyter backend: every cell asks (Scroll cannot confine it); the status bar offers the sandboxed kernel', async () => {
    assert.ok(vscode.extensions.getExtension('ms-toolsai.jupyter'), 'the fake Jupyter extension is installed');
    await setting('kernel.backend', 'jupyter');
    await waitFor('the backend to reach Scroll', () => confinement().kind === 'jupyter');
    const prepared = await prepare();
    assert.ok(prepared?.confirmationMessages);
    assert.match(mdText(prepared.confirmationMessages.message), /this is your Jupyter kernel, which Scroll cannot confine/);
    assert.match(statusText(api.services).tooltip, /Jupyter kernel: every cell asks first/);

    // "Scroll: Use Sandboxed Python Kernel": backend subprocess for the workspace; cells no longer ask.
    await vscode.commands.executeCommand('scroll.useSandboxedKernel');
    assert.equal(config().inspect('kernel.backend')?.workspaceValue, 'subprocess');
    await waitFor('the sandboxed kernel to be in force', () => confinement().kind === 'sandboxed');
    assert.equal((await prepare())?.confirmationMessages, undefined);
  });

  it('require without a sandbox refuses: prepareInvocation, invokeTool and the factory, with how to install one', async () => {
    api.services.kernels.setSandboxProbe(() => probeSandbox({ bwrapPath: MISSING_BWRAP }));
    await setting('kernel.sandbox', 'require');
    await waitFor('the setting to reach Scroll', () => confinement().kind === 'refused');
    await assert.rejects(prepare(), /refuses to run kernel cells.*"require".*install bubblewrap/);
    const before = api.services.log().maxSeq();
    await assert.rejects(
      Promise.resolve(vscode.lm.invokeTool('scroll_exec', { input: { code: 'print(1)' }, toolInvocationToken: undefined })),
      /refuses to run kernel cells/,
    );
    assert.equal(api.services.log().maxSeq(), before, 'nothing ran, nothing logged');
    assert.equal(api.services.kernels.has(api.services.sessions.execSession()), false, 'no kernel started');
    await assert.rejects(
      createSessionKernel(request({ session: 'sandbox-require', sandbox: decideSandbox('require', probeSandbox({ bwrapPath: MISSING_BWRAP })) })),
      (e: unknown) => e instanceof KernelRefusedError && /install bubblewrap/.test(e.message),
    );
    assert.match(statusText(api.services).tooltip, /cells are refused/);
  });

  it('@scroll, sandboxed: the cell runs in the session\'s own kernel without asking', async () => {
    answering('deny');
    const agent = await agentSession('consent-sandboxed');
    const { events, text } = await turn(agent, "print('SANDBOXED-' + str(6 * 7))");
    assert.equal(text, 'DONE');
    assert.deepEqual(asked, [], 'no question');
    assert.match(results(events)[0]?.content ?? '', /^SANDBOXED-42$/m);
    assert.equal(events.filter((e) => e.kind === 'kernel_exec').length, 1);
    assert.equal(kernelSandboxed(api.services.kernels.startedKernel(agent.session)!), true, "the session's kernel is sandboxed");
  });

  it('@scroll, scroll.kernel.sandbox off: the cell asks first; Deny runs nothing and logs the cell as declined', async () => {
    await setting('kernel.sandbox', 'off');
    await waitFor('the setting to reach Scroll', () => confinement().kind === 'unsandboxed');
    answering('deny');
    const agent = await agentSession('consent-deny');
    const code = "print('DENIED-' + str(6 * 7))";
    const { events, text } = await turn(agent, code);
    assert.equal(text, 'DONE');
    assert.equal(asked.length, 1, 'asked once');
    assert.equal(asked[0].code, code);
    assert.equal(asked[0].session, agent.session);
    assert.equal(asked[0].confinement.kind, 'unsandboxed');
    const call = events.find((e) => e.kind === 'tool_call' && e.name === 'scroll_exec')!;
    const declined = events.filter((e) => e.kind === 'kernel_exec');
    assert.equal(declined.length, 1, 'the declined cell is logged once');
    assert.equal(declined[0].content, code);
    assert.equal(declined[0].meta.denied, true);
    assert.equal(declined[0].parentSeq, call.seq);
    assert.equal(declined[0].toolCallId, call.toolCallId);
    assert.ok(!events.some((e) => e.kind === 'kernel_output'), 'no output: it did not run');
    const [result] = results(events);
    assert.match(result.content, /did not allow scroll_exec to run/);
    assert.equal(result.meta.isError, true);
    assert.equal(agent.declined(call.toolCallId!), true);
    assert.equal(api.services.kernels.has(agent.session), false, 'no kernel was started');
  });

  it('@scroll: Allow runs the cell and the next one asks again; "Allow for this session" stops the asking, also in later turns', async () => {
    await setting('kernel.sandbox', 'off');
    await waitFor('the setting to reach Scroll', () => confinement().kind === 'unsandboxed');
    answering('allow');
    const agent = await agentSession('consent-allow');
    let t = await turn(agent, "print('ONE')", "print('TWO')");
    assert.equal(asked.length, 2, 'Allow is for one cell');
    assert.deepEqual(results(t.events).map((e) => e.content.trim()), ['ONE', 'TWO']);
    assert.equal(kernelSandboxed(api.services.kernels.startedKernel(agent.session)!), false);

    answering('allowSession');
    asked.splice(0);
    t = await turn(agent, "print('THREE')", "print('FOUR')");
    assert.equal(asked.length, 1, 'asked for the first cell only');
    assert.deepEqual(results(t.events).map((e) => e.content.trim()), ['THREE', 'FOUR']);
    t = await turn(agent, "print('FIVE')");
    assert.equal(asked.length, 1, 'the next turn does not ask');
    assert.equal(results(t.events)[0].content.trim(), 'FIVE');

    // Another session is asked again.
    await turn(await agentSession('consent-other'), "print('SIX')");
    assert.equal(asked.length, 2);
  });

  it('@scroll, the Jupyter backend: the cell asks (Scroll cannot confine your Jupyter kernel)', async () => {
    await setting('kernel.backend', 'jupyter');
    await waitFor('the backend to reach Scroll', () => confinement().kind === 'jupyter');
    answering('deny');
    const agent = await agentSession('consent-jupyter');
    const { events } = await turn(agent, "print('JUPYTER')");
    assert.equal(asked.length, 1);
    assert.equal(asked[0].confinement.kind, 'jupyter');
    assert.equal(events.filter((e) => e.kind === 'kernel_exec' && e.meta.denied === true).length, 1);
    assert.equal(api.services.kernels.has(agent.session), false);
  });

  it('@scroll: scroll.kernel.timeoutMs limits each cell of a running kernel (the loop passes it with every cell)', async () => {
    const agent = await agentSession('consent-timeout');
    await turn(agent, "print('kernel up')"); // started with the default limit (60 s)
    await setting('kernel.timeoutMs', 1000);
    const t0 = Date.now();
    const { events } = await turn(agent, "import time\ntime.sleep(30)\nprint('NOT-REACHED')");
    const [result] = results(events);
    assert.match(result.content, /TimeoutError/, result.content);
    assert.doesNotMatch(result.content, /NOT-REACHED/);
    assert.equal(result.meta.isError, true);
    assert.ok(Date.now() - t0 < 20_000, `stopped after ${Date.now() - t0} ms`);
  });

  it('require without a sandbox, through @scroll: the model gets the refusal as the tool result, nothing runs', async () => {
    lm.reset();
    lm.setScript({ turns: [{ toolCalls: [{ name: 'scroll_exec', input: { code: 'print("REFUSED-CELL")' } }] }, { text: 'REFUSAL-SEEN' }] });
    api.services.kernels.setSandboxProbe(() => probeSandbox({ bwrapPath: MISSING_BWRAP }));
    await setting('kernel.sandbox', 'require');
    await waitFor('the setting to reach Scroll', () => confinement().kind === 'refused');
    answering('allow');
    const log = api.services.log();
    const before = log.maxSeq();
    const turns = api.services.sessions.turnsCompleted;
    try {
      await vscode.commands.executeCommand('workbench.action.chat.open', { query: '@scroll run a refused cell', modelSelector: { vendor: lm.vendor } });
      await waitFor('@scroll to answer', () => api.services.sessions.turnsCompleted > turns, 120_000, 200);
    } finally {
      lm.reset();
    }
    const events = log.range(before + 1, log.maxSeq());
    const result = events.find((e) => e.kind === 'tool_result' && e.name === 'scroll_exec');
    assert.ok(result, `a scroll_exec result: ${events.map((e) => e.kind).join(', ')}`);
    assert.match(result.content, /refuses to run kernel cells.*install bubblewrap/);
    assert.equal(result.meta.isError, true);
    assert.ok(!events.some((e) => e.kind === 'kernel_exec' || e.kind === 'kernel_output'), 'no cell ran');
    assert.deepEqual(asked, [], 'a refused cell is not asked about');
    assert.ok(events.some((e) => e.kind === 'model_turn' && e.content.includes('REFUSAL-SEEN')));
  });

  it('require with a sandbox runs sandboxed; with the Jupyter backend it refuses (Jupyter cannot be sandboxed)', async () => {
    await setting('kernel.sandbox', 'require');
    await waitFor('the setting to reach Scroll', () => api.services.config.kernelSandbox === 'require');
    assert.equal((await prepare())?.confirmationMessages, undefined);
    await setting('kernel.backend', 'jupyter');
    await waitFor('the backend to reach Scroll', () => confinement().kind === 'refused');
    await assert.rejects(prepare(), /Jupyter kernel is your own and Scroll cannot sandbox it/);
    // backend auto with Jupyter installed: under require, Scroll's sandboxed process instead.
    await setting('kernel.backend', 'auto');
    await waitFor('auto to pick the sandboxed process', () => confinement().kind === 'sandboxed');
  });
});
