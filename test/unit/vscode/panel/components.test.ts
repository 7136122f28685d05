// The deprecated webview UI toolkit stays behind webview/src/components.ts (docs/ARCHITECTURE.md,
// "History panel"): no other front-end file imports it or builds its elements by tag name, so
// replacing it touches one file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const webviewSrc = resolve(__dirname, '..', '..', '..', '..', '..', 'webview', 'src');

function sources(): { file: string; text: string }[] {
  return readdirSync(webviewSrc).filter((f) => f.endsWith('.ts')).map((file) => ({ file, text: readFileSync(join(webviewSrc, file), 'utf8') }));
}

test('only components.ts imports @vscode/webview-ui-toolkit', () => {
  const files = sources();
  assert.ok(files.some((f) => f.file === 'components.ts'), `found ${files.map((f) => f.file)}`);
  const importers = files.filter((f) => /from '@vscode\/webview-ui-toolkit/.test(f.text)).map((f) => f.file);
  assert.deepEqual(importers, ['components.ts']);
});

test("no view builds a toolkit element by its tag: they go through the panel's components", () => {
  const offenders = sources()
    .filter((f) => f.file !== 'components.ts')
    .flatMap((f) => [...f.text.matchAll(/h\(\s*'(vscode-[a-z-]+)'/g)].map((m) => `${f.file}: ${m[1]}`));
  assert.deepEqual(offenders, []);
});
