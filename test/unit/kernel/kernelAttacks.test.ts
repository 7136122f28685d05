/**
 * The attacks of the sandboxed-kernel issue, each as a cell the model could write, against the real
 * kernel in the real sandbox with `ms` answered by the real host. After all of them: every row up to
 * the pre-attack maximum seq identical in every column, sqlite_master identical, the payload folder
 * identical, the triggers present, nothing written outside the scratch folder, no process left.
 * Without bubblewrap this file fails (CI installs it); SCROLL_TEST_NO_SANDBOX=1 skips the sandboxed part.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../src/core/log/eventLog';
import { SubprocessKernel } from '../../../src/core/kernel/subprocessKernel';
import { probeSandbox, ScratchFolder, type SandboxAvailable } from '../../../src/core/kernel/sandbox';
import { MemoryHost } from '../../../src/core/memory/memoryHost';
import { attacks, processesMatching, snapshot, type Snapshot } from './attackCells';

const skipSandboxed = process.env.SCROLL_TEST_NO_SANDBOX === '1';

describe('kernel attacks in the sandbox', { skip: skipSandboxed && 'SCROLL_TEST_NO_SANDBOX=1' }, () => {
  let root: string;
  let ws: string;
  let home: string;
  let log: EventLog;
  let memory: MemoryHost;
  let kernel: SubprocessKernel;
  let scratch: ScratchFolder;
  let server: Server;
  let port: number;
  let handle: string;
  let maxSeq: number;
  let before0: Snapshot;

  before(async () => {
    const probe = probeSandbox({ refresh: true });
    assert.ok(probe.available, `bubblewrap is needed for these tests (${probe.available ? '' : `${probe.reason}; ${probe.fix}`})`);
    root = mkdtempSync(join(tmpdir(), 'scroll-attacks-'));
    ws = join(root, 'ws');
    home = join(root, 'home');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    mkdirSync(join(home, '.aws'), { recursive: true });
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(home, '.ssh', 'id_ed25519'), '-----BEGIN OPENSSH PRIVATE KEY----- secret');
    writeFileSync(join(home, '.aws', 'credentials'), '[default]\naws_secret_access_key = s3cr3t');
    writeFileSync(join(ws, '.env'), 'DATABASE_PASSWORD=hunter2');
    log = EventLog.open({ workspace: ws, session: 'atk', redact: false });
    log.append({ kind: 'user_message', role: 'user', content: 'the retry cap is 1500 ms' });
    const big = log.append({ kind: 'tool_result', role: 'tool', content: 'line of a long build log\n'.repeat(4000) });
    assert.ok(big.payload, 'a large event goes to the payload store');
    handle = big.payload as string;
    log.append({ kind: 'kernel_exec', role: 'kernel', content: 'print(1)' });
    maxSeq = log.maxSeq();
    before0 = snapshot(log.path, log.payloads.dir, maxSeq);
    server = createServer((c) => { c.on('error', () => undefined); c.end('hello'); }).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    port = (server.address() as { port: number }).port;
    memory = new MemoryHost({ log, session: 'atk' });
    scratch = ScratchFolder.forSession('atk', ws, join(root, 'scratch-root'));
    kernel = new SubprocessKernel({
      memory,
      session: 'atk',
      cwd: ws,
      env: { ...process.env, HOME: home, GITHUB_TOKEN: 'ghp_should_not_pass', PIP_INDEX_URL: 'https://user:pw@pypi.example/simple' },
      sandbox: probe as SandboxAvailable,
      scratch,
      hiddenPaths: [join(ws, '.scroll')],
      defaultTimeoutMs: 30_000,
    });
    await kernel.start();
  });

  after(async () => {
    await kernel?.dispose();
    memory?.dispose();
    log?.close();
    server?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  test('honest memory work keeps working', async () => {
    const r = await kernel.execute(
      "h = ms.search('retry cap', k=3)\nprint(h[0].kind, ms.expand(h[0].seq)[0].content)\n" +
        "print(ms.sql('SELECT count(*) AS n FROM events')[0].n)\nprint(len(ms.expand(" + String(maxSeq - 1) + ")[0].content))\n" +
        "import os\nopen(os.path.join(os.environ['TMPDIR'], 'notes.txt'), 'w').write('kept')\nprint(open(os.path.join(os.environ['TMPDIR'], 'notes.txt')).read())",
    );
    assert.equal(r.error, null, JSON.stringify(r.error));
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines[0], 'user_message the retry cap is 1500 ms');
    assert.equal(lines[1], String(maxSeq));
    assert.equal(lines[2], String('line of a long build log\n'.length * 4000), 'the payload arrives whole through the host');
    assert.equal(lines[3], 'kept');
  });

  test('every attack fails', async () => {
    const failures: string[] = [];
    for (const [name, code] of attacks(ws, home, log.path, log.payloads.dir, handle, process.pid, port)) {
      const r = await kernel.execute(code, { timeoutMs: 30_000 });
      if (/(^|\n)OK\b/.test(r.stdout)) failures.push(`${name}: ${r.stdout.slice(0, 200)}`);
    }
    assert.deepEqual(failures, []);
  });

  test('secrets are not in the environment', async () => {
    const r = await kernel.execute("import os\nprint(sorted(k for k in os.environ if 'TOKEN' in k or 'PIP_INDEX' in k or 'pw@' in os.environ[k]))");
    assert.equal(r.stdout.trim(), '[]');
  });

  test('processes a cell starts die with the kernel, setsid or not', async () => {
    const marker = `30${process.pid % 1000}1`;
    const r = await kernel.execute(`import subprocess\nsubprocess.Popen(['setsid', 'sleep', '${marker}'])\nsubprocess.Popen(['sh', '-c', '(sleep ${marker} &) ; exit 0'])\nprint('started')`);
    assert.equal(r.stdout.trim(), 'started');
    await new Promise((res) => setTimeout(res, 300));
    assert.ok(processesMatching(`sleep ${marker}`).length >= 1, 'the children run while the kernel does');
    await kernel.restart();
    await new Promise((res) => setTimeout(res, 500));
    assert.deepEqual(processesMatching(`sleep ${marker}`), [], 'a restart takes them along');
  });

  test('the scratch folder survives a restart and goes with dispose', async () => {
    await kernel.execute("import os\nopen(os.path.join(os.environ['TMPDIR'], 'survives.txt'), 'w').write('y')");
    await kernel.restart();
    const r = await kernel.execute("import os\nprint(open(os.path.join(os.environ['TMPDIR'], 'survives.txt')).read())");
    assert.equal(r.stdout.trim(), 'y');
    assert.ok(existsSync(join(scratch.path, 'survives.txt')));
  });

  test('after all of it the log and payloads are byte for byte what they were, and appends still work', () => {
    const after0 = snapshot(log.path, log.payloads.dir, maxSeq);
    assert.equal(after0.rows, before0.rows);
    assert.equal(after0.master, before0.master);
    assert.deepEqual(after0.triggers, ['events_no_delete', 'events_no_update']);
    // Only handles Scroll itself wrote since (none here: the kernel did not log through LoggedKernel).
    assert.deepEqual(after0.payloads, before0.payloads);
    for (const f of ['pwned.txt', 'pwned2.txt']) assert.ok(!existsSync(join(ws, f)), f);
    for (const f of ['pwned.txt', 'pwned3.txt']) assert.ok(!existsSync(join(home, f)), f);
    assert.ok(!existsSync(join(tmpdir(), 'scroll-attack-pwned')));
    const e = log.append({ kind: 'user_message', role: 'user', content: 'still appendable' });
    assert.equal(e.seq, log.maxSeq());
  });

  test('dispose removes the scratch folder and leaves no process', async () => {
    const pid = kernel.pid;
    await kernel.dispose();
    await new Promise((res) => setTimeout(res, 300));
    assert.ok(!existsSync(scratch.path));
    if (pid) assert.equal(statSyncSafe(`/proc/${pid}`), false);
  });
});

// The control: the same cells in an unsandboxed kernel on a throwaway log do what they say (so a cell
// that fails in the sandbox fails because of the sandbox, not because it is broken).
describe('the attacks are real: unsandboxed, on a throwaway log, they work', () => {
  test('each non-ms attack prints OK without the sandbox', async () => {
    const root = mkdtempSync(join(tmpdir(), 'scroll-attacks-control-'));
    const ws = join(root, 'ws');
    const home = join(root, 'home');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    mkdirSync(join(home, '.aws'), { recursive: true });
    mkdirSync(ws, { recursive: true });
    writeFileSync(join(home, '.ssh', 'id_ed25519'), 'key');
    writeFileSync(join(home, '.aws', 'credentials'), 'creds');
    writeFileSync(join(ws, '.env'), 'A=b');
    const log = EventLog.open({ workspace: ws, session: 'ctl', redact: false });
    const big = log.append({ kind: 'tool_result', role: 'tool', content: 'x\n'.repeat(40000) });
    log.append({ kind: 'user_message', role: 'user', content: 'control' });
    const server = createServer((c) => { c.on('error', () => undefined); c.end('hello'); }).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const port = (server.address() as { port: number }).port;
    const memory = new MemoryHost({ log, session: 'ctl' });
    const kernel = new SubprocessKernel({ memory, session: 'ctl', cwd: ws, env: { ...process.env, HOME: home, TMPDIR: root } });
    const notOk: string[] = [];
    try {
      // Not expected to work here either: no route out of this machine; pip has no index; /tmp is the host's anyway.
      const skip = new Set(['socket beyond', 'pip install', 'write the host /tmp']);
      for (const [name, code] of attacks(ws, home, log.path, log.payloads.dir, big.payload as string, process.pid, port)) {
        if (name.startsWith('ms') || skip.has(name)) continue;
        const r = await kernel.execute(code, { timeoutMs: 30_000 });
        if (!/(^|\n)OK\b/.test(r.stdout)) notOk.push(`${name}: ${r.stdout.slice(0, 120)} ${r.error ? `${r.error.ename}: ${r.error.evalue}` : ''}`);
      }
    } finally {
      await kernel.dispose();
      memory.dispose();
      server.close();
      try {
        log.close();
      } catch {
        // the attacks damaged this log on purpose
      }
      rmSync(root, { recursive: true, force: true });
      rmSync('/tmp/scroll-attack-pwned', { force: true });
    }
    assert.deepEqual(notOk, []);
  });
});

describe('ms.sql routes without the sandbox (the host refuses them itself)', () => {
  let ws: string;
  let log: EventLog;
  let memory: MemoryHost;
  let kernel: SubprocessKernel;

  before(async () => {
    ws = mkdtempSync(join(tmpdir(), 'scroll-attacks-nosb-'));
    log = EventLog.open({ workspace: ws, session: 'nosb', redact: false });
    log.append({ kind: 'user_message', role: 'user', content: 'keep me' });
    memory = new MemoryHost({ log, session: 'nosb' });
    kernel = new SubprocessKernel({ memory, session: 'nosb', cwd: ws });
    await kernel.start();
  });

  after(async () => {
    await kernel.dispose();
    memory.dispose();
    log.close();
    rmSync(ws, { recursive: true, force: true });
  });

  test('each write through ms.sql is refused and the log is unchanged', async () => {
    const maxSeq = log.maxSeq();
    const before1 = snapshot(log.path, log.payloads.dir, maxSeq);
    const all = attacks(ws, ws, log.path, log.payloads.dir, '0'.repeat(64), process.pid, 1).filter(([n]) => n.startsWith('ms'));
    assert.ok(all.length >= 7);
    for (const [name, code] of all) {
      const r = await kernel.execute(code);
      assert.doesNotMatch(r.stdout, /(^|\n)OK\b/, name);
      assert.ok(r.error, name);
    }
    const after1 = snapshot(log.path, log.payloads.dir, maxSeq);
    assert.deepEqual(after1, before1);
  });
});

function statSyncSafe(p: string): boolean {
  try {
    statSync(p);
    return true;
  } catch {
    return false;
  }
}

describe('a sandboxed kernel installed as an extension under the hidden ~/.vscode', { skip: skipSandboxed && 'SCROLL_TEST_NO_SANDBOX=1' }, () => {
  test('starts (its own folder is readable), while the rest of ~/.vscode stays hidden', async () => {
    const probe = probeSandbox();
    assert.ok(probe.available);
    // Not under /tmp: the sandbox's private /tmp would hide this home wholesale and prove nothing.
    const root = mkdtempSync(join(existsSync('/var/tmp') ? '/var/tmp' : tmpdir(), 'scroll-ext-'));
    const home = join(root, 'home');
    const ext = join(home, '.vscode', 'extensions', 'scroll-dev.scroll-memory-0.1.0');
    cpSync(join(__dirname, '..', '..', '..', '..', 'kernel'), join(ext, 'kernel'), { recursive: true });
    writeFileSync(join(home, '.vscode', 'argv.json'), '{"secret": "editor data"}');
    const ws = join(root, 'ws');
    mkdirSync(ws);
    const scratch = ScratchFolder.forSession('ext', ws, join(root, 'scratch-root'));
    const kernel = new SubprocessKernel({ kernelDir: join(ext, 'kernel'), cwd: ws, env: { ...process.env, HOME: home }, sandbox: probe as SandboxAvailable, scratch });
    try {
      const r = await kernel.execute(`import os\nprint(6 * 7)\nprint(os.path.exists(${JSON.stringify(join(home, '.vscode', 'argv.json'))}))`);
      assert.equal(r.stdout, '42\nFalse\n', JSON.stringify(r));
    } finally {
      await kernel.dispose();
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('a sandboxed kernel whose own files live under /tmp (an extension unpacked there)', { skip: skipSandboxed && 'SCROLL_TEST_NO_SANDBOX=1' }, () => {
  test('starts: its folder is readable inside although /tmp is private', async () => {
    const probe = probeSandbox();
    assert.ok(probe.available);
    const root = mkdtempSync(join(tmpdir(), 'scroll-kdir-'));
    const kernelDir = join(root, 'kernel');
    cpSync(join(__dirname, '..', '..', '..', '..', 'kernel'), kernelDir, { recursive: true });
    const scratch = ScratchFolder.forSession('kdir', root, join(root, 'scratch-root'));
    const kernel = new SubprocessKernel({ kernelDir, cwd: root, sandbox: probe as SandboxAvailable, scratch });
    try {
      assert.equal((await kernel.execute('print(6 * 7)')).stdout, '42\n');
    } finally {
      await kernel.dispose();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
