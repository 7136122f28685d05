// The layer rules of eslint.config.mjs bite: snippets placed (virtually) in each layer's folder are
// linted with the repository's config through ESLint's Node API. No file is written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ESLint } from 'eslint';

const root = join(__dirname, '..', '..', '..', '..'); // out/test/unit/lint -> repository root
const LAYER_RULES = new Set(['@typescript-eslint/no-restricted-imports', 'no-restricted-syntax']);
let eslint: ESLint | undefined;

/** The layer-rule messages ESLint reports for `code` as if it were the file `rel` of the repository. */
async function layerErrors(rel: string, code: string): Promise<string[]> {
  eslint ??= new ESLint({ cwd: root, overrideConfigFile: join(root, 'eslint.config.mjs') });
  const [result] = await eslint.lintText(code, { filePath: join(root, rel), warnIgnored: true });
  const fatal = result.messages.filter((m) => m.fatal);
  assert.deepEqual(fatal, [], `${rel} did not parse or is ignored`);
  return result.messages.filter((m) => m.ruleId && LAYER_RULES.has(m.ruleId)).map((m) => `${m.line}: ${m.message}`);
}

async function assertReported(rel: string, code: string, expect: RegExp): Promise<void> {
  const errors = await layerErrors(rel, code);
  assert.equal(errors.length, code.trim().split('\n').length, `${rel}: one error per line of\n${code}\ngot ${JSON.stringify(errors, null, 1)}`);
  for (const e of errors) assert.match(e, expect);
}

async function assertClean(rel: string, code: string): Promise<void> {
  assert.deepEqual(await layerErrors(rel, code), [], `${rel} should pass:\n${code}`);
}

test('core: a vscode import is reported (import, type import, re-export, require, import(), typeof import())', async () => {
  await assertReported('src/core/log/lintFixture.ts', [
    "import * as vscode from 'vscode';",
    "import type { Uri } from 'vscode';",
    "export { window } from 'vscode';",
    "const v = require('vscode');",
    "const w = import('vscode');",
    "type T = typeof import('vscode');",
  ].join('\n'), /'vscode' is imported only by the editor adapters/);
});

test('core: the adapters (src/vscode, src/cli, src/extension.ts, src/api.ts) are reported', async () => {
  await assertReported('src/core/agent/lintFixture.ts', [
    "import { ScrollServices } from '../../vscode/services';",
    "import { activate } from '../../extension';",
    "import type { ScrollApi } from '../../api';",
    "const lazy = require('../../vscode/kernel/factory');",
  ].join('\n'), /editor adapters: core and the CLI never import them/);
  await assertReported('src/core/lintFixture.ts', "import { main } from '../cli/main';", /src\/cli is the CLI over core/);
});

test('core: node built-ins, src/shared, src/prompts and core itself are allowed', async () => {
  await assertClean('src/core/agent/lintFixture.ts', [
    "import { readFileSync } from 'node:fs';",
    "import * as path from 'path';",
    "import { parseSeqSpec } from '../../shared/seqSpec';",
    "import { template } from '../../prompts';",
    "import { EventLog } from '../log/eventLog';",
    "import type { LogEvent } from '../types';",
    "export { readFileSync, path, parseSeqSpec, template, EventLog };",
    'export type { LogEvent };',
  ].join('\n'));
});

test('src/shared: a node built-in (or any package, or another layer) is reported', async () => {
  await assertReported('src/shared/lintFixture.ts', [
    "import { readFileSync } from 'node:fs';",
    "import * as path from 'path';",
    "import type { Buffer } from 'node:buffer';",
    "import { RE2JS } from 're2js';",
    "import type { LogEvent } from '../core/types';",
    "import { bad } from './../core/types';",
    "const os = require('os');",
  ].join('\n'), /src\/shared imports nothing but its own files/);
  await assertClean('src/shared/lintFixture.ts', "import { parseSeqSpec } from './seqSpec';\nexport { parseSeqSpec };");
});

test('webview: a src/vscode import (or core, node, vscode) is reported; src/shared and the UI toolkit are not', async () => {
  await assertReported('webview/src/lintFixture.ts', [
    "import { ScrollServices } from '../../src/vscode/services';",
    "import type { LogEvent } from '../../src/core/types';",
    "import * as vscode from 'vscode';",
    "import { readFileSync } from 'node:fs';",
    "import { x } from '../../src/shared/../vscode/services';",
  ].join('\n'), /webview\/ imports only its own files, src\/shared and its UI packages/);
  await assertClean('webview/src/lintFixture.ts', [
    "import { provideVSCodeDesignSystem } from '@vscode/webview-ui-toolkit';",
    "import type { PanelEvent } from '../../src/shared/panelProtocol';",
    "import { h } from './dom';",
    'export { provideVSCodeDesignSystem, h };',
    'export type { PanelEvent };',
  ].join('\n'));
});

test('cli: vscode and src/vscode are reported; core is allowed', async () => {
  await assertReported('src/cli/commands/lintFixture.ts', "import * as vscode from 'vscode';", /'vscode' is imported only by the editor adapters/);
  await assertReported('src/cli/commands/lintFixture.ts', "import { x } from '../../vscode/services';", /editor adapters/);
  await assertClean('src/cli/commands/lintFixture.ts', "import { EventLog } from '../../core/log/eventLog';\nexport { EventLog };");
});

test('re2js only in src/core/workspace/patterns.ts, SQLite drivers only in src/core/db', async () => {
  await assertReported('src/core/search/lintFixture.ts', "import { RE2JS } from 're2js';", /re2js is used only by src\/core\/workspace\/patterns\.ts/);
  await assertReported('src/vscode/lintFixture.ts', "const r = require('re2js');", /re2js is used only/);
  await assertReported('src/core/log/lintFixture.ts', "import Database from 'better-sqlite3';\nconst s = require('node:sqlite');", /SQLite drivers are loaded only in src\/core\/db/);
  await assertReported('src/cli/lintFixture.ts', "import type Database from 'better-sqlite3';", /SQLite drivers/);
  await assertClean('src/core/workspace/patterns.ts', "import { RE2JS } from 're2js';\nexport { RE2JS };");
  await assertClean('src/core/db/lintFixture.ts', "import type B from 'better-sqlite3';\nconst s = require('node:sqlite');\nexport type { B };\nexport { s };");
  // ...and the exceptions keep the rest of core's rules.
  await assertReported('src/core/db/lintFixture.ts', "import * as vscode from 'vscode';", /'vscode'/);
  await assertReported('src/core/workspace/patterns.ts', "import type B from 'better-sqlite3';", /SQLite drivers/);
});

test('editor adapters: vscode and core are allowed, the CLI is not', async () => {
  await assertClean('src/vscode/chat/lintFixture.ts', [
    "import * as vscode from 'vscode';",
    "import { EventLog } from '../../core/log/eventLog';",
    "const lazy = require('../../core/kernel/sandbox') as typeof import('../../core/kernel/sandbox');",
    'export { vscode, EventLog, lazy };',
  ].join('\n'));
  await assertReported('src/vscode/lintFixture.ts', "import { main } from '../cli/main';", /src\/cli is the CLI over core/);
});
