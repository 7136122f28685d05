import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import {
  existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import {
  ScratchFolder, credentialPaths, decideSandbox, parseSandboxMode, probeSandbox, sandboxedCommand, workspaceEnvFiles,
  type SandboxAvailable, type SandboxPolicy, type SandboxUnavailable,
} from '../../../src/core/kernel/sandbox';
import { commandEnvironment, hasUrlCredentials, isAllowedVariable, kernelEnvironment } from '../../../src/core/kernel/environment';

/** CI installs bubblewrap, so a missing one fails these tests; only this variable turns them off. */
const NO_SANDBOX = process.env.SCROLL_TEST_NO_SANDBOX === '1';

function tempDir(prefix = 'scroll-sandbox-test-'): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Spawns like the kernel host does: own process group (`detached`), stdio on pipes. */
function start(argv: { command: string; args: string[] }): { child: ChildProcess; done: Promise<Run> } {
  const child = spawn(argv.command, argv.args, { detached: true, stdio: ['pipe', 'pipe', 'pipe'], env: {} });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<Run>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}

function waitForOutput(child: ChildProcess, text: string, timeoutMs = 10000): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`no "${text}" within ${timeoutMs} ms; saw: ${seen}`)), timeoutMs);
    child.stdout!.on('data', (d: string) => {
      seen += d;
      if (seen.includes(text)) {
        clearTimeout(timer);
        resolve(seen);
      }
    });
  });
}

/** Host pids whose command line contains `marker` (and are not zombies); with `program`, only those running it. */
function hostPidsWith(marker: string, program?: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ');
      if (!cmd.includes(marker) || (program && !cmd.startsWith(`${program} `))) continue;
      const state = readFileSync(`/proc/${name}/stat`, 'utf8').replace(/^.*\) /, '')[0];
      if (state !== 'Z') out.push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

async function waitUntil(cond: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return cond();
}

function p50(samples: number[]): number {
  const s = [...samples].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

test('bubblewrap is installed and can make a sandbox here (CI installs it: scripts/ensure-sandbox.sh)', { skip: NO_SANDBOX ? 'SCROLL_TEST_NO_SANDBOX=1' : false }, () => {
  const p = probeSandbox({ refresh: true });
  assert.ok(p.available, p.available ? '' : `${p.reason} (${p.fix}); set SCROLL_TEST_NO_SANDBOX=1 to skip the sandbox tests`);
});

describe('sandbox (real bubblewrap)', { skip: NO_SANDBOX ? 'SCROLL_TEST_NO_SANDBOX=1' : false }, () => {
  let probe: SandboxAvailable;
  let base: string;
  let ws: string;
  let home: string;
  let dbDir: string;
  let outside: string;
  let scratch: ScratchFolder;
  let policy: SandboxPolicy;
  let env: Record<string, string>;
  let server: Server;
  let port: number;

  before(async () => {
    const p = probeSandbox({ refresh: true });
    if (!p.available) {
      assert.fail(`no sandbox on this machine: ${p.reason} (${p.fix}); run scripts/ensure-sandbox.sh, or set SCROLL_TEST_NO_SANDBOX=1 to skip`);
    }
    probe = p;
    base = tempDir();
    ws = join(base, 'ws');
    // A fake home with credential stores, beside a file that must stay readable.
    home = join(base, 'home');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    writeFileSync(join(home, '.ssh', 'id_rsa'), 'PRIVATE KEY');
    mkdirSync(join(home, '.aws'));
    writeFileSync(join(home, '.aws', 'credentials'), '[default]\naws_secret_access_key = abc');
    writeFileSync(join(home, '.npmrc'), '//registry.npmjs.org/:_authToken=npm_secret');
    mkdirSync(join(home, '.config', 'Code', 'User'), { recursive: true });
    writeFileSync(join(home, '.config', 'Code', 'User', 'settings.json'), '{}');
    writeFileSync(join(home, 'notes.txt'), 'visible');
    // The db's folder outside the workspace (a hiddenPaths entry).
    dbDir = join(home, 'scroll-db');
    mkdirSync(dbDir);
    writeFileSync(join(dbDir, 'scroll.db'), 'db');
    // The workspace: readable code, a log folder and .env files that are not.
    mkdirSync(join(ws, '.scroll', 'payloads'), { recursive: true });
    writeFileSync(join(ws, '.scroll', 'scroll.db'), 'events');
    writeFileSync(join(ws, 'main.py'), 'print("hi")\n');
    writeFileSync(join(ws, '.env'), 'OPENAI_API_KEY=sk-workspace');
    mkdirSync(join(ws, 'svc', 'api', 'conf'), { recursive: true });
    writeFileSync(join(ws, 'svc', 'api', 'conf', '.env.production'), 'DB_PASSWORD=pw');
    outside = join(base, 'outside');
    mkdirSync(outside);
    scratch = ScratchFolder.forSession('sandbox-test', ws, base);
    scratch.ensure();
    // The fake home lies under /tmp, which is a private tmpfs inside: bind it back so that what the
    // tests see is the hiding, not the tmpfs.
    policy = { workspace: ws, scratchDir: scratch.path, home, hiddenPaths: [dbDir], readablePaths: [home] };
    // What the kernel host passes: its own environment through the allowlist.
    env = kernelEnvironment({
      ...process.env,
      HOME: home,
      PIP_INDEX_URL: 'https://user:pw@pypi.example.com/simple',
      PIP_EXTRA_INDEX_URL: 'https://pypi.org/simple',
      GITHUB_TOKEN: 'ghp_secret',
      OPENAI_API_KEY: 'sk-secret',
    });
    server = createServer((s) => s.end('hello from the host\n'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  });

  after(() => {
    server?.close();
    if (base) rmSync(base, { recursive: true, force: true });
  });

  /** Runs a Python snippet in the sandbox; its last stdout line is JSON. */
  async function py(code: string, p: SandboxPolicy = policy): Promise<Record<string, unknown>> {
    const { done } = start(sandboxedCommand(probe, p, 'python3', ['-c', code], env));
    const r = await done;
    assert.equal(r.code, 0, `python failed (${r.code ?? r.signal}): ${r.stderr}`);
    const last = r.stdout.trim().split('\n').pop()!;
    return JSON.parse(last) as Record<string, unknown>;
  }

  const TRY = `
import json, os, socket, errno
def write(path):
    try:
        with open(path, 'w') as f: f.write('x')
        return 'ok'
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
def read(path):
    try:
        with open(path) as f: return 'read:' + f.read()
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))
def ls(path):
    try: return sorted(os.listdir(path))
    except OSError as e: return errno.errorcode.get(e.errno, str(e.errno))
`;

  test('the filesystem is read-only except the scratch folder and a private /tmp', async () => {
    const r = await py(`${TRY}
import tempfile
out = dict(
  workspace=write(${JSON.stringify(join(ws, 'new.py'))}),
  workspace_existing=write(${JSON.stringify(join(ws, 'main.py'))}),
  home=write(${JSON.stringify(join(home, 'new.txt'))}),
  real_home=write(os.path.join(${JSON.stringify(process.env.HOME ?? '/root')}, 'scroll-sandbox-probe.txt')),
  usr=write('/usr/scroll-sandbox-probe'),
  tmp=write('/tmp/scroll-sandbox-inside'),
  outside=write(${JSON.stringify(join(outside, 'leak.txt'))}),
  shm=write('/dev/shm/scroll-sandbox-inside'),
  scratch=write(os.path.join(${JSON.stringify(scratch.path)}, 'keep.txt')),
  tmpdir=tempfile.gettempdir(),
  env_tmpdir=os.environ.get('TMPDIR'),
  main=read('main.py'),
  cwd=os.getcwd(),
)
print(json.dumps(out))`);
    assert.equal(r.workspace, 'EROFS');
    assert.equal(r.workspace_existing, 'EROFS');
    assert.equal(r.home, 'EROFS');
    assert.notEqual(r.real_home, 'ok'); // EROFS; ENOENT when $HOME lies under /tmp
    assert.ok(!existsSync(join(process.env.HOME ?? '/root', 'scroll-sandbox-probe.txt')));
    assert.equal(r.usr, 'EROFS');
    assert.equal(r.tmp, 'ok', 'the private /tmp is writable');
    assert.equal(r.shm, 'ok', '/dev/shm is a private tmpfs');
    assert.equal(r.scratch, 'ok');
    assert.equal(r.tmpdir, scratch.path);
    assert.equal(r.env_tmpdir, scratch.path);
    assert.equal(r.main, 'read:print("hi")\n', 'the workspace is readable');
    assert.equal(r.cwd, ws);
    // Nothing written inside reached the host, except in the scratch folder.
    assert.ok(!existsSync('/tmp/scroll-sandbox-inside'));
    assert.ok(!existsSync(join(outside, 'leak.txt')));
    assert.ok(!existsSync(join(ws, 'new.py')));
    assert.equal(readFileSync(join(ws, 'main.py'), 'utf8'), 'print("hi")\n');
    assert.equal(readFileSync(join(scratch.path, 'keep.txt'), 'utf8'), 'x');
    // A new sandbox (a kernel restart) finds the scratch folder's files again.
    const again = await py(`${TRY}\nprint(json.dumps(dict(keep=read(${JSON.stringify(join(scratch.path, 'keep.txt'))}), tmp=ls('/tmp'))))`);
    assert.equal(again.keep, 'read:x');
    assert.ok(!(again.tmp as string[]).includes('scroll-sandbox-inside'), 'each sandbox has its own /tmp');
  });

  test('credential stores, .env files and Scroll\'s log folder are not readable', async () => {
    const r = await py(`${TRY}
h = ${JSON.stringify(home)}
w = ${JSON.stringify(ws)}
print(json.dumps(dict(
  ssh=ls(h + '/.ssh'), id_rsa=read(h + '/.ssh/id_rsa'),
  aws=read(h + '/.aws/credentials'), npmrc=read(h + '/.npmrc'),
  code=ls(h + '/.config/Code'), notes=read(h + '/notes.txt'),
  scroll=ls(w + '/.scroll'), db=read(w + '/.scroll/scroll.db'),
  dbdir=ls(${JSON.stringify(dbDir)}), db2=read(${JSON.stringify(join(dbDir, 'scroll.db'))}),
  env=read(w + '/.env'), env_deep=read(w + '/svc/api/conf/.env.production'),
  run=ls('/run'),
)))`);
    assert.deepEqual(r.ssh, []);
    assert.equal(r.id_rsa, 'ENOENT');
    assert.equal(r.aws, 'ENOENT');
    assert.notEqual(r.npmrc, 'read://registry.npmjs.org/:_authToken=npm_secret');
    assert.ok(!String(r.npmrc).includes('npm_secret'));
    assert.deepEqual(r.code, []);
    assert.equal(r.notes, 'read:visible', 'the rest of the home folder stays readable');
    assert.deepEqual(r.scroll, []);
    assert.equal(r.db, 'ENOENT');
    assert.deepEqual(r.dbdir, []);
    assert.equal(r.db2, 'ENOENT');
    assert.ok(!String(r.env).startsWith('read:'), `workspace .env: ${r.env}`);
    assert.ok(!String(r.env_deep).startsWith('read:'), `nested .env.production: ${r.env_deep}`);
    assert.deepEqual(r.run, [], '/run (sockets) is hidden');
  });

  test('a Unix socket the host environment names (an SSH agent) cannot be reached', async () => {
    const sock = join(home, 'agent.sock');
    const agent = createServer((c) => c.end('agent'));
    await new Promise<void>((r) => agent.listen(sock, r));
    const saved = process.env.SSH_AUTH_SOCK;
    process.env.SSH_AUTH_SOCK = sock;
    try {
      const argv = sandboxedCommand(probe, policy, 'python3', ['-c', [
        'import socket',
        's = socket.socket(socket.AF_UNIX)',
        'try:',
        `    s.connect(${JSON.stringify(sock)}); print("connected")`,
        'except OSError as e:',
        '    print(type(e).__name__)',
      ].join('\n')], env);
      const r = await start(argv).done;
      assert.equal(r.code, 0, r.stderr);
      assert.notEqual(r.stdout.trim(), 'connected');
    } finally {
      if (saved === undefined) delete process.env.SSH_AUTH_SOCK;
      else process.env.SSH_AUTH_SOCK = saved;
      agent.close();
    }
  });

  test('no network, loopback included; its own PID namespace; no capabilities', async () => {
    const r = await py(`${TRY}
s = socket.socket()
s.settimeout(2)
try:
    s.connect(('127.0.0.1', ${port})); net = 'connected:' + s.recv(100).decode()
except OSError as e:
    net = type(e).__name__
try:
    socket.getaddrinfo('pypi.org', 443); dns = 'resolved'
except OSError as e:
    dns = type(e).__name__
caps = [l.split()[1] for l in open('/proc/self/status') if l.startswith('CapEff')][0]
userns = os.system('unshare -U true 2>/dev/null')
print(json.dumps(dict(net=net, dns=dns, host_pid=os.path.exists('/proc/${process.pid}'), pid=os.getpid(), ppid=os.getppid(),
  pids=sorted(int(p) for p in os.listdir('/proc') if p.isdigit()), caps=caps, userns=userns)))`);
    assert.equal(r.net, 'ConnectionRefusedError', 'the host\'s loopback server is out of reach');
    assert.notEqual(r.dns, 'resolved');
    assert.equal(r.host_pid, false, `/proc/${process.pid} (the host) is not visible`);
    assert.equal(r.ppid, 1, 'bwrap is the namespace\'s init');
    assert.ok((r.pids as number[]).every((p) => p < 50), `only the sandbox's own processes: ${JSON.stringify(r.pids)}`);
    assert.equal(r.caps, '0000000000000000');
    const [major, minor] = probe.version.split('.').map(Number);
    if (major > 0 || minor >= 8) assert.notEqual(r.userns, 0, 'no nested user namespaces (--disable-userns)');
  });

  test('the environment is exactly the allowlist: no URL credentials, tokens or keys', async () => {
    const r = await py(`import os, json\nprint(json.dumps(dict(os.environ)))`);
    assert.equal(r.PIP_INDEX_URL, undefined);
    assert.equal(r.GITHUB_TOKEN, undefined);
    assert.equal(r.OPENAI_API_KEY, undefined);
    assert.equal(r.PIP_EXTRA_INDEX_URL, 'https://pypi.org/simple');
    assert.equal(r.HOME, home);
    assert.equal(r.PYTHONIOENCODING, 'utf-8');
    for (const [k, v] of Object.entries(r)) {
      assert.ok(!/TOKEN|_KEY|SECRET|PASS|CREDENTIAL/i.test(k), `${k} reached the kernel`);
      assert.ok(!hasUrlCredentials(String(v)), `${k}=${v} reached the kernel`);
    }
    // Nothing from the spawning process's environment: only env, what the sandbox sets, and what a
    // launcher shim (pyenv) adds on its way.
    for (const k of Object.keys(r)) {
      assert.ok(k in env || ['TMPDIR', 'TMP', 'TEMP', 'PWD', 'SHLVL', '_'].includes(k) || /^(PYENV|_PYENV|LC_CTYPE)/.test(k), `unexpected ${k}`);
    }
  });

  test('SIGINT to the process group reaches Python inside; the sandbox survives it', async () => {
    const { child, done } = start(
      sandboxedCommand(probe, policy, 'python3', ['-c', [
        'import time',
        'try:',
        '    print("ready", flush=True)',
        '    time.sleep(30)',
        'except KeyboardInterrupt:',
        '    print("interrupted", flush=True)',
        'time.sleep(0.2)',
        'print("still alive", flush=True)',
      ].join('\n')], env),
    );
    await waitForOutput(child, 'ready');
    process.kill(-child.pid!, 'SIGINT');
    const r = await done;
    assert.match(r.stdout, /interrupted\nstill alive\n/, r.stderr);
    assert.equal(r.signal, null);
    assert.equal(r.code, 0);
  });

  test('SIGKILL of the process group leaves no process behind, setsid or double fork', async () => {
    const tag = String(Date.now() % 1e9);
    const { child, done } = start(
      sandboxedCommand(probe, policy, 'python3', ['-c', [
        'import os, subprocess, time',
        `subprocess.Popen(["setsid", "sleep", "300", "0.${tag}1"])`,
        'if os.fork() == 0:',
        '    os.setsid()',
        '    if os.fork() == 0:',
        `        os.execvp("sleep", ["sleep", "300", "0.${tag}2"])`,
        '    os._exit(0)',
        'time.sleep(0.3)',
        'print("ready", flush=True)',
        'time.sleep(300)',
      ].join('\n')], env),
    );
    await waitForOutput(child, 'ready');
    const marker = `0.${tag}`;
    assert.ok(await waitUntil(() => hostPidsWith(marker, 'sleep').length === 2, 3000), `both sleeps run: ${hostPidsWith(marker)}`);
    process.kill(-child.pid!, 'SIGKILL');
    const r = await done;
    assert.equal(r.signal, 'SIGKILL');
    assert.ok(await waitUntil(() => hostPidsWith(marker).length === 0, 3000), `left behind: ${hostPidsWith(marker)}`);
  });

  test('--die-with-parent: when the spawning process dies, everything inside dies', async () => {
    const tag = `0.${Date.now() % 1e9}3`;
    const argv = sandboxedCommand(probe, policy, 'python3', ['-c', `import subprocess, time\nsubprocess.Popen(["setsid", "sleep", "300", "${tag}"])\nprint("ready", flush=True)\ntime.sleep(300)`], env);
    // An intermediate Node process spawns the sandbox (detached, as the host does), then is SIGKILLed.
    const script = `const c = require('child_process').spawn(${JSON.stringify(argv.command)}, ${JSON.stringify(argv.args)}, { detached: true, stdio: ['ignore', 'inherit', 'inherit'] });`;
    const parent = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    parent.stdout!.setEncoding('utf8');
    await waitForOutput(parent, 'ready');
    assert.ok(await waitUntil(() => hostPidsWith(tag, 'sleep').length === 1, 3000));
    parent.kill('SIGKILL');
    assert.ok(await waitUntil(() => hostPidsWith(tag).length === 0, 3000), `left behind: ${hostPidsWith(tag)}`);
  });

  test('a command is found on env.PATH inside (a launcher shim is fine) and exits with its own status', async () => {
    const { done } = start(sandboxedCommand(probe, policy, 'sh', ['-c', 'command -v python3 >/dev/null && exit 7'], env));
    const r = await done;
    assert.equal(r.code, 7, r.stderr);
  });

  test('the argv of bubblewrap < 0.5 (env -i instead of --clearenv, no --size/--disable-userns) also runs', async () => {
    const old: SandboxAvailable = { ...probe, version: '0.4.1' };
    const argv = sandboxedCommand(old, policy, 'python3', ['-c', 'import os, json; print(json.dumps(dict(os.environ)))'], env);
    assert.ok(!argv.args.includes('--clearenv') && !argv.args.includes('--size') && !argv.args.includes('--disable-userns'));
    const r = await start(argv).done;
    assert.equal(r.code, 0, r.stderr);
    const seen = JSON.parse(r.stdout.trim()) as Record<string, string>;
    assert.equal(seen.GITHUB_TOKEN, undefined);
    assert.equal(seen.TMPDIR, scratch.path);
  });

  test('the probe is cached and cheap; a sandboxed `python3 -c pass` costs little more than a plain one', (t) => {
    const t0 = process.hrtime.bigint();
    const fresh = probeSandbox({ refresh: true });
    const probeMs = Number(process.hrtime.bigint() - t0) / 1e6;
    assert.ok(fresh.available);
    const t1 = process.hrtime.bigint();
    assert.equal(probeSandbox(), probeSandbox());
    const cachedMs = Number(process.hrtime.bigint() - t1) / 1e6;
    t.diagnostic(`probe ${probeMs.toFixed(1)} ms, cached ${cachedMs.toFixed(2)} ms`);
    assert.ok(probeMs < 1000, `probe took ${probeMs} ms`);
    const time = (command: string, args: string[]) => {
      const samples: number[] = [];
      for (let i = 0; i < 20; i++) {
        const s = process.hrtime.bigint();
        const r = spawnSync(command, args, { env });
        assert.equal(r.status, 0, String(r.stderr));
        samples.push(Number(process.hrtime.bigint() - s) / 1e6);
      }
      return p50(samples);
    };
    // The interpreter itself, as the kernel host restarts it (a pyenv shim alone costs ~150 ms).
    const python = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { env, encoding: 'utf8' }).stdout.trim();
    const plain = time(python, ['-c', 'pass']);
    const argv = sandboxedCommand(probe, policy, python, ['-c', 'pass'], env);
    const boxed = time(argv.command, argv.args);
    t.diagnostic(`${python} -c pass, p50 of 20: plain ${plain.toFixed(1)} ms, sandboxed ${boxed.toFixed(1)} ms`);
    assert.ok(boxed < plain + 500, `the sandbox costs ${boxed - plain} ms per start`);
  });
});

describe('sandbox probe and decision', () => {
  test('a missing bwrap is unavailable, with a reason and a fix', () => {
    const p = probeSandbox({ bwrapPath: '/nonexistent/bwrap', refresh: true });
    assert.equal(p.available, false);
    const u = p as SandboxUnavailable;
    assert.match(u.reason, /bwrap not found/);
    assert.match(u.fix, /install bubblewrap/);
    const q = probeSandbox({ env: { PATH: '/nonexistent' }, refresh: true }) as SandboxUnavailable;
    assert.equal(q.available, false);
    assert.match(q.reason, /bwrap not found on PATH/);
  });

  test('a bwrap that cannot make namespaces is unavailable', () => {
    const dir = tempDir();
    try {
      const fake = join(dir, 'bwrap');
      writeFileSync(fake, '#!/bin/sh\n[ "$1" = --version ] && { echo "bubblewrap 0.8.0"; exit 0; }\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n', { mode: 0o755 });
      const p = probeSandbox({ bwrapPath: fake, refresh: true }) as SandboxUnavailable;
      assert.equal(p.available, false);
      assert.match(p.reason, /cannot create a sandbox here \(bwrap: No permissions to create new namespace\)/);
      assert.match(p.fix, /user namespaces/);
      const old = join(dir, 'old-bwrap');
      writeFileSync(old, '#!/bin/sh\necho "bubblewrap 0.3.3"\n', { mode: 0o755 });
      const o = probeSandbox({ bwrapPath: old, refresh: true }) as SandboxUnavailable;
      assert.match(o.reason, /0\.3\.3 is too old/);
      assert.match(o.fix, /upgrade bubblewrap/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('macOS and Windows have no sandbox in this version', () => {
    for (const platform of ['darwin', 'win32'] as const) {
      const p = probeSandbox({ platform }) as SandboxUnavailable;
      assert.equal(p.available, false);
      assert.match(p.reason, platform === 'darwin' ? /macOS/ : /Windows/);
      assert.ok(p.fix.length > 0);
      const d = decideSandbox('auto', p);
      assert.equal(d.sandboxed, false);
      assert.equal(d.refusal, undefined);
      assert.match(d.summary, /^not sandboxed: .* — every cell asks first/);
    }
  });

  test('decideSandbox: require refuses with how to install; off never sandboxes; auto uses what is there', () => {
    const missing: SandboxUnavailable = { available: false, reason: 'bwrap not found', fix: 'install bubblewrap: sudo apt install bubblewrap' };
    const present: SandboxAvailable = { available: true, kind: 'bubblewrap', command: '/usr/bin/bwrap', version: '0.8.0' };
    const req = decideSandbox('require', missing);
    assert.equal(req.sandboxed, false);
    assert.match(req.refusal!, /sudo apt install bubblewrap/);
    assert.match(req.refusal!, /require/);
    assert.match(req.summary, /cells are refused/);
    assert.equal(decideSandbox('require', present).refusal, undefined);
    assert.equal(decideSandbox('require', present).sandboxed, true);
    const off = decideSandbox('off', present);
    assert.equal(off.sandboxed, false);
    assert.equal(off.summary, 'not sandboxed (scroll.kernel.sandbox is off) — every cell asks first');
    assert.equal(decideSandbox('auto', present).summary, 'sandboxed (bubblewrap 0.8.0)');
    assert.equal(
      decideSandbox('auto', missing).summary,
      'not sandboxed: bwrap not found — every cell asks first (install bubblewrap: sudo apt install bubblewrap)',
    );
  });

  test('parseSandboxMode', () => {
    assert.equal(parseSandboxMode('require'), 'require');
    assert.equal(parseSandboxMode(' OFF '), 'off');
    assert.equal(parseSandboxMode('auto'), 'auto');
    for (const v of [undefined, null, '', 'on', true, false, 1, {}]) assert.equal(parseSandboxMode(v), 'auto');
  });
});

describe('sandbox policy paths', () => {
  let dir: string;
  before(() => {
    dir = tempDir();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('credentialPaths lists only the stores that exist', () => {
    const home = join(dir, 'home');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    mkdirSync(join(home, '.config', 'gh'), { recursive: true });
    mkdirSync(join(home, '.config', 'Code - Insiders'), { recursive: true });
    mkdirSync(join(home, '.pyenv'), { recursive: true });
    writeFileSync(join(home, '.netrc'), '');
    writeFileSync(join(home, '.git-credentials'), '');
    assert.deepEqual(
      credentialPaths(home).sort(),
      ['.ssh', '.config/gh', '.config/Code - Insiders', '.netrc', '.git-credentials'].map((p) => join(home, p)).sort(),
    );
    assert.deepEqual(credentialPaths(join(dir, 'nobody')), []);
  });

  test('workspaceEnvFiles: .env and .env.* up to 3 folders deep, not in node_modules or .git', () => {
    const ws = join(dir, 'ws');
    for (const d of ['a/b/c/d', 'node_modules/pkg', '.git', 'e']) mkdirSync(join(ws, d), { recursive: true });
    const files = ['.env', '.env.local', 'a/.env.test', 'a/b/c/.env', 'a/b/c/d/.env', 'node_modules/pkg/.env', '.git/.env', 'e/env', 'e/.envrc.txt'];
    for (const f of files) writeFileSync(join(ws, f), 'X=1');
    symlinkSync(join(ws, '.env'), join(ws, 'e', '.env'));
    assert.deepEqual(workspaceEnvFiles(ws).sort(), ['.env', '.env.local', 'a/.env.test', 'a/b/c/.env', 'e/.env'].map((f) => join(ws, f)).sort());
    assert.deepEqual(workspaceEnvFiles(join(dir, 'missing')), []);
  });

  test('sandboxedCommand: mount order, only visible existing paths hidden, exactly the given environment', () => {
    const probe: SandboxAvailable = { available: true, kind: 'bubblewrap', command: '/usr/bin/bwrap', version: '0.8.0' };
    const home = join(dir, 'h2');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    writeFileSync(join(home, '.ssh', 'known_hosts'), '');
    writeFileSync(join(home, '.npmrc'), '');
    mkdirSync(join(dir, 'elsewhere'));
    const ws = join(dir, 'ws2');
    mkdirSync(join(ws, '.scroll'), { recursive: true });
    const scratchDir = join(dir, 'scratch');
    mkdirSync(scratchDir);
    const argv = sandboxedCommand(
      probe,
      { workspace: ws, scratchDir, home, readablePaths: [home], hiddenPaths: [join(home, '.ssh', 'known_hosts'), join(dir, 'missing'), join(dir, 'elsewhere')] },
      'python3',
      ['-c', 'pass'],
      { PATH: '/usr/bin:/bin', HOME: home },
    );
    assert.equal(argv.command, '/bin/sh');
    const a = argv.args;
    const at = (...seq: string[]) => a.findIndex((_, i) => seq.every((s, j) => a[i + j] === s));
    const bwrap = a.indexOf('/usr/bin/bwrap');
    assert.ok(bwrap > 0);
    assert.equal(a[1], 'trap "" INT; exec "$@"');
    for (const opt of ['--unshare-all', '--unshare-user', '--die-with-parent', '--disable-userns']) assert.ok(a.includes(opt), opt);
    assert.ok(at('--cap-drop', 'ALL') > 0);
    assert.ok(!a.includes('--new-session'), '--new-session would take Python out of the process group SIGINT is sent to');
    assert.ok(!a.includes('--share-net'));
    assert.ok(at('--proc', '/proc') > 0);
    assert.ok(at('--dev', '/dev') > 0);
    assert.ok(at('--tmpfs', '/dev/shm') > at('--dev', '/dev'));
    // The scratch folder and the workspace live under /tmp: bound after the private /tmp.
    assert.ok(at('--bind', scratchDir, scratchDir) > at('--tmpfs', '/tmp'));
    assert.ok(at('--ro-bind', ws, ws) > at('--tmpfs', '/tmp'));
    assert.ok(at('--tmpfs', join(ws, '.scroll')) > at('--ro-bind', ws, ws));
    assert.ok(at('--tmpfs', join(home, '.ssh')) > at('--ro-bind', home, home));
    assert.ok(at('--ro-bind', '/dev/null', join(home, '.npmrc')) > 0);
    // Not there, inside a hidden folder, or under the private /tmp without a bind: no mount.
    assert.ok(!a.includes(join(home, '.ssh', 'known_hosts')));
    assert.ok(!a.includes(join(dir, 'missing')));
    assert.ok(!a.includes(join(dir, 'elsewhere')));
    assert.ok(at('--chdir', ws) > 0);
    const setenv = a.flatMap((x, i) => (x === '--setenv' ? [`${a[i + 1]}=${a[i + 2]}`] : []));
    assert.deepEqual(setenv.sort(), [`HOME=${home}`, 'PATH=/usr/bin:/bin', `TEMP=${scratchDir}`, `TMP=${scratchDir}`, `TMPDIR=${scratchDir}`].sort());
    assert.ok(at('--clearenv') < at('--setenv'));
    const sep = a.indexOf('--');
    assert.deepEqual(a.slice(sep + 1).slice(-3), ['python3', '-c', 'pass']);
    assert.ok(a[sep + 1].endsWith('/env') && a[sep + 2] === '--default-signal=INT');
  });

  test('sandboxedCommand refuses a scratch folder that does not exist', () => {
    const probe: SandboxAvailable = { available: true, kind: 'bubblewrap', command: '/usr/bin/bwrap', version: '0.8.0' };
    assert.throws(() => sandboxedCommand(probe, { scratchDir: join(dir, 'nope') }, 'true', [], {}), /scratch folder does not exist/);
  });
});

describe('ScratchFolder', () => {
  let root: string;
  before(() => {
    root = tempDir();
  });
  after(() => rmSync(root, { recursive: true, force: true }));

  test('path: <root>/scroll-scratch-<uid>/<workspace hash>/<session>; 0700; stable for a session', () => {
    const a = ScratchFolder.forSession('s-1', '/work/project', root);
    const uid = process.getuid?.();
    assert.match(a.path, new RegExp(`^${root}/scroll-scratch-${uid}/[0-9a-f]{12}/s-1$`));
    assert.equal(ScratchFolder.forSession('s-1', '/work/project', root).path, a.path);
    assert.notEqual(ScratchFolder.forSession('s-1', '/work/other', root).path, a.path);
    assert.equal(a.capBytes, 1024 ** 3);
    const odd = ScratchFolder.forSession('../../etc passwd', '/work/project', root);
    assert.equal(dirname(odd.path), dirname(a.path), 'a session name is one folder name, never a path');
    assert.match(basename(odd.path), /^[A-Za-z0-9._-]+$/);
    assert.notEqual(ScratchFolder.forSession('a b', undefined, root).path, ScratchFolder.forSession('a_b', undefined, root).path);
    assert.equal(a.ensure(), a.path);
    assert.equal(statSync(a.path).mode & 0o777, 0o700);
    assert.equal(statSync(join(root, `scroll-scratch-${uid}`)).mode & 0o777, 0o700);
    a.ensure(); // idempotent
  });

  test('sizeBytes, overCap, remove', () => {
    const s = ScratchFolder.forSession('size', '/w', root, 1000);
    s.ensure();
    assert.equal(s.sizeBytes(), 0);
    mkdirSync(join(s.path, 'sub'));
    writeFileSync(join(s.path, 'a'), Buffer.alloc(600));
    writeFileSync(join(s.path, 'sub', 'b'), Buffer.alloc(300));
    symlinkSync('/usr/bin', join(s.path, 'link'));
    assert.ok(s.sizeBytes() >= 900 && s.sizeBytes() < 1000);
    assert.equal(s.overCap(), false);
    writeFileSync(join(s.path, 'sub', 'c'), Buffer.alloc(200));
    assert.equal(s.overCap(), true);
    s.remove();
    assert.ok(!existsSync(s.path));
    s.remove(); // never throws
    ScratchFolder.forSession('x', '/w', join(root, 'never-made')).remove();
  });
});

describe('kernelEnvironment (tightened)', () => {
  test('no URL credentials, no *_TOKEN / *_KEY / *_SECRET / *_PASS* / *PASSWORD* / *CREDENTIAL* names', () => {
    const env = kernelEnvironment({
      PATH: '/bin',
      PIP_INDEX_URL: 'https://user:pw@host/simple',
      PIP_EXTRA_INDEX_URL: 'https://pypi.org/simple https://__token__:abc@private.example/simple',
      PIP_FIND_LINKS: 'https://ghp_abc@github.com/org/wheels',
      PIP_TRUSTED_HOST: 'host',
      CONDA_CHANNEL_ALIAS: 'https://conda.example.com',
      PYTHONPATH: '/src',
      PYENV_GITHUB_TOKEN: 'x',
      PYTHON_SIGNING_KEY: 'x',
      XDG_SECRET: 'x',
      PIP_PASS: 'x',
      PIP_PASSWORD: 'x',
      LC_PASSPHRASE: 'x',
      CONDA_CREDENTIALS: 'x',
      GITHUB_TOKEN: 'x',
      OPENAI_API_KEY: 'x',
    });
    assert.deepEqual(Object.keys(env).sort(), ['CONDA_CHANNEL_ALIAS', 'PATH', 'PIP_TRUSTED_HOST', 'PYTHONIOENCODING', 'PYTHONPATH', 'PYTHONUNBUFFERED'].sort());
    assert.ok(isAllowedVariable('PIP_INDEX_URL', 'https://pypi.org/simple'));
    assert.ok(!isAllowedVariable('PIP_INDEX_URL', 'https://user:pw@host/simple'));
    assert.ok(isAllowedVariable('PIP_INDEX_URL'), 'without a value only the name is judged');
    assert.ok(hasUrlCredentials('git+ssh://git@github.com/x'));
    assert.ok(!hasUrlCredentials('https://host/path@v1'));
    assert.ok(!hasUrlCredentials('file:///tmp/a@b'));
    assert.ok(!hasUrlCredentials('me@example.com'));
  });

  test('commandEnvironment is unchanged: SSH_AUTH_SOCK and URLs pass', () => {
    const env = commandEnvironment({ SSH_AUTH_SOCK: '/s', PIP_INDEX_URL: 'https://user:pw@host/simple', GITHUB_TOKEN: 'x' });
    assert.deepEqual(env, { SSH_AUTH_SOCK: '/s', PIP_INDEX_URL: 'https://user:pw@host/simple' });
  });
});
