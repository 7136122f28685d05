import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../src/core/log/eventLog';
import { SubprocessKernel, KernelStartError } from '../../../src/core/kernel/subprocessKernel';
import { LoggedKernel, formatKernelResult } from '../../../src/core/kernel/loggedKernel';
import { MemoryHost } from '../../../src/core/memory/memoryHost';
import { commandEnvironment, kernelEnvironment, isAllowedVariable } from '../../../src/core/kernel/environment';
import type { KernelStatus } from '../../../src/core/kernel/kernel';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'scroll-kernel-test-'));
}

describe('SubprocessKernel', () => {
  let dir: string;
  let log: EventLog;
  let kernel: SubprocessKernel;

  before(async () => {
    dir = tempDir();
    log = EventLog.open({ workspace: dir, session: 's1', redact: false });
    log.append({ kind: 'user_message', role: 'user', content: 'the staging database lives on port 6543' });
    log.append({ kind: 'model_turn', role: 'assistant', content: 'I will remember the port' });
    kernel = new SubprocessKernel({
      memory: new MemoryHost({ log, session: 's1' }),
      session: 's1',
      cwd: dir,
      outputCap: 200,
      interruptGraceMs: 500,
    });
    await kernel.start();
  });

  after(async () => {
    await kernel.dispose();
    log.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('variables persist across cells; the last expression is shown', async () => {
    const a = await kernel.execute('facts = {"port": 6543}\nlen(facts)');
    assert.equal(a.error, null);
    assert.equal(a.stdout, '1\n');
    const b = await kernel.execute('print(facts["port"] + 1)');
    assert.equal(b.stdout, '6544\n');
    assert.deepEqual(
      b.variables.find((v) => v.name === 'facts'),
      { name: 'facts', type: 'dict', size: '1 items' },
    );
    assert.ok(b.durationMs >= 0);
  });

  test('ms is bound to the log, read-only, scoped to the session', async () => {
    const r = await kernel.execute('[e.content for e in ms.recent(5)]');
    assert.equal(r.error, null, JSON.stringify(r.error));
    assert.match(r.stdout, /staging database lives on port 6543/);
    assert.match(r.stdout, /remember the port/);
  });

  test('cells run one at a time, in order', async () => {
    await kernel.execute('order = []');
    const runs = [1, 2, 3, 4].map((i) => kernel.execute(`import time\ntime.sleep(0.01)\norder.append(${i})`));
    await Promise.all(runs);
    assert.equal((await kernel.execute('order')).stdout, '[1, 2, 3, 4]\n');
  });

  test('a cell past its limit is interrupted and variables survive', async () => {
    await kernel.execute('survivor = 41');
    const pid = kernel.pid;
    const r = await kernel.execute('while True: pass', { timeoutMs: 300 });
    assert.equal(r.error?.ename, 'TimeoutError');
    assert.ok(!r.restarted);
    assert.equal(kernel.pid, pid);
    assert.equal((await kernel.execute('survivor + 1')).stdout, '42\n');
  });

  test('a cell that swallows the interrupt is killed and the kernel restarts', async () => {
    await kernel.execute('doomed = 1');
    const pid = kernel.pid;
    const code = 'import time\nwhile True:\n    try:\n        time.sleep(0.05)\n    except BaseException:\n        pass';
    const r = await kernel.execute(code, { timeoutMs: 200 });
    assert.equal(r.error?.ename, 'TimeoutError');
    assert.equal(r.restarted, true);
    assert.match(r.error!.evalue, /variables were lost/);
    assert.notEqual(kernel.pid, pid);
    assert.equal(kernel.status, 'idle');
    const after = await kernel.execute('doomed');
    assert.equal(after.error?.ename, 'NameError');
    assert.equal((await kernel.execute('print("alive")')).stdout, 'alive\n');
  });

  test('output is capped with a notice', async () => {
    const r = await kernel.execute('print("y" * 1000)');
    assert.equal(r.truncated, true);
    assert.ok(r.stdout.startsWith('y'.repeat(200) + '\n[scroll: output truncated'));
    assert.match(r.stdout, /Print less/);
  });

  // Without the sandbox only `ms` itself is guarded (the host refuses writes); everything else is the
  // user's yes to the cell. kernelAttacks.test.ts runs the whole attack list in the sandbox.
  test('a write through ms fails and the log is unchanged', async () => {
    const before = { max: log.maxSeq(), size: statSync(log.path).size };
    const attempts = [
      'ms.sql("DELETE FROM events")',
      'ms.sql("INSERT INTO events(session,kind,role,content,bytes,tokens,ts) VALUES (\'x\',\'note\',\'u\',\'x\',1,1,\'t\')")',
      'ms._conn',
    ];
    for (const code of attempts) {
      const r = await kernel.execute(code);
      assert.ok(r.error, `expected an error from: ${code}`);
    }
    assert.deepEqual({ max: log.maxSeq(), size: statSync(log.path).size }, before);
    assert.equal(log.recent(10, 's1').length, 2);
  });

  test('a crashed kernel restarts and says variables were lost', async () => {
    await kernel.execute('before_crash = 1');
    const r = await kernel.execute('import os\nos._exit(3)');
    assert.equal(r.error?.ename, 'KernelDied');
    assert.equal(r.restarted, true);
    assert.match(r.error!.evalue, /exit code 3/);
    assert.equal((await kernel.execute('print(2)')).stdout, '2\n');
  });

  test('a kernel that dies between cells is restarted on the next cell', async () => {
    await kernel.execute('x_between = 1');
    const pid = kernel.pid!;
    const statuses: KernelStatus[] = [];
    const sub = kernel.onStatus((s) => statuses.push(s));
    process.kill(pid, 'SIGKILL');
    await waitFor(() => kernel.status === 'dead');
    const r = await kernel.execute('print("back")');
    sub.dispose();
    assert.equal(r.stdout, 'back\n');
    assert.equal(r.restarted, true);
    assert.match(r.stderr, /restarted and variables were lost/);
    assert.deepEqual(statuses, ['dead', 'restarting', 'idle', 'busy', 'idle']);
  });

  test('an aborted cell is interrupted', async () => {
    const ac = new AbortController();
    const flag = join(dir, 'abort-started');
    const p = kernel.execute(`import time\nopen(${JSON.stringify(flag)}, "w").close()\ntime.sleep(30)`, { signal: ac.signal });
    await waitFor(() => existsSync(flag)); // the cell is running: the interrupt has something to stop
    ac.abort();
    const r = await p;
    assert.equal(r.error?.ename, 'KeyboardInterrupt');
    assert.ok(!r.restarted);
    const pre = new AbortController();
    pre.abort();
    assert.equal((await kernel.execute('1', { signal: pre.signal })).error?.ename, 'Interrupted');
  });

  test('restart() clears variables', async () => {
    await kernel.execute('gone = 1');
    await kernel.restart();
    assert.equal((await kernel.execute('gone')).error?.ename, 'NameError');
  });
});

describe('SubprocessKernel interpreter resolution', () => {
  test('restarts spawn the interpreter itself, not the launcher that started it the first time', async () => {
    const dir = tempDir();
    // A launcher shim like pyenv's: counts its own runs, then hands over to the real interpreter.
    const counter = join(dir, 'launches');
    const shim = join(dir, 'python-shim');
    writeFileSync(shim, `#!/bin/sh\necho x >> "${counter}"\nexec python3 "$@"\n`);
    chmodSync(shim, 0o755);
    const kernel = new SubprocessKernel({ pythonPath: shim, cwd: dir });
    try {
      await kernel.start();
      await kernel.execute('x = 1');
      await kernel.restart();
      assert.equal((await kernel.execute('print(2)')).stdout, '2\n');
      assert.equal(readFileSync(counter, 'utf8').split('\n').filter(Boolean).length, 1, 'the shim ran once');
    } finally {
      await kernel.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SubprocessKernel process environment', () => {
  test('runs in the workspace with the editor secrets stripped', async () => {
    const dir = tempDir();
    const kernel = new SubprocessKernel({
      cwd: dir,
      env: {
        ...process.env,
        GITHUB_TOKEN: 'ghp_secret',
        OPENAI_API_KEY: 'sk-secret',
        VSCODE_IPC_HOOK_CLI: '/tmp/vscode-ipc.sock',
        VSCODE_GIT_ASKPASS_MAIN: '/askpass',
        ELECTRON_RUN_AS_NODE: '1',
        SSH_AUTH_SOCK: '/tmp/agent.sock',
        PYTHONPATH_TOKEN: 'nope',
        LANG: 'C.UTF-8',
      },
    });
    try {
      const r = await kernel.execute('import os\nprint(os.getcwd())\nprint(sorted(k for k in os.environ))');
      assert.equal(r.error, null);
      const [cwd, names] = r.stdout.split('\n');
      assert.equal(realpathSync(cwd), realpathSync(dir));
      for (const secret of ['GITHUB_TOKEN', 'OPENAI_API_KEY', 'VSCODE_IPC_HOOK_CLI', 'VSCODE_GIT_ASKPASS_MAIN', 'ELECTRON_RUN_AS_NODE', 'SSH_AUTH_SOCK', 'PYTHONPATH_TOKEN']) {
        assert.ok(!names.includes(`'${secret}'`), `${secret} leaked`);
      }
      assert.ok(names.includes("'PATH'"));
      assert.ok(names.includes("'LANG'"));
      const noMs = await kernel.execute('print(ms)');
      assert.equal(noMs.stdout, 'None\n');
    } finally {
      await kernel.dispose();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('allowlist', () => {
    assert.ok(isAllowedVariable('PATH'));
    assert.ok(isAllowedVariable('LC_ALL'));
    assert.ok(isAllowedVariable('PYTHONPATH'));
    assert.ok(!isAllowedVariable('VSCODE_PID'));
    assert.ok(!isAllowedVariable('AWS_SECRET_ACCESS_KEY'));
    assert.ok(!isAllowedVariable('PYENV_GITHUB_TOKEN'));
    assert.ok(!isAllowedVariable('PIP_PASSPHRASE'));
    assert.ok(!isAllowedVariable('PYTHON_KEYRING_PASSWD'));
    const env = kernelEnvironment({ PATH: '/bin', ANTHROPIC_API_KEY: 'x' });
    assert.equal(env.PATH, '/bin');
    assert.equal(env.ANTHROPIC_API_KEY, undefined);
    assert.equal(env.PYTHONIOENCODING, 'utf-8');
  });

  test('workspace commands get the editor environment without credentials or VS Code IPC', () => {
    const secrets = ['GITHUB_TOKEN', 'DB_PASSWORD', 'MYSQL_PASSWD', 'GPG_PASSPHRASE', 'OPENAI_API_KEY', 'apiKey', 'AWS_SECRET_ACCESS_KEY',
      'SSH_PRIVATE_KEY', 'GOOGLE_APPLICATION_CREDENTIALS', 'VSCODE_IPC_HOOK', 'VSCODE_GIT_ASKPASS_NODE', 'ELECTRON_RUN_AS_NODE'];
    const kept = ['PATH', 'HOME', 'SSH_AUTH_SOCK', 'XAUTHORITY', 'JAVA_HOME', 'NODE_OPTIONS', 'VSCODE_PID'];
    const env = commandEnvironment(Object.fromEntries([...secrets, ...kept].map((k) => [k, 'v'])));
    assert.deepEqual(Object.keys(env).sort(), [...kept].sort());
  });

  test('workspace commands also lose *_PASS, *_PWD, *_KEY, *_PAT, *_AUTH and *_PSK names (what redaction treats as secret names)', () => {
    const secrets = ['SMTP_PASS', 'DB_PASS', 'MYSQL_PWD', 'ENCRYPTION_KEY', 'STRIPE_KEY', 'GITLAB_PAT', 'NPM_CONFIG__AUTH', 'WIFI_PSK'];
    const kept = ['PWD', 'OLDPWD', 'SSH_AUTH_SOCK', 'PATH', 'KEYBOARD_LAYOUT', 'PATCH_LEVEL', 'PASSENGER_ENV'];
    const env = commandEnvironment(Object.fromEntries([...secrets, ...kept].map((k) => [k, 'v'])));
    assert.deepEqual(Object.keys(env).sort(), [...kept].sort());
  });

  test('a missing Python is a clear error', async () => {
    const kernel = new SubprocessKernel({ pythonPath: '/nonexistent/python3' });
    await assert.rejects(kernel.execute('1'), (e: unknown) => {
      assert.ok(e instanceof KernelStartError);
      assert.match((e as Error).message, /not found.*scroll\.kernel\.pythonPath/);
      return true;
    });
    assert.equal(kernel.status, 'dead');
    await kernel.dispose();
  });

  test('a missing working folder is named as such', async () => {
    const kernel = new SubprocessKernel({ cwd: '/nonexistent/workspace' });
    await assert.rejects(kernel.start(), /working folder does not exist: \/nonexistent\/workspace/);
    await kernel.dispose();
  });

  test('without a memory host ms is None', async () => {
    const kernel = new SubprocessKernel();
    try {
      assert.equal((await kernel.execute('print(ms)')).stdout, 'None\n');
    } finally {
      await kernel.dispose();
    }
  });

  test('dispose kills the process', async () => {
    const kernel = new SubprocessKernel();
    await kernel.start();
    const pid = kernel.pid!;
    await kernel.dispose();
    await waitFor(() => !alive(pid));
    assert.equal(kernel.status, 'dead');
    await assert.rejects(kernel.execute('1'), /disposed/);
  });
});

describe('LoggedKernel', () => {
  test('every cell and its output are appended to the log; large output goes to the payload store', async () => {
    const dir = tempDir();
    const log = EventLog.open({ workspace: dir, session: 'logged', redact: false });
    const kernel = new LoggedKernel(new SubprocessKernel({ memory: new MemoryHost({ log, session: 'logged' }), session: 'logged', cwd: dir }), log);
    try {
      const small = await kernel.execute('answer = 6 * 7\nprint(answer)', { step: 3, toolCallId: 'call_1' });
      assert.equal(small.stdout, '42\n');
      const exec = log.get(small.execSeq)!;
      const out = log.get(small.outputSeq)!;
      assert.equal(exec.kind, 'kernel_exec');
      assert.equal(exec.content, 'answer = 6 * 7\nprint(answer)');
      assert.equal(exec.step, 3);
      assert.equal(exec.toolCallId, 'call_1');
      assert.equal(out.kind, 'kernel_output');
      assert.equal(out.content, '42');
      assert.equal(out.parentSeq, exec.seq);
      assert.equal(out.meta.execSeq, exec.seq);

      const big = await kernel.execute('print("\\n".join("row %05d" % i for i in range(1800)))');
      const bigOut = log.get(big.outputSeq)!;
      assert.ok(bigOut.payload, 'large output should be externalised');
      assert.equal(bigOut.content, formatKernelResult(big));
      assert.ok(bigOut.content.includes('row 01799'));

      const failed = await kernel.execute('1/0');
      assert.match(log.get(failed.outputSeq)!.content, /ZeroDivisionError/);
      assert.equal(log.get(failed.outputSeq)!.meta.error, 'ZeroDivisionError');

      // The kernel sees its own cells in the log it reads.
      const seen = await kernel.execute('[e.kind for e in ms.recent(3)]');
      assert.match(seen.stdout, /kernel_exec/);
    } finally {
      await kernel.dispose();
      log.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a cell that cannot run is still logged, with the reason', async () => {
    const dir = tempDir();
    const log = EventLog.open({ workspace: dir, session: 'nopy', redact: false });
    const kernel = new LoggedKernel(new SubprocessKernel({ pythonPath: '/nonexistent/python3' }), log);
    try {
      await assert.rejects(kernel.execute('print(1)'), /not found/);
      const [exec, out] = log.recent(2, 'nopy');
      assert.equal(exec.kind, 'kernel_exec');
      assert.equal(out.kind, 'kernel_output');
      assert.equal(out.parentSeq, exec.seq);
      assert.match(out.content, /the cell did not run: .*not found/);
      assert.equal(out.meta.ran, false);
    } finally {
      await kernel.dispose();
      log.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('formatKernelResult', () => {
    assert.equal(formatKernelResult({ stdout: '', stderr: '', error: null, durationMs: 0, variables: [] }), '(no output)');
    const text = formatKernelResult({
      stdout: 'a\n',
      stderr: 'warn\n',
      error: { ename: 'ValueError', evalue: 'bad', traceback: [] },
      durationMs: 1,
      variables: [],
      restarted: true,
    });
    assert.equal(text, 'a\n[stderr]\nwarn\nValueError: bad\n[the kernel restarted: variables from earlier cells were lost]');
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(cond: () => boolean, timeoutMs = 10000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
