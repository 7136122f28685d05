// ESLint 9 flat config: typescript-eslint's recommended rules (minus the few listed below) and the
// layer table of docs/ARCHITECTURE.md as import rules (see "## Lint" there). `npm run lint`.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

// ---------------------------------------------------------------------------------------------
// The layer table. Each entry is one kind of import a layer may not make. Import specifiers are
// matched as written (relative to the importing file, not resolved), so the relative patterns say
// "climbs out with ../ and lands in that folder" (the folders below have no subfolder of that name).
const TABLE = 'docs/ARCHITECTURE.md, layer table';
const up = String.raw`^(\.\.\/)+(src\/)?`; // ../../ or ../../src/ before a top-level folder of src
const forbid = {
  vscode: { regex: String.raw`^vscode(\/|$)`, message: `'vscode' is imported only by the editor adapters (src/vscode, src/extension.ts) (${TABLE}).` },
  editor: { regex: String.raw`${up}(vscode(\/|$)|(extension|api)(\.[cm]?[jt]s)?$)`, message: `src/vscode, src/extension.ts and src/api.ts are the editor adapters: core and the CLI never import them (${TABLE}).` },
  cli: { regex: String.raw`${up}cli(\/|$)`, message: `src/cli is the CLI over core: nothing imports it (${TABLE}).` },
  webview: { regex: String.raw`^(\.\.\/)+webview(\/|$)`, message: `webview/ is bundled for the browser on its own: nothing imports it (${TABLE}).` },
  sqlite: { regex: String.raw`^(better-sqlite3(\/|$)|node:sqlite$)`, message: `SQLite drivers are loaded only in src/core/db, behind its Database interface (${TABLE}).` },
  re2js: { regex: String.raw`^re2js(\/|$)`, message: `re2js is used only by src/core/workspace/patterns.ts (compileTextPattern, compileGlob) (${TABLE}).` },
  // src/shared: its own files only (./x, never ../); no node built-ins or packages: it runs in the webview too.
  sharedOnly: { regex: String.raw`^(?!\.\/(?!.*\.\.))`, message: `src/shared imports nothing but its own files: no node built-ins, no packages, no other layer; it runs in the webview too (${TABLE}).` },
  // webview/: its own files (./x, ../x), src/shared, and its npm UI packages.
  webviewOnly: {
    regex: String.raw`^(?!(\.\.?\/(?!.*\.\.)|(\.\.\/)+src\/shared(\/|$)(?!.*\.\.)|@vscode\/webview-ui-toolkit(\/|$)))`,
    message: `webview/ imports only its own files, src/shared and its UI packages (@vscode/webview-ui-toolkit); no node built-ins, no 'vscode', no other layer (${TABLE}).`,
  },
};

const CORE = [forbid.vscode, forbid.editor, forbid.cli, forbid.webview];
const LAYERS = [
  // Later entries override earlier ones for the files they match (the exceptions of core).
  { name: 'core', files: ['src/core/**/*.ts', 'src/prompts/**/*.ts'], forbid: [...CORE, forbid.sqlite, forbid.re2js] },
  { name: 'core: src/core/db', files: ['src/core/db/**/*.ts'], forbid: [...CORE, forbid.re2js] },
  { name: 'core: patterns.ts', files: ['src/core/workspace/patterns.ts'], forbid: [...CORE, forbid.sqlite] },
  { name: 'editor adapters', files: ['src/vscode/**/*.ts', 'src/extension.ts', 'src/api.ts'], forbid: [forbid.cli, forbid.webview, forbid.sqlite, forbid.re2js] },
  { name: 'cli', files: ['src/cli/**/*.ts'], forbid: [forbid.vscode, forbid.editor, forbid.webview, forbid.sqlite, forbid.re2js] },
  { name: 'shared', files: ['src/shared/**/*.ts'], forbid: [forbid.sharedOnly] },
  { name: 'webview', files: ['webview/**/*.ts'], forbid: [forbid.webviewOnly] },
];

// import/export declarations (type-only ones included) go through no-restricted-imports; require(),
// import() and `typeof import()` through no-restricted-syntax with the same patterns. esquery's
// regex literals cannot hold a '/', so it is written \x2F there.
const esqueryRegex = (regex) => `/${regex.replaceAll(String.raw`\/`, String.raw`\x2F`)}/`;
const layerRules = (list) => ({
  '@typescript-eslint/no-restricted-imports': ['error', { patterns: list.map(({ regex, message }) => ({ regex, message, caseSensitive: true })) }],
  'no-restricted-syntax': ['error', ...list.flatMap(({ regex, message }) => {
    const re = esqueryRegex(regex);
    if (re.slice(1, -1).includes('/')) throw new Error(`eslint.config.mjs: unescaped '/' in ${regex}`);
    return [
      `CallExpression[callee.name="require"][arguments.0.value=${re}]`,
      `ImportExpression[source.value=${re}]`,
      `TSImportType[argument.literal.value=${re}]`,
    ].map((selector) => ({ selector, message }));
  })],
});


// tsc compiles a re-export (`export { x } from './m'`, or `export { x }` of an imported x) into a
// getter on the module's exports object, and V8 then loads every other export of that module
// (`tokens_1.cls(...)` in a loop) through the generic property-load path: the whole module's hot
// functions slow down (docs/PERFORMANCE.md, "Re-exports"). Barrels (index.ts) may re-export; core's
// other modules import from where a thing is defined.
const noReexport = {
  meta: { type: 'problem', messages: { reexport: "core modules other than index.ts do not re-export ('{{name}}'): import it from where it is defined (a re-export slows every export of this module under tsc's CommonJS output; docs/PERFORMANCE.md)" } },
  create(context) {
    const imported = new Set();
    return {
      ImportDeclaration(node) {
        if (node.importKind === 'type') return;
        for (const s of node.specifiers) if (s.importKind !== 'type') imported.add(s.local.name);
      },
      ExportAllDeclaration(node) {
        if (node.exportKind !== 'type') context.report({ node, messageId: 'reexport', data: { name: '*' } });
      },
      ExportNamedDeclaration(node) {
        if (node.exportKind === 'type' || node.declaration) return;
        for (const s of node.specifiers) {
          if (s.exportKind === 'type') continue;
          if (node.source || imported.has(s.local.name)) context.report({ node: s, messageId: 'reexport', data: { name: s.exported.name ?? s.exported.value } });
        }
      },
    };
  },
};

export default defineConfig(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test/fixtures/**', 'test-results/**', '**/*.{js,mjs,cjs}'] },
  {
    name: 'scroll/typescript',
    files: ['**/*.ts'],
    extends: [js.configs.recommended, tseslint.configs.recommended],
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // Left out of the recommended sets (each fires in the tree today, on purpose or as style):
      '@typescript-eslint/no-explicit-any': 'off', // driver rows, JSON replies, test fakes
      '@typescript-eslint/no-unused-expressions': 'off', // comma sequences in the redaction scanner
      '@typescript-eslint/no-this-alias': 'off', // a getter in an object literal needs the outer this
      'no-useless-escape': 'off', // style only
      // `_name` marks a deliberately unused binding; a catch binding may go unused.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
  {
    // Tests build control characters on purpose.
    name: 'scroll/tests',
    files: ['test/**/*.ts'],
    rules: { 'no-control-regex': 'off' },
  },
  {
    // Existing exceptions (ANSI escapes stripped from Jupyter output; fs monkeypatched through the
    // module object): an inline eslint-disable comment in those files can replace these.
    name: 'scroll/exceptions',
    files: ['src/vscode/kernel/jupyterKernel.ts'],
    rules: { 'no-control-regex': 'off' },
  },
  {
    name: 'scroll/exceptions-require',
    files: ['test/unit/log/payloadStore.test.ts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  ...LAYERS.map((l) => ({ name: `scroll/layer ${l.name}`, files: l.files, rules: layerRules(l.forbid) })),
  {
    name: 'scroll/no-reexport',
    files: ['src/core/**/*.ts'],
    ignores: ['**/index.ts'],
    plugins: { scroll: { rules: { 'no-reexport': noReexport } } },
    rules: { 'scroll/no-reexport': 'error' },
  },
);
