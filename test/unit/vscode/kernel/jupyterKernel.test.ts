import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../../src/core/log/eventLog';
import { findKernelDir } from '../../../../src/core/kernel/environment';
import { SubprocessKernel } from '../../../../src/core/kernel/subprocessKernel';
import { MemoryChannel } from '../../../../src/core/memory/memoryChannel';
import { MemoryHost } from '../../../../src/core/memory/memoryHost';
import {
  bootstrapCode,
  decodeOutputs,
  JupyterAccessDeniedError,
  JupyterKernel,
  JupyterUnavailableError,
  parseDigest,
  DIGEST_MARK,
} from '../../../../src/vscode/kernel/jupyterKernel';
import { FallbackKernel } from '../../../../src/vscode/kernel/fallbackKernel';
import { FakeJupyterApiKernel } from './fakeJupyterApi';

const enc = new TextEncoder();
const item = (mime: string, text: string) => ({ mime, data: enc.encode(text) });

describe('decodeOutputs', () => {
  test('streams under both stdout/stderr mime spellings, errors, text/plain results', () => {
    const d = decodeOutputs([
      { items: [item('application/x.notebook.stream.stdout', 'a\n')] },
      { items: [item('application/vnd.code.notebook.stdout', 'b\n')] },
      { items: [item('application/vnd.code.notebook.stderr', 'warn\n')] },
      { items: [item('text/html', '<b>42</b>'), item('text/plain', '42')] },
      { items: [item('image/png', 'xxxx')] },
      {
        items: [
          item('application/vnd.code.notebook.error', JSON.stringify({ name: 'ValueError', message: 'bad', stack: '\x1b[0;31mTraceback\x1b[0m: here' })),
        ],
      },
    ]);
    assert.equal(d.stdout, 'a\nb\n42\n[scroll: rich output (image/png, 4 bytes) not shown as text]\n');
    assert.equal(d.stderr, 'warn\n');
    assert.deepEqual(d.error, { ename: 'ValueError', evalue: 'bad', traceback: ['Traceback: here'] });
    assert.equal(d.truncated, false);
  });

  test('caps output with the same notice as the subprocess kernel', () => {
    const d = decodeOutputs([{ items: [item('application/vnd.code.notebook.stdout', 'z'.repeat(500))] }], 100);
    assert.equal(d.truncated, true);
    assert.ok(d.stdout.startsWith('z'.repeat(100) + '\n[scroll: output truncated — showed the first 100 of 500'));
  });

  test('digest line', () => {
    assert.deepEqual(parseDigest(`noise\n${DIGEST_MARK}[{"name":"x","type":"int","size":"1"}]\n`), [{ name: 'x', type: 'int', size: '1' }]);
    assert.equal(parseDigest('nothing'), undefined);
  });

  test('bootstrap code quotes paths as Python strings', () => {
    const code = bootstrapCode({ kernelDir: '/a "b"/kernel', memory: { address: "/x/it's.sock", token: 'abc' }, session: 's1' });
    assert.match(code, /sys\.path\.insert\(0, "\/a \\"b\\"\/kernel"\)/);
    assert.match(code, /scroll_jupyter\.bootstrap\(globals\(\), "\/x\/it's\.sock", "abc", "s1"\)/);
  });
});

describe('JupyterKernel over the kernels API', () => {
  let dir: string;
  let log: EventLog;
  let api: FakeJupyterApiKernel;
  let kernel: JupyterKernel;
  let channel: MemoryChannel;
  const opts = () => ({ kernelDir: findKernelDir(), memory: { address: channel.address, token: channel.token }, session: 'j1', outputCap: 300, interruptGraceMs: 500 });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'scroll-jupyter-test-'));
    log = EventLog.open({ workspace: dir, session: 'j1', redact: false });
    log.append({ kind: 'user_message', role: 'user', content: 'the release train leaves on Thursdays' });
    channel = await MemoryChannel.open(new MemoryHost({ log, session: 'j1' }));
    api = new FakeJupyterApiKernel();
    kernel = new JupyterKernel(api as never, opts());
    await kernel.init();
  });

  after(async () => {
    await kernel.dispose();
    api.dispose();
    await channel.close();
    log.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('bootstrap binds ms through the API; variables persist; digest excludes ms', async () => {
    assert.match(api.executed[0], /scroll_jupyter\.bootstrap/);
    const r = await kernel.execute('days = [e.content for e in ms.recent(5)]\nlen(days)');
    assert.equal(r.error, null, JSON.stringify(r.error));
    assert.equal(r.stdout, '1\n');
    const r2 = await kernel.execute('print(days[0])');
    assert.equal(r2.stdout, 'the release train leaves on Thursdays\n');
    assert.deepEqual(r2.variables, [{ name: 'days', type: 'list', size: '1 items' }]);
    assert.equal(kernel.backend, 'jupyter');
    assert.equal(kernel.status, 'idle');
  });

  test('errors are decoded, tracebacks without colour codes', async () => {
    const r = await kernel.execute('{}["missing"]');
    assert.equal(r.error?.ename, 'KeyError');
    assert.doesNotMatch(r.error!.traceback.join(''), /\x1b/);
  });

  test('output is capped', async () => {
    const r = await kernel.execute('print("q" * 1000)');
    assert.equal(r.truncated, true);
    assert.match(r.stdout, /output truncated/);
  });

  test('a cell past its limit is interrupted; variables survive', async () => {
    await kernel.execute('kept = 7');
    const r = await kernel.execute('import time\ntime.sleep(30)', { timeoutMs: 300 });
    assert.equal(r.error?.ename, 'TimeoutError');
    assert.equal((await kernel.execute('kept * 6')).stdout, '42\n');
  });

  // The user's own kernel cannot be confined (its cells ask first); `ms` itself cannot write.
  test('writes to the log through ms fail and the log is unchanged', async () => {
    const before = { max: log.maxSeq(), size: statSync(log.path).size };
    for (const code of ['ms.sql("DELETE FROM events")', 'ms._conn']) {
      assert.ok((await kernel.execute(code)).error, code);
    }
    assert.deepEqual({ max: log.maxSeq(), size: statSync(log.path).size }, before);
  });

  test('restart() clears the session variables and keeps ms', async () => {
    await kernel.execute('temp = 1');
    await kernel.restart();
    assert.equal((await kernel.execute('temp')).error?.ename, 'NameError');
    assert.equal((await kernel.execute('print(type(ms).__name__)')).stdout, 'HostMemorySpace\n');
  });
});

describe('JupyterKernel failure modes and the fallback', () => {
  let dir: string;
  let log: EventLog;
  let channel: MemoryChannel;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'scroll-jupyter-fb-'));
    log = EventLog.open({ workspace: dir, session: 'f1', redact: false });
    log.append({ kind: 'note', role: 'user', content: 'hello' });
    channel = await MemoryChannel.open(new MemoryHost({ log, session: 'f1' }));
  });
  after(async () => {
    await channel.close();
    log.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const opts = () => ({ kernelDir: findKernelDir(), memory: { address: channel.address, token: channel.token }, session: 'f1', interruptGraceMs: 400 });
  const subprocess = () => new SubprocessKernel({ memory: new MemoryHost({ log, session: 'f1' }), session: 'f1', cwd: dir });

  test('denied access is JupyterAccessDeniedError', async () => {
    const api = new FakeJupyterApiKernel('deny');
    const k = new JupyterKernel(api as never, opts());
    await assert.rejects(k.init(), JupyterAccessDeniedError);
    api.dispose();
  });

  test('a non-Python kernel is refused', async () => {
    const api = new FakeJupyterApiKernel();
    api.language = 'r';
    await assert.rejects(new JupyterKernel(api as never, opts()).init(), /runs r, not Python/);
    api.dispose();
  });

  test('a dead kernel makes execute throw JupyterUnavailableError', async () => {
    const api = new FakeJupyterApiKernel();
    const k = new JupyterKernel(api as never, opts());
    await k.init();
    api.kill();
    await waitFor(() => k.status === 'dead');
    await assert.rejects(k.execute('1'), JupyterUnavailableError);
    api.dispose();
  });

  test('fallback: denied access runs the cell on the subprocess kernel and tells the user', async () => {
    const messages: string[] = [];
    const api = new FakeJupyterApiKernel('deny');
    const fb = new FallbackKernel({
      primary: async () => {
        const k = new JupyterKernel(api as never, opts());
        await k.init();
        return k;
      },
      fallback: subprocess,
      notify: (m) => messages.push(m),
    });
    try {
      const r = await fb.execute('x = 5\nprint(ms.recent(1)[0].content)');
      assert.equal(r.error, null, JSON.stringify(r.error));
      assert.match(r.stdout, /hello/);
      assert.match(r.stderr, /refused access/);
      assert.equal(fb.backend, 'subprocess');
      assert.equal(messages.length, 1);
      assert.match(messages[0], /refused access.*Scroll's own Python process/);
      const r2 = await fb.execute('x + 1');
      assert.equal(r2.stdout, '6\n');
      assert.equal(r2.stderr, '');
    } finally {
      await fb.dispose();
      api.dispose();
    }
  });

  test('fallback: a Jupyter kernel that hangs is abandoned for the subprocess kernel', async () => {
    const messages: string[] = [];
    const api = new FakeJupyterApiKernel();
    const fb = new FallbackKernel({
      primary: async () => {
        const k = new JupyterKernel(api as never, opts());
        await k.init();
        return k;
      },
      fallback: subprocess,
      notify: (m) => messages.push(m),
    });
    try {
      assert.equal((await fb.execute('y = 1\ny')).stdout, '1\n');
      assert.equal(fb.backend, 'jupyter');
      const stuck = 'import time\nwhile True:\n    try:\n        time.sleep(0.05)\n    except BaseException:\n        pass';
      const r = await fb.execute(stuck, { timeoutMs: 200 });
      assert.equal(r.error?.ename, 'TimeoutError');
      assert.equal(r.restarted, true);
      assert.equal(fb.backend, 'subprocess');
      assert.equal(messages.length, 1);
      const after = await fb.execute('print("on subprocess")');
      assert.equal(after.stdout, 'on subprocess\n');
    } finally {
      await fb.dispose();
      api.dispose();
    }
  });

  test('fallback: no Jupyter kernel at all', async () => {
    const messages: string[] = [];
    const fb = new FallbackKernel({
      primary: async () => {
        throw new JupyterUnavailableError('no Jupyter kernel was started for .scroll/scroll-kernel.ipynb within 1 s');
      },
      fallback: subprocess,
      notify: (m) => messages.push(m),
    });
    try {
      const r = await fb.execute('print(1)');
      assert.equal(r.stdout, '1\n');
      assert.ok(!r.restarted);
      assert.match(messages[0], /no Jupyter kernel was started/);
    } finally {
      await fb.dispose();
    }
  });
});

async function waitFor(cond: () => boolean, timeoutMs = 10000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
