// The macOS sandbox (seatbelt.ts), checked on Linux: no Mac runs these tests. The profile is parsed
// as S-expressions and its rules are evaluated by a small model of Seatbelt's matching (below), so
// "writes only in scratch" and "hidden paths unreadable" are checked as decisions, not as substrings.
// The probe runs against a test double of the exec function.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decideSandbox, probeSandbox, sandboxedCommand, type SandboxAvailable, type SandboxUnavailable } from '../../../src/core/kernel/sandbox';
import {
  DENIED_SERVICES, SANDBOX_EXEC, TRIVIAL_PROFILE, probeDarwin, sbplString, seatbeltPath, seatbeltProfile,
  type ExecResult, type SeatbeltExec,
} from '../../../src/core/kernel/seatbelt';

/** The probe's stand-in folder: the temp folder's real path (/private/var/folders/... on a Mac). */
const TMP = realpathSync(tmpdir());
const SEATBELT: SandboxAvailable = { available: true, kind: 'seatbelt', command: SANDBOX_EXEC, version: '14.5' };

// ---------------------------------------------------------------------------------------------
// A reader for the SBPL subset the profile uses: lists, symbols, numbers, "strings" with \" and \\
// escapes, #"raw regex" literals, ; comments.

type Sexp = string | { str: string } | { raw: string } | Sexp[];

function parseSbpl(text: string): Sexp[] {
  let i = 0;
  const out: Sexp[] = [];
  const stack: Sexp[][] = [out];
  while (i < text.length) {
    const c = text[i];
    if (c === ';') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (/\s/.test(c)) {
      i++;
    } else if (c === '(') {
      const list: Sexp[] = [];
      stack[stack.length - 1].push(list);
      stack.push(list);
      i++;
    } else if (c === ')') {
      if (stack.length === 1) throw new Error(`unbalanced ')' at ${i}`);
      stack.pop();
      i++;
    } else if (c === '"') {
      let s = '';
      i++;
      for (;;) {
        if (i >= text.length) throw new Error('unterminated string');
        const d = text[i];
        if (d === '\\') {
          const e = text[i + 1];
          if (e !== '\\' && e !== '"') throw new Error(`unknown escape \\${e} at ${i}`);
          s += e;
          i += 2;
        } else if (d === '"') {
          i++;
          break;
        } else if (d === '\n') {
          throw new Error(`newline in a string at ${i}`);
        } else {
          s += d;
          i++;
        }
      }
      stack[stack.length - 1].push({ str: s });
    } else if (c === '#' && text[i + 1] === '"') {
      const end = text.indexOf('"', i + 2);
      if (end < 0) throw new Error('unterminated #"regex"');
      stack[stack.length - 1].push({ raw: text.slice(i + 2, end) });
      i = end + 1;
    } else {
      let s = '';
      while (i < text.length && !/[\s()";]/.test(text[i])) s += text[i++];
      stack[stack.length - 1].push(s);
    }
  }
  if (stack.length !== 1) throw new Error('unbalanced: missing )');
  return out;
}

const isList = (x: Sexp): x is Sexp[] => Array.isArray(x);
const head = (x: Sexp) => (isList(x) ? x[0] : undefined);

/** Every string in the forms (literals and raw regexes), for "no path spliced into the profile". */
function strings(forms: Sexp[]): string[] {
  const out: string[] = [];
  const walk = (x: Sexp) => {
    if (isList(x)) x.forEach(walk);
    else if (typeof x === 'object') out.push('str' in x ? x.str : x.raw);
  };
  forms.forEach(walk);
  return out;
}

// ---------------------------------------------------------------------------------------------
// A model of Seatbelt's decision for this profile's shape: `(allow default)`, then denies only, so
// an operation is denied exactly when some deny rule names it (or a wildcard covering it) and one
// of its filters matches. The tests check that shape (a single allow) before relying on the model.

const regexQuote = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function value(x: Sexp, params: Record<string, string>): string {
  if (typeof x === 'object' && !isList(x)) return 'str' in x ? x.str : x.raw;
  if (isList(x) && x[0] === 'param') {
    const name = value(x[1], params);
    assert.ok(name in params, `(param "${name}") has no -D value`);
    return params[name];
  }
  if (isList(x) && x[0] === 'string-append') return x.slice(1).map((y) => value(y, params)).join('');
  if (isList(x) && x[0] === 'regex-quote') return regexQuote(value(x[1], params));
  throw new Error(`not a value: ${JSON.stringify(x)}`);
}

function matches(filter: Sexp, path: string, params: Record<string, string>): boolean {
  assert.ok(isList(filter), `filter ${JSON.stringify(filter)}`);
  switch (filter[0]) {
    case 'subpath': {
      const p = value(filter[1], params);
      return path === p || path.startsWith(p.endsWith('/') ? p : `${p}/`);
    }
    case 'literal':
      return path === value(filter[1], params);
    case 'regex':
      return new RegExp(value(filter[1], params)).test(path);
    case 'require-all':
      return filter.slice(1).every((f) => matches(f, path, params));
    case 'require-any':
      return filter.slice(1).some((f) => matches(f, path, params));
    case 'require-not':
      return !matches(filter[1], path, params);
    default:
      throw new Error(`filter the model does not know: ${String(filter[0])}`);
  }
}

const covers = (ruleOp: string, op: string) => ruleOp === op || (ruleOp.endsWith('*') && op.startsWith(ruleOp.slice(0, -1)));

/** 'deny' when a deny rule covers the file operation on `path`; else the default, allow. */
function decide(forms: Sexp[], params: Record<string, string>, op: string, path: string): 'allow' | 'deny' {
  for (const f of forms) {
    if (!isList(f) || f[0] !== 'deny') continue;
    const ops = f.slice(1).filter((x): x is string => typeof x === 'string');
    const filters = f.slice(1).filter(isList);
    if (!ops.some((o) => covers(o, op))) continue;
    if (!filters.length || filters.some((flt) => matches(flt, path, params))) return 'deny';
  }
  return 'allow';
}

/** The profile and -D values out of a sandbox-exec argv. */
function fromArgv(argv: { command: string; args: string[] }) {
  assert.equal(argv.command, SANDBOX_EXEC);
  assert.equal(argv.args[0], '-p');
  const profile = argv.args[1];
  const params: Record<string, string> = {};
  let i = 2;
  for (; argv.args[i] === '-D'; i += 2) {
    const d = argv.args[i + 1];
    const eq = d.indexOf('=');
    assert.ok(eq > 0, d);
    params[d.slice(0, eq)] = d.slice(eq + 1);
  }
  assert.equal(argv.args[i], '--', 'the command follows --');
  return { profile, params, forms: parseSbpl(profile), command: argv.args.slice(i + 1) };
}

// ---------------------------------------------------------------------------------------------

describe('Seatbelt profile (macOS), built and evaluated on any OS', () => {
  let base: string;
  let home: string;
  let ws: string;
  let scratch: string;
  let db: string;

  before(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'scroll-seatbelt-test-')));
    home = join(base, 'home');
    for (const d of ['.ssh', '.aws', 'Library/Application Support/Code/User', 'Library/Keychains', '.vscode/extensions/scroll/kernel']) {
      mkdirSync(join(home, d), { recursive: true });
    }
    writeFileSync(join(home, '.ssh', 'id_rsa'), 'KEY');
    writeFileSync(join(home, '.netrc'), 'machine x password y');
    writeFileSync(join(home, 'notes.txt'), 'visible');
    ws = join(base, 'ws');
    mkdirSync(join(ws, '.scroll'), { recursive: true });
    mkdirSync(join(ws, 'svc', 'api'), { recursive: true });
    writeFileSync(join(ws, '.env'), 'K=1');
    writeFileSync(join(ws, 'svc', 'api', '.env.production'), 'K=2');
    writeFileSync(join(ws, 'main.py'), 'print(1)');
    scratch = join(base, 'scratch');
    mkdirSync(scratch);
    db = join(base, 'db-folder');
    mkdirSync(db);
  });
  after(() => rmSync(base, { recursive: true, force: true }));

  const build = (over: Partial<Parameters<typeof sandboxedCommand>[1]> = {}) =>
    fromArgv(sandboxedCommand(SEATBELT, { workspace: ws, scratchDir: scratch, home, hiddenPaths: [db], ...over }, 'python3', ['-c', 'pass'], { PATH: '/usr/bin' }));

  test('well-formed: balanced S-expressions, every string literal closed, (version 1) first, the command after --', () => {
    const { profile, forms, command, params } = build();
    assert.deepEqual(forms[0], ['version', '1']);
    assert.ok(forms.every(isList), 'only lists at the top level');
    assert.deepEqual(command, ['python3', '-c', 'pass']);
    // Every (param "X") has its -D X=..., and every -D is used.
    const used = new Set<string>();
    const walk = (x: Sexp) => {
      if (!isList(x)) return;
      if (x[0] === 'param') used.add(value(x[1], {}));
      else x.forEach(walk);
    };
    forms.forEach(walk);
    assert.deepEqual([...used].sort(), Object.keys(params).sort());
    assert.equal(profile.split('(param ').length - 1, [...profile.matchAll(/\(param "[A-Z_0-9]+"\)/g)].length, 'every param names a plain -D key');
    // The reader itself rejects what the profile must never contain.
    assert.throws(() => parseSbpl('(deny (subpath "a)'), /unterminated/);
    assert.throws(() => parseSbpl('(deny file*'), /unbalanced/);
    assert.throws(() => parseSbpl('(a))'), /unbalanced/);
  });

  test('one allow, the default, and only denies after it (the evaluation model relies on it)', () => {
    const { forms } = build();
    const rules = forms.filter((f) => head(f) === 'allow' || head(f) === 'deny');
    assert.deepEqual(rules.filter((f) => head(f) === 'allow'), [['allow', 'default']]);
    assert.equal(head(forms[1]), 'allow', '(allow default) comes right after (version 1)');
    assert.ok(!forms.some((f) => head(f) !== 'version' && head(f) !== 'allow' && head(f) !== 'deny'));
  });

  test('(deny network*): no network at all, loopback and Unix sockets included', () => {
    const { forms } = build();
    assert.ok(forms.some((f) => JSON.stringify(f) === JSON.stringify(['deny', 'network*'])));
    for (const op of ['network-outbound', 'network-inbound', 'network-bind']) assert.equal(decide(forms, {}, op, '/'), 'deny', op);
  });

  test('writes only under the scratch folder\'s real path, /dev/null and /dev/fd', () => {
    const { forms, params } = build();
    assert.equal(params.SCRATCH, realpathSync(scratch));
    const w = (p: string) => decide(forms, params, 'file-write-create', p);
    assert.equal(w(join(scratch, 'out.csv')), 'allow');
    assert.equal(w(join(scratch, 'deep', 'er', 'x')), 'allow');
    assert.equal(w(scratch), 'allow');
    assert.equal(decide(forms, params, 'file-write-data', '/dev/null'), 'allow');
    assert.equal(decide(forms, params, 'file-write-data', '/dev/fd/1'), 'allow');
    for (const p of [join(ws, 'main.py'), join(ws, 'new.py'), join(home, 'x'), `${scratch}-sibling/x`, '/private/tmp/x', '/usr/local/bin/x', join(home, 'Library/LaunchAgents/x.plist'), '/dev/tty', '/dev/zero']) {
      for (const op of ['file-write-create', 'file-write-data', 'file-write-unlink', 'file-write-mode', 'file-write-xattr']) {
        assert.equal(decide(forms, params, op, p), 'deny', `${op} ${p}`);
      }
    }
  });

  test('reads everywhere but the hidden paths: credential stores of the home, .scroll, .env files, hiddenPaths', () => {
    const { forms, params } = build();
    const r = (p: string, op = 'file-read-data') => decide(forms, params, op, p);
    for (const p of [
      join(home, '.ssh'), join(home, '.ssh', 'id_rsa'), join(home, '.aws'), join(home, '.netrc'),
      join(home, 'Library/Application Support/Code/User/settings.json'), join(home, 'Library/Keychains/login.keychain-db'),
      join(ws, '.scroll'), join(ws, '.scroll', 'scroll.db'), join(ws, '.env'), join(ws, 'svc', 'api', '.env.production'),
      join(db, 'scroll.db'), db,
    ]) {
      for (const op of ['file-read-data', 'file-read-metadata', 'file-read-xattr', 'file-write-create', 'file-link', 'file-clone']) {
        assert.equal(r(p, op), 'deny', `${op} ${p}`);
      }
    }
    for (const p of [join(home, 'notes.txt'), join(ws, 'main.py'), join(ws, '.envrc'), join(ws, '.venv', 'bin', 'python'), '/usr/lib/libSystem.B.dylib', join(scratch, 'x')]) {
      assert.equal(r(p), 'allow', p);
    }
    // .env files the walk did not see (created later, deeper than 3 folders, in node_modules) too.
    for (const p of [join(ws, 'later', '.env'), join(ws, 'a/b/c/d/e/.env.local'), join(ws, 'node_modules/pkg/.env'), join(ws, '.env', 'inside')]) {
      assert.equal(r(p), 'deny', p);
    }
    assert.equal(r('/dev/ttys003'), 'deny', 'no terminal: keystrokes are not read');
    assert.equal(r('/dev/urandom'), 'allow');
  });

  test('a readable path inside a hidden folder stays readable; one around a hidden path does not open it', () => {
    const kernelDir = join(home, '.vscode', 'extensions', 'scroll', 'kernel');
    const { forms, params } = build({ readablePaths: [kernelDir, home] });
    assert.equal(decide(forms, params, 'file-read-data', join(kernelDir, 'scroll_kernel.py')), 'allow');
    assert.equal(decide(forms, params, 'file-read-data', join(home, '.vscode', 'argv.json')), 'deny');
    assert.equal(decide(forms, params, 'file-read-data', join(home, '.ssh', 'id_rsa')), 'deny', 'the home folder as a readable path opens nothing');
    assert.equal(decide(forms, params, 'file-write-create', join(kernelDir, 'x.py')), 'deny', 'readable, not writable');
  });

  test('paths are -D parameters only: a path with ", \\, spaces and parentheses reaches Seatbelt unchanged', () => {
    const odd = join(base, 'we"ird \\ (path) ; x');
    mkdirSync(join(odd, 'scratch'), { recursive: true });
    mkdirSync(join(odd, 'ws', '.scroll'), { recursive: true });
    writeFileSync(join(odd, 'ws', '.env'), 'K=1');
    const { forms, params, profile } = fromArgv(
      sandboxedCommand(SEATBELT, { workspace: join(odd, 'ws'), scratchDir: join(odd, 'scratch'), home }, 'python3', [], {}),
    );
    assert.equal(params.SCRATCH, join(odd, 'scratch'));
    assert.equal(params.WORKSPACE, join(odd, 'ws'));
    assert.ok(Object.values(params).includes(join(odd, 'ws', '.scroll')));
    assert.ok(!profile.includes('we"ird') && !profile.includes(base), 'no path in the profile text');
    assert.ok(strings(forms).every((s) => !s.includes(base)));
    assert.equal(decide(forms, params, 'file-write-create', join(odd, 'scratch', 'a b')), 'allow');
    assert.equal(decide(forms, params, 'file-write-create', join(odd, 'ws', 'x')), 'deny');
    // regex-quote keeps the workspace's own ( ) \ " literal in the .env rule.
    assert.equal(decide(forms, params, 'file-read-data', join(odd, 'ws', '.env')), 'deny');
    assert.equal(decide(forms, params, 'file-read-data', join(odd, 'ws', 'sub', '.env.local')), 'deny');
    assert.equal(decide(forms, params, 'file-read-data', join(odd, 'ws', 'main.py')), 'allow');
  });

  test('sbplString escapes \\ and " (the profile\'s own literals) and refuses control characters', () => {
    assert.equal(sbplString('/dev/null'), '"/dev/null"');
    assert.equal(sbplString('a"b\\c d'), '"a\\"b\\\\c d"');
    assert.deepEqual(parseSbpl(`(x ${sbplString('a"b\\c d')})`), [['x', { str: 'a"b\\c d' }]]);
    assert.throws(() => sbplString('a\nb'), /control characters/);
    for (const s of DENIED_SERVICES) assert.match(s.name, /^com\.apple\.[A-Za-z0-9._-]+$/);
  });

  test('aliases resolve to real paths (Seatbelt matches /private/tmp, not /tmp): scratch, workspace and hidden paths', () => {
    const realDir = join(base, 'private-tmp');
    mkdirSync(join(realDir, 'scratch'), { recursive: true });
    mkdirSync(join(realDir, 'ws', '.scroll'), { recursive: true });
    const alias = join(base, 'tmp-alias');
    symlinkSync(realDir, alias);
    const { forms, params } = fromArgv(
      sandboxedCommand(SEATBELT, { workspace: join(alias, 'ws'), scratchDir: join(alias, 'scratch'), home, hiddenPaths: [join(alias, 'not-yet', 'db')] }, 'python3', [], {}),
    );
    assert.equal(params.SCRATCH, join(realDir, 'scratch'));
    assert.equal(params.WORKSPACE, join(realDir, 'ws'));
    const hidden = Object.entries(params).filter(([k]) => k.startsWith('HIDDEN_')).map(([, v]) => v);
    assert.ok(hidden.includes(join(realDir, 'ws', '.scroll')));
    assert.ok(hidden.includes(join(realDir, 'not-yet', 'db')), 'a path that does not exist yet: through its nearest existing ancestor');
    assert.ok(!Object.values(params).some((v) => v.startsWith(alias)));
    assert.equal(decide(forms, params, 'file-write-create', join(realDir, 'scratch', 'f')), 'allow');
    assert.equal(seatbeltPath(join(alias, 'a', 'b')), join(realDir, 'a', 'b'));
    assert.equal(seatbeltPath('relative/path'), undefined);
  });

  test('other processes, launch services, Apple events, launchd, preferences and outreaching Mach services are denied', () => {
    const { profile, forms } = build();
    for (const rule of [
      '(deny signal (require-not (target same-sandbox)))',
      '(deny process-info* (require-not (target same-sandbox)))',
      '(deny mach-priv-task-port (require-not (target same-sandbox)))',
      '(deny sysctl-read (sysctl-name-prefix "kern.procargs"))',
      '(deny lsopen)', '(deny appleevent-send)', '(deny job-creation)', '(deny user-preference-write)',
    ]) {
      assert.ok(profile.includes(rule), rule);
    }
    assert.ok(!/\(deny (process-fork|process-exec)/.test(profile), 'subprocesses are allowed (and inherit the profile)');
    const mach = forms.find((f) => head(f) === 'deny' && isList(f) && f[1] === 'mach-lookup') as Sexp[];
    const names = mach.slice(2).map((f) => (isList(f) ? `${String(f[0])} ${value(f[1], {})}` : ''));
    for (const n of ['global-name com.apple.SecurityServer', 'global-name com.apple.coreservices.launchservicesd', 'global-name-prefix com.apple.pasteboard.', 'global-name-prefix com.apple.nsurlsessiond', 'global-name-prefix com.apple.tccd']) {
      assert.ok(names.includes(n), n);
    }
    for (const kept of ['com.apple.system.opendirectoryd.libinfo', 'com.apple.system.notification_center', 'com.apple.logd', 'com.apple.cfprefsd.daemon']) {
      assert.ok(!DENIED_SERVICES.some((s) => (s.prefix ? kept.startsWith(s.name) : kept === s.name)), `${kept} stays reachable (libSystem needs it)`);
    }
  });

  test('the caller\'s environment is not put on the command line; a missing scratch folder is refused', () => {
    const argv = sandboxedCommand(SEATBELT, { scratchDir: scratch, home }, 'python3', [], { SECRET_LOOKING: 'value-1234' });
    assert.ok(!argv.args.some((a) => a.includes('value-1234')));
    assert.throws(() => seatbeltProfile({ scratchDir: join(base, 'nope') }, []), /scratch folder does not exist/);
    assert.throws(() => sandboxedCommand(SEATBELT, { scratchDir: join(base, 'nope') }, 'true', [], {}), /scratch folder does not exist/);
  });
});

// ---------------------------------------------------------------------------------------------

/** A test double of the exec function: answers by program, records every call. */
function fakeExec(answers: { trivial?: ExecResult; full?: ExecResult; swVers?: ExecResult }) {
  const calls: { command: string; args: string[] }[] = [];
  const ok: ExecResult = { status: 0, stdout: '', stderr: '' };
  const exec: SeatbeltExec = (command, args) => {
    calls.push({ command, args });
    if (command === '/usr/bin/sw_vers') return answers.swVers ?? { status: 0, stdout: '14.5\n', stderr: '' };
    if (args[1] === TRIVIAL_PROFILE) return answers.trivial ?? ok;
    return answers.full ?? ok;
  };
  return { exec, calls };
}

describe('Seatbelt probe (with an exec double)', () => {
  const here = () => true;

  test('available: sandbox-exec applies the trivial profile and the full one; the macOS version from sw_vers', () => {
    const { exec, calls } = fakeExec({});
    const p = probeDarwin(exec, { canExecute: here, tmp: TMP });
    assert.deepEqual(p, { available: true, kind: 'seatbelt', command: '/usr/bin/sandbox-exec', version: '14.5' });
    assert.deepEqual(calls[0], { command: '/usr/bin/sandbox-exec', args: ['-p', '(version 1)(allow default)', '/usr/bin/true'] });
    assert.ok(calls.some((c) => c.command === '/usr/bin/sw_vers' && c.args[0] === '-productVersion'));
    // The full run: the profile shape the kernel gets, every kind of rule in it.
    const full = calls.find((c) => c.command === SANDBOX_EXEC && c.args[1] !== TRIVIAL_PROFILE)!;
    const { forms, command, params } = fromArgv(full);
    assert.deepEqual(command, ['/usr/bin/true']);
    const text = JSON.stringify(forms);
    for (const piece of ['"regex-quote"', '"require-not"', '"HIDDEN_0"', '"READABLE_0"', '"mach-lookup"', '"network*"']) assert.ok(text.includes(piece), piece);
    assert.equal(params.SCRATCH, TMP);
  });

  test('sw_vers failing gives version "unknown", still available', () => {
    const { exec } = fakeExec({ swVers: { status: 1, stdout: '', stderr: 'no' } });
    const p = probeDarwin(exec, { canExecute: here, tmp: TMP }) as SandboxAvailable;
    assert.equal(p.available, true);
    assert.equal(p.version, 'unknown');
    const garbled = probeDarwin(fakeExec({ swVers: { status: 0, stdout: 'ProductVersion: ?' } }).exec, { canExecute: here, tmp: TMP }) as SandboxAvailable;
    assert.equal(garbled.version, 'unknown');
  });

  test('no sandbox-exec: unavailable, says macOS and what happens instead', () => {
    const { exec, calls } = fakeExec({});
    const p = probeDarwin(exec, { canExecute: () => false }) as SandboxUnavailable;
    assert.equal(p.available, false);
    assert.match(p.reason, /macOS's sandbox-exec was not found at \/usr\/bin\/sandbox-exec/);
    assert.match(p.fix, /every cell asks/);
    assert.equal(calls.length, 0);
  });

  test('inside another sandbox (sandbox_apply refused): unavailable with sandbox-exec\'s message', () => {
    const { exec } = fakeExec({ trivial: { status: 65, stdout: '', stderr: 'sandbox-exec: sandbox_apply: Operation not permitted\n' } });
    const p = probeDarwin(exec, { canExecute: here, tmp: TMP }) as SandboxUnavailable;
    assert.equal(p.available, false);
    assert.match(p.reason, /cannot apply a profile here \(sandbox-exec: sandbox_apply: Operation not permitted\)/);
    assert.match(p.fix, /already runs in a sandbox/);
  });

  test('a profile this macOS does not compile: unavailable (every cell asks), not a kernel that fails each start', () => {
    const { exec } = fakeExec({ full: { status: 65, stdout: '', stderr: 'sandbox-exec: unbound variable: job-creation\n' } });
    const p = probeDarwin(exec, { canExecute: here, tmp: TMP }) as SandboxUnavailable;
    assert.equal(p.available, false);
    assert.match(p.reason, /Seatbelt profile does not work on this macOS 14\.5 \(sandbox-exec: unbound variable: job-creation\)/);
    const spawnError = probeDarwin(() => ({ status: null, error: new Error('spawnSync /usr/bin/sandbox-exec ETIMEDOUT') }), { canExecute: here }) as SandboxUnavailable;
    assert.match(spawnError.reason, /ETIMEDOUT/);
  });

  test('probeSandbox({ platform: "darwin" }) here (no /usr/bin/sandbox-exec on this Linux host) is unavailable and cached', () => {
    const p = probeSandbox({ platform: 'darwin', refresh: true });
    if (p.available) {
      assert.equal(p.kind, 'seatbelt'); // a real Mac
      return;
    }
    assert.match(p.reason, /macOS/);
    assert.equal(probeSandbox({ platform: 'darwin' }), p);
  });

  test('decideSandbox on a seatbelt probe: sandboxed, "macOS Seatbelt", require accepts it', () => {
    for (const mode of ['auto', 'require'] as const) {
      const d = decideSandbox(mode, SEATBELT);
      assert.equal(d.sandboxed, true);
      assert.equal(d.refusal, undefined);
      assert.equal(d.summary, 'sandboxed (macOS Seatbelt)');
    }
    assert.equal(decideSandbox('off', SEATBELT).sandboxed, false);
  });
});
