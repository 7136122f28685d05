// docs/ARCHITECTURE.md's "Folders" list names every folder of the tree that holds code, and only those;
// test/unit mirrors the source folders.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..', '..', '..');
const TOP = ['src', 'kernel', 'webview', 'media', 'test', 'bench', 'scripts'];
const SKIP = new Set(['node_modules', '__pycache__']);
const isDir = (rel: string) => existsSync(join(root, rel)) && statSync(join(root, rel)).isDirectory();

function folders(dir: string, depth: number, out: string[] = []): string[] {
  for (const name of readdirSync(join(root, dir))) {
    const rel = `${dir}/${name}`;
    if (SKIP.has(name) || !isDir(rel)) continue;
    out.push(rel);
    if (depth > 1) folders(rel, depth - 1, out);
  }
  return out;
}

/** Folders the section names: full paths, or paths relative to the first folder of their bullet. */
function documented(): Set<string> {
  const doc = readFileSync(join(root, 'docs', 'ARCHITECTURE.md'), 'utf8');
  const section = doc.split('\n## Folders\n')[1]?.split('\n## ')[0];
  assert.ok(section, 'docs/ARCHITECTURE.md has a "## Folders" section');
  const named = new Set<string>(TOP);
  for (const bullet of section.split('\n- ').slice(1)) {
    const names = [...bullet.matchAll(/`([^`<>]+)\/`/g)].map((m) => m[1]);
    const base = names[0];
    for (const n of names) named.add(n !== base && isDir(`${base}/${n}`) ? `${base}/${n}` : n);
  }
  return named;
}

test('docs/ARCHITECTURE.md "Folders" names every code folder of the tree, and each folder it names exists', () => {
  const named = documented();
  const tree = ['src', 'kernel', 'webview', 'media', 'bench', 'scripts'].filter(isDir).flatMap((t) => folders(t, 3));
  tree.push(...folders('test', 1));
  assert.deepEqual(tree.filter((f) => !named.has(f)), [], 'folders of the tree the section does not name');
  assert.deepEqual([...named].filter((f) => !isDir(f)), [], 'folders the section names that are not in the tree');
});

test('test/unit mirrors the source: each folder is a folder of src/core, or cli, shared, lint, vscode/<a folder of src/vscode>', () => {
  const stray = folders('test/unit', 3).filter((f) => {
    const [, , first, second, third] = f.split('/');
    if (first === 'vscode') return second !== undefined && !isDir(`src/vscode/${second}`);
    if (['cli', 'shared', 'lint'].includes(first)) return false;
    return !isDir(`src/core/${first}${second ? `/${second}` : ''}${third ? `/${third}` : ''}`);
  });
  assert.deepEqual(stray, [], 'test folders without a source folder of the same name');
});
