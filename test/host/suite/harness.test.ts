// Smoke test of the real-editor harness: these run inside a real VS Code extension host (code-server),
// with the real `vscode` API, the extension under test loaded from the repository and every fixture
// extension under test/fixtures installed.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ScrollApi } from '../../../src/api';
import { driverChoiceLine, openDatabase } from '../../../src/core/db';

const repoRoot = path.resolve(__dirname, '..', '..', '..', '..');
const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
const scrollId = `${manifest.publisher}.${manifest.name}`;

interface ScriptedLmApi {
  vendor: string;
  setScript(script: unknown): void;
  reset(): void;
  readonly requests: Array<{ messages: Array<{ role: string; text: string }>; tools: Array<{ name: string }>; source: string }>;
}

describe('real-editor harness', () => {
  it('runs inside a real VS Code extension host', () => {
    assert.match(vscode.version, /^1\.\d+\.\d+/);
    assert.equal(typeof vscode.chat.createChatParticipant, 'function');
    assert.equal(typeof vscode.lm.registerLanguageModelChatProvider, 'function');
    const major = Number(process.versions.node.split('.')[0]);
    assert.ok(major >= 22, `extension host Node ${process.version}`);
  });

  it('opens the sample workspace', () => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    assert.ok(folder, 'a workspace folder is open');
    assert.ok(fs.existsSync(path.join(folder.uri.fsPath, 'README.md')), `sample workspace files in ${folder.uri.fsPath}`);
  });

  it('loads the extension under test from the repository and activates it', async () => {
    const ext = vscode.extensions.getExtension(scrollId);
    assert.ok(ext, `${scrollId} is loaded`);
    assert.equal(path.resolve(ext.extensionPath), repoRoot, 'loaded from the repository (development path)');
    await ext.activate();
    assert.equal(ext.isActive, true);
  });

  it('loads every fixture extension under test/fixtures', () => {
    const fixtures = path.join(repoRoot, 'test', 'fixtures');
    for (const name of fs.readdirSync(fixtures)) {
      const pj = path.join(fixtures, name, 'package.json');
      if (!fs.existsSync(pj)) continue;
      const m = JSON.parse(fs.readFileSync(pj, 'utf8'));
      if (!m.engines?.vscode) continue;
      assert.ok(vscode.extensions.getExtension(`${m.publisher}.${m.name}`), `fixture ${m.publisher}.${m.name} is loaded`);
    }
  });

  it('the scripted model answers through vscode.lm with text and tool calls, and records what it was sent', async () => {
    const ext = vscode.extensions.getExtension<ScriptedLmApi>('scroll-test.scripted-lm');
    assert.ok(ext, 'scripted-lm fixture is loaded');
    const api = await ext.activate();
    api.reset();
    await vscode.commands.executeCommand('scriptedLm.setScript', {
      turns: [{ text: ['Looking ', 'it up.'], toolCalls: [{ name: 'scroll_searchHistory', input: { query: 'flaky test' } }] }],
      rules: [{ match: 'ping', reply: { text: 'pong' } }],
    });
    const [model] = await vscode.lm.selectChatModels({ vendor: api.vendor });
    assert.ok(model, 'the scripted model is selectable');
    const tool: vscode.LanguageModelChatTool = {
      name: 'scroll_searchHistory',
      description: 'Search the history',
      inputSchema: { type: 'object', properties: { query: { type: 'string' } } },
    };
    const token = new vscode.CancellationTokenSource().token;
    const response = await model.sendRequest([vscode.LanguageModelChatMessage.User('what broke yesterday?')], { tools: [tool] }, token);
    let text = '';
    const calls: vscode.LanguageModelToolCallPart[] = [];
    for await (const part of response.stream) {
      if (part instanceof vscode.LanguageModelTextPart) text += part.value;
      else if (part instanceof vscode.LanguageModelToolCallPart) calls.push(part);
    }
    assert.equal(text, 'Looking it up.');
    assert.equal(calls.length, 1);
    assert.equal(calls[0].name, 'scroll_searchHistory');
    assert.deepEqual(calls[0].input, { query: 'flaky test' });

    const pong = await model.sendRequest([vscode.LanguageModelChatMessage.User('ping')], {}, token);
    let pongText = '';
    for await (const t of pong.text) pongText += t;
    assert.equal(pongText, 'pong');

    const seen = api.requests;
    assert.equal(seen.length, 2);
    assert.equal(seen[0].messages[0].text, 'what broke yesterday?');
    assert.deepEqual(seen[0].tools.map((t) => t.name), ['scroll_searchHistory']);
    assert.deepEqual(seen.map((r) => r.source), ['turn', 'rule']);
    assert.equal(await model.countTokens('12345678'), 2);
  });

  it('a malformed script is refused with a clear error and the previous script is kept', async () => {
    const api = await vscode.extensions.getExtension<ScriptedLmApi>('scroll-test.scripted-lm')!.activate();
    api.setScript([{ text: 'kept' }]);
    await assert.rejects(
      Promise.resolve(vscode.commands.executeCommand('scriptedLm.setScript', [{ txt: 'typo' }])),
      /unknown field "txt"/,
    );
    const [model] = await vscode.lm.selectChatModels({ vendor: api.vendor });
    let out = '';
    for await (const t of (await model.sendRequest([vscode.LanguageModelChatMessage.User('hi')])).text) out += t;
    assert.equal(out, 'kept');
    api.reset();
  });

  it('SQLite: the driver that loads in this host opens a log with FTS5 and bm25', function () {
    // better-sqlite3 in node_modules is built for Node 20; the host runs Node 24 here, so `auto` must fall
    // back to node:sqlite exactly when the native addon refuses to load. Which one loaded is put in the title.
    let nativeError: string | undefined;
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const BetterSqlite3 = require('better-sqlite3');
      new BetterSqlite3(':memory:').close();
    } catch (e) {
      const msg = String((e as Error).message);
      const abi = /NODE_MODULE_VERSION (\d+)[\s\S]*NODE_MODULE_VERSION (\d+)/.exec(msg);
      nativeError = abi ? `its binary is built for NODE_MODULE_VERSION ${abi[1]}, this host needs ${abi[2]}` : msg.split('\n')[0];
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scroll-host-db-'));
    try {
      const db = openDatabase(path.join(dir, 'probe.db'));
      try {
        assert.equal(db.driver, nativeError ? 'node:sqlite' : 'better-sqlite3');
        db.exec("CREATE VIRTUAL TABLE t USING fts5(body); INSERT INTO t(body) VALUES ('flaky test in CI'), ('green build')");
        const rows = db.prepare('SELECT rowid, bm25(t) AS score FROM t WHERE t MATCH ? ORDER BY score').all('flaky');
        assert.deepEqual(rows.map((r) => r.rowid), [1]);
      } finally {
        db.close();
      }
      // One calm line from the core: which driver and why (a fallback here is expected, not an error).
      const title = `${driverChoiceLine(db.driver)} (extension host)`;
      this.test!.title = title;
      console.log(`[harness] ${title}`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the extension reads the seeded history of the sample workspace through that driver', async () => {
    const api = await vscode.extensions.getExtension<ScrollApi>(scrollId)!.activate();
    const result = api.search('retry cap');
    assert.ok(result.hits.length > 0, `hits for "retry cap" in ${api.logPath()}`);
    const seen = api.get(result.hits[0].seq);
    assert.ok(seen && /retr|cap/i.test(seen.content), 'the hit resolves to its event');
    // Other suites share this workspace and may add sessions of their own: the seeded ones must be there.
    const sessions = api.sessions().map((s) => s.session);
    for (const seeded of ['ledger-2026-11-20', 'ledger-2026-11-24']) assert.ok(sessions.includes(seeded), `session ${seeded} in ${sessions}`);
    const stats = api.services.existingLog()!.stats();
    let nativeLoads = true;
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      new (require('better-sqlite3'))(':memory:').close();
    } catch {
      nativeLoads = false;
    }
    assert.equal(stats.driver, nativeLoads ? 'better-sqlite3' : 'node:sqlite');
    console.log(`[harness] the extension's log ${stats.path}: ${stats.events} events through ${stats.driver}`);
  });
});
