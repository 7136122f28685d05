// The confinement rule itself (src/core/workspace): real paths, links, `.scroll` in any spelling, the
// Windows flavour on a simulated file system, and patterns and globs that cannot hang.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { linkSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, win32 } from 'node:path';
import {
  ConfinementError,
  PatternError,
  Workspace,
  compileGlob,
  compileTextPattern,
  foldName,
  isProtectedName,
  searchConfined,
  walk,
  writeConfined,
  type ConfineFs,
  type EntryStat,
} from '../../../src/core/workspace';

const refused = (f: () => unknown, reason: string) =>
  assert.throws(f, (e: unknown) => e instanceof ConfinementError && e.reason === reason, `expected a refusal (${reason})`);

describe('confinement rule on the real file system', () => {
  let root: string;
  let outside: string;
  let ws: Workspace;
  before(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'scroll-rule-')));
    outside = realpathSync(mkdtempSync(join(tmpdir(), 'scroll-rule-out-')));
    mkdirSync(join(root, 'src', 'deep'), { recursive: true });
    mkdirSync(join(root, '.scroll'));
    writeFileSync(join(root, 'src', 'a.txt'), 'alpha\n');
    writeFileSync(join(root, 'src', 'deep', 'b.py'), 'beta\n');
    writeFileSync(join(outside, 'secret.txt'), 'TOPSECRET\n');
    symlinkSync(outside, join(root, 'out-link'));
    symlinkSync(join(root, 'src'), join(root, 'in-link'));
    symlinkSync(join(root, 'src', 'a.txt'), join(root, 'a-link.txt'));
    symlinkSync(join(root, '.scroll'), join(root, 'log-alias'));
    symlinkSync('loop-b', join(root, 'loop-a'));
    symlinkSync('loop-a', join(root, 'loop-b'));
    ws = Workspace.open(root);
  });
  after(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  test('resolves existing prefixes to real paths and appends the rest', () => {
    const r = ws.resolve('in-link/new/file.txt', 'write');
    assert.equal(r.real, join(root, 'src', 'new', 'file.txt'));
    assert.equal(r.rel, 'src/new/file.txt');
    assert.equal(r.existing, join(root, 'src'));
    assert.deepEqual(r.missing, ['new', 'file.txt']);
    assert.equal(ws.resolve('', 'read').rel, '.');
    assert.equal(ws.resolve(undefined, 'walk').kind, 'dir');
    assert.equal(ws.resolve(join(root, 'src', 'a.txt'), 'read').kind, 'file');
    assert.equal(ws.resolve('a-link.txt', 'read').rel, 'src/a.txt', 'a link inside to inside is readable');
  });

  test('refuses what leaves the workspace, links at the leaf for writes, dangling links and loops', () => {
    refused(() => ws.resolve('../x', 'read'), 'outside');
    refused(() => ws.resolve('/etc/passwd', 'read'), 'outside');
    refused(() => ws.resolve('out-link/secret.txt', 'read'), 'outside');
    refused(() => ws.resolve('out-link', 'walk'), 'outside');
    refused(() => ws.resolve('out-link/new.txt', 'write'), 'outside');
    refused(() => ws.resolve('a-link.txt', 'write'), 'symlink');
    refused(() => ws.resolve('loop-a', 'read'), 'dangling');
    refused(() => ws.resolve('loop-a/x', 'write'), 'dangling');
    refused(() => ws.resolve('', 'write'), 'invalid');
    refused(() => ws.resolve(42, 'read'), 'invalid');
    refused(() => ws.resolve('a\0b', 'read'), 'invalid');
  });

  test('.scroll is not writable in any spelling, through links or ..; ..config is a name', () => {
    for (const p of ['.scroll/x', '.SCROLL/x', '.Scroll/x', './src/../.scroll/x', 'log-alias/x', '.scroll', '.scroll./x', '.scroll:stream', '.s\u200ccroll/x', '.\uff53croll/x']) {
      refused(() => ws.resolve(p, 'write'), 'protected');
    }
    assert.equal(ws.resolve('.scroll/scroll.db', 'read').rel, '.scroll/scroll.db', 'reading is not refused');
    assert.equal(ws.resolve('..config/x', 'write').rel, '..config/x');
    assert.equal(ws.resolve('...', 'write').rel, '...');
    assert.equal(ws.resolve('src/.scrollrc', 'write').rel, 'src/.scrollrc');
    assert.equal(foldName('.ſcroll'), '.scroll');
    assert.ok(isProtectedName('.SCROLL ') && !isProtectedName('.scrolls') && !isProtectedName('scroll'));
  });

  test('writes replace the file: a hard link to a file outside is not written through', async () => {
    writeFileSync(join(outside, 'shared.txt'), 'outside content\n');
    try {
      linkSync(join(outside, 'shared.txt'), join(root, 'hard.txt'));
    } catch {
      return; // another file system: nothing to test
    }
    await writeConfined(ws, 'hard.txt', 'new content\n');
    assert.equal(readFileSync(join(outside, 'shared.txt'), 'utf8'), 'outside content\n');
    assert.equal(readFileSync(join(root, 'hard.txt'), 'utf8'), 'new content\n');
    await writeConfined(ws, 'made/on/the/way.txt', 'x');
    assert.equal(readFileSync(join(root, 'made', 'on', 'the', 'way.txt'), 'utf8'), 'x');
  });

  test('walks list links as links and never enter them; search reads linked files only when inside', async () => {
    const entries: string[] = [];
    for await (const e of walk(ws, ws.resolve('', 'walk'))) entries.push(`${e.rel}:${e.kind}`);
    assert.ok(entries.includes('out-link:link') && entries.includes('in-link:link') && entries.includes('src/deep/b.py:file'), entries.join(' '));
    assert.ok(!entries.some((e) => e.startsWith('out-link/') || e.startsWith('in-link/') || e.startsWith('.scroll/')), entries.join(' '));
    const all = await searchConfined(ws, ws.resolve('', 'walk'), compileTextPattern('a'), { maxResults: 100, maxFiles: 100, maxFileBytes: 1e6 });
    assert.deepEqual(all.hits.map((h) => h.rel).sort(), ['a-link.txt', 'src/a.txt', 'src/deep/b.py']);
    const py = await searchConfined(ws, ws.resolve('', 'walk'), compileTextPattern('ETA', { ignoreCase: true }), {
      include: compileGlob('**/*.py'), maxResults: 100, maxFiles: 100, maxFileBytes: 1e6,
    });
    assert.deepEqual(py.hits, [{ rel: 'src/deep/b.py', line: 1, text: 'beta' }]);
  });
});

/** A Windows file system in memory: case-insensitive, case-preserving, links, a second drive. */
class FakeWindowsFs implements ConfineFs {
  private entries = new Map<string, { name: string; kind: 'dir' | 'file' | 'link'; target?: string; ino: number }>();
  private nextIno = 10;
  constructor() {
    this.add('C:\\', 'dir');
    this.add('D:\\', 'dir');
  }
  add(p: string, kind: 'dir' | 'file' | 'link', target?: string, ino?: number): this {
    const abs = win32.resolve(p);
    this.entries.set(abs.toLowerCase(), { name: win32.basename(abs) || abs, kind, target, ino: ino ?? this.nextIno++ });
    return this;
  }
  ino(p: string): number {
    return this.entries.get(win32.resolve(p).toLowerCase())!.ino;
  }
  realpath(p: string, depth = 0): string {
    const abs = win32.resolve(p);
    const drive = win32.parse(abs).root;
    let cur = drive.toUpperCase();
    if (!this.entries.has(cur.toLowerCase())) throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
    for (const part of abs.slice(drive.length).split('\\').filter(Boolean)) {
      const e = this.entries.get(win32.join(cur, part).toLowerCase());
      if (!e) throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
      if (e.kind === 'link') {
        if (depth > 20) throw Object.assign(new Error('ELOOP'), { code: 'ELOOP' });
        cur = this.realpath(win32.resolve(cur, e.target!), depth + 1);
      } else cur = win32.join(cur, e.name);
    }
    return cur;
  }
  private statOf(e: { kind: string; ino: number }): EntryStat {
    return { isSymbolicLink: () => e.kind === 'link', isDirectory: () => e.kind === 'dir', isFile: () => e.kind === 'file', dev: 1, ino: e.ino };
  }
  lstat(p: string): EntryStat | undefined {
    const abs = win32.resolve(p);
    const parent = win32.dirname(abs);
    if (parent === abs) {
      const root = this.entries.get(abs.toLowerCase());
      return root && this.statOf(root);
    }
    let real: string;
    try {
      real = this.realpath(parent);
    } catch {
      return undefined;
    }
    const e = this.entries.get(win32.join(real, win32.basename(abs)).toLowerCase());
    return e && this.statOf(e);
  }
  stat(p: string): EntryStat | undefined {
    try {
      return this.lstat(this.realpath(p));
    } catch {
      return undefined;
    }
  }
}

describe('confinement rule, Windows flavour (path.win32 on a simulated file system)', () => {
  const fs = new FakeWindowsFs()
    .add('C:\\Work', 'dir')
    .add('C:\\Work\\Proj', 'dir')
    .add('C:\\Work\\Proj\\src', 'dir')
    .add('C:\\Work\\Proj\\src\\main.ts', 'file')
    .add('C:\\Work\\Proj\\.scroll', 'dir')
    .add('C:\\Work\\Proj\\..config', 'dir')
    .add('C:\\Work\\Proj\\junction', 'link', 'D:\\elsewhere')
    .add('C:\\Work\\Proj\\gone', 'link', 'D:\\missing\\file.txt')
    .add('C:\\Work\\Proj\\srclink', 'link', 'C:\\Work\\Proj\\src')
    .add('C:\\Work\\ProjSibling', 'dir')
    .add('D:\\elsewhere', 'dir')
    .add('D:\\elsewhere\\secret.txt', 'file');
  // An 8.3 short name of .scroll: another name, the same folder.
  fs.add('C:\\Work\\Proj\\SCROLL~1', 'dir', undefined, fs.ino('C:\\Work\\Proj\\.scroll'));
  const ws = Workspace.open('c:\\work\\proj', { path: win32, fs });

  test('drive letter and name case, both separators, absolute paths inside', () => {
    assert.equal(ws.real, 'C:\\Work\\Proj');
    assert.equal(ws.resolve('src\\main.ts', 'read').real, 'C:\\Work\\Proj\\src\\main.ts');
    assert.equal(ws.resolve('SRC/Main.TS', 'read').rel, 'src/main.ts');
    assert.equal(ws.resolve('c:\\WORK\\proj\\src\\main.ts', 'read').kind, 'file');
    assert.equal(ws.resolve('C:/Work/Proj/src/new.ts', 'write').rel, 'src/new.ts');
    assert.equal(ws.resolve('srclink\\x.ts', 'write').real, 'C:\\Work\\Proj\\src\\x.ts');
    assert.equal(ws.resolve('..config\\x', 'write').rel, '..config/x');
  });

  test('other drives, siblings with the root as prefix, .. and links out are refused', () => {
    refused(() => ws.resolve('D:\\elsewhere\\secret.txt', 'read'), 'outside');
    refused(() => ws.resolve('..\\ProjSibling\\x', 'write'), 'outside');
    refused(() => ws.resolve('C:\\Work\\ProjSibling\\x', 'write'), 'outside');
    refused(() => ws.resolve('src\\..\\..\\x', 'read'), 'outside');
    refused(() => ws.resolve('\\Windows\\win.ini', 'read'), 'outside');
    refused(() => ws.resolve('junction\\secret.txt', 'read'), 'outside');
    refused(() => ws.resolve('JUNCTION', 'walk'), 'outside');
    refused(() => ws.resolve('gone', 'write'), 'symlink');
    refused(() => ws.resolve('gone\\x', 'write'), 'dangling');
  });

  test('.scroll in any spelling, trailing dots and spaces, streams, and its 8.3 alias', () => {
    for (const p of ['.SCROLL\\x', '.Scroll/x', 'src\\..\\.scroll\\x', '.scroll.\\x', '.scroll \\x', '.scroll::$DATA', 'SCROLL~1\\x', 'scroll~1\\new\\x']) {
      refused(() => ws.resolve(p, 'write'), 'protected');
    }
  });
});

describe('patterns and globs cannot hang', () => {
  test('catastrophic regular expressions are linear', () => {
    const line = `${'a'.repeat(28)}b`;
    for (const p of ['(a+)+$', '(a|a)*$', '(a*)*b$x', '^(a|aa)+$', '(.*a){12}$']) {
      const t0 = Date.now();
      const m = compileTextPattern(p, { regex: true });
      assert.equal(typeof m.test(line), 'boolean');
      assert.equal(typeof m.test('a'.repeat(100_000)), 'boolean');
      assert.ok(Date.now() - t0 < 1000, `${p} took ${Date.now() - t0} ms`);
    }
  });

  test('JavaScript syntax works; what RE2 lacks is refused with the feature named', () => {
    assert.ok(compileTextPattern('user.d', { regex: true, ignoreCase: true }).test('const UserId = 1'));
    assert.ok(compileTextPattern('\\u0041\\d{2}', { regex: true }).test('A12'));
    assert.ok(compileTextPattern('(?<name>get)User', { regex: true }).test('getUser'));
    assert.ok(compileTextPattern('(?<=get)User', { regex: true }).test('getUser'), 'lookbehind is supported');
    assert.ok(!compileTextPattern('(?<!get)User', { regex: true }).test('getUser'));
    assert.ok(compileTextPattern('a.b(', {}).test('x a.b( y'), 'a literal is not a regex');
    assert.ok(compileTextPattern('A.B(', { ignoreCase: true }).test('x a.b( y'));
    const cases: [string, RegExp][] = [
      ['(a)\\1', /backreference \(\\1\)/],
      ['(?<q>["\'])x\\k<q>', /named backreference/],
      ['foo(?=bar)', /lookahead/],
      ['foo(?!bar)', /lookahead/],
      ['(?<=(a))b', /lookbehind may not hold a capturing group/],
      ['x{5000}', /repeat counts above 1000/],
      ['(', /bad regular expression/],
    ];
    for (const [p, why] of cases) {
      assert.throws(() => compileTextPattern(p, { regex: true }), (e: unknown) => e instanceof PatternError && why.test(e.message) && /literal string|simpler pattern|bad regular/.test(e.message), p);
    }
    assert.ok(compileTextPattern('[(?=]\\(?!', { regex: true }).test('(!'), 'lookahead syntax inside a class or escaped is fine');
    assert.throws(() => compileTextPattern('x'.repeat(3000), { regex: true }), PatternError);
  });

  test('globs match like VS Code globs', () => {
    const cases: [string, string[], string[]][] = [
      ['**/*.py', ['a.py', 'x/y/a.py'], ['a.pyc', 'x/a.ts']],
      ['src/**/*.ts', ['src/a.ts', 'src/x/y/a.ts'], ['a.ts', 'lib/src/a.ts']],
      ['*.md', ['README.md'], ['docs/a.md']],
      ['src/**', ['src/a', 'src/x/y'], ['srcx/a']],
      ['**/{a,b}.{js,ts}', ['a.js', 'q/b.ts'], ['c.js', 'a.jsx']],
      ['file?.[ch]', ['file1.c', 'filex.h'], ['file.c', 'file12.c', 'file1.o']],
      ['[!a]*.txt', ['b.txt'], ['a.txt']],
      ['./docs/*.md', ['docs/x.md'], ['x.md']],
      ['a+b(c).txt', ['a+b(c).txt'], ['aab(c).txt']],
      ['{unclosed', ['{unclosed'], ['unclosed']],
    ];
    for (const [g, yes, no] of cases) {
      const m = compileGlob(g);
      for (const p of yes) assert.ok(m.test(p), `${g} should match ${p} (${m.source})`);
      for (const p of no) assert.ok(!m.test(p), `${g} should not match ${p} (${m.source})`);
    }
    assert.ok(compileGlob('*.PY', { ignoreCase: true }).test('a.py'));
  });

  test('pathological globs are linear too', () => {
    const name = 'a'.repeat(250);
    for (const g of [`${'*a'.repeat(30)}*b`, `${'**/'.repeat(30)}*b`, `${'{a,'.repeat(10)}b${'}'.repeat(10)}`]) {
      const t0 = Date.now();
      const m = compileGlob(g);
      for (let i = 0; i < 100; i++) m.test(`${name}/${name}`);
      assert.ok(Date.now() - t0 < 1000, `${g} took ${Date.now() - t0} ms`);
    }
    assert.throws(() => compileGlob(`${'{'.repeat(20)}a${'}'.repeat(20)}`), PatternError);
  });
});
