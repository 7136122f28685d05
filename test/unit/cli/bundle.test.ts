/**
 * The bundled CLI (dist/cli.js, what `npm start`'s build and a packaged extension run) and not only
 * tsc's out/: a dependency that loads its own files at run time works under tsc and breaks in a
 * bundle (jsonc-parser's UMD build did: "Cannot find module './impl/format'"). `npm test` builds
 * dist/ before the unit tests.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = join(__dirname, '..', '..', '..', '..');
const BUNDLED_CLI = join(ROOT, 'dist', 'cli.js');
const CHAT_FIXTURES = join(ROOT, 'test', 'fixtures', 'capture', 'copilot-chat');

test("the bundled CLI imports a multi-root workspace's chat sessions (its .code-workspace is JSON with comments)", () => {
  assert.ok(existsSync(BUNDLED_CLI), `no ${BUNDLED_CLI}: build it first (node scripts/build.mjs)`);
  const dir = mkdtempSync(join(tmpdir(), 'scroll-bundle-'));
  try {
    const home = join(dir, 'home');
    const storage = join(home, '.config', 'Code', 'User', 'workspaceStorage', 'multi1');
    mkdirSync(join(storage, 'chatSessions'), { recursive: true });
    const chats = readdirSync(CHAT_FIXTURES).filter((f) => f.endsWith('.json'));
    assert.ok(chats.length > 0);
    for (const f of chats) copyFileSync(join(CHAT_FIXTURES, f), join(storage, 'chatSessions', f));
    const workspaceFile = join(dir, 'projects', 'shop.code-workspace');
    mkdirSync(join(dir, 'projects', 'web'), { recursive: true });
    writeFileSync(workspaceFile, '{\n  // the shop\n  "folders": [{ "path": "web" },],\n}\n');
    writeFileSync(join(storage, 'workspace.json'), JSON.stringify({ workspace: pathToFileURL(workspaceFile).href }));
    const r = spawnSync(process.execPath, [BUNDLED_CLI, 'import', 'copilot-chat', '--workspace', join(dir, 'projects', 'web'), '--dry-run', '--json', '--db', join(dir, 'db', 'scroll.db')], {
      encoding: 'utf8',
      env: { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config') },
    });
    assert.equal(r.status, 0, r.stderr);
    const [summary] = JSON.parse(r.stdout).sources;
    assert.equal(summary.files, chats.length);
    assert.ok(summary.appended > 0, r.stdout);
    assert.deepEqual(summary.problems, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
