// Scroll in an UNTRUSTED workspace, in the real host (run-host-tests --untrusted: workspace trust enforced,
// the seeded sample folder not trusted, so the window is in restricted mode). Issue 6: searching and
// reading history work; scroll_exec, file edits and commands are refused with a clear message; the Python
// kernel never starts; the log on disk is never written to; @scroll answers a question with the
// history-only reply without asking the model, and its /search and /expand still work.
import * as assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ScrollApi } from '../../../src/api';
import { openDatabase } from '../../../src/core/db';
import { PANEL_VIEW_TYPE } from '../../../src/shared/panelProtocol';
import type { KernelFactory } from '../../../src/vscode/kernel/kernelPool';
import { closeAllEditors, scrollApi, scrollId, toolText, waitFor, workspaceRoot } from '../suite/helpers';

interface LogSnapshot {
  events: number;
  maxSeq: number;
  sha256: string;
}

/** What is on disk, read through a connection of our own (not Scroll's). */
function snapshotLog(dbPath: string): LogSnapshot {
  const db = openDatabase(dbPath, { readonly: true });
  try {
    const row = db.prepare('SELECT COUNT(*) AS n, COALESCE(MAX(seq), 0) AS m FROM events').get() as { n: number; m: number };
    return { events: Number(row.n), maxSeq: Number(row.m), sha256: crypto.createHash('sha256').update(fs.readFileSync(dbPath)).digest('hex') };
  } finally {
    db.close();
  }
}

interface ScriptedLmApi {
  vendor: string;
  setScript(script: unknown): void;
  reset(): void;
  readonly requests: unknown[];
}

const invoke = (name: string, input: Record<string, unknown>) =>
  Promise.resolve(vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }));

describe('untrusted workspace (restricted mode)', () => {
  let api: ScrollApi;
  let dbPath: string;
  let initial: LogSnapshot;
  /** Every time Scroll asked for a kernel process. Must stay empty. */
  const kernelStarts: string[] = [];

  before(async () => {
    dbPath = path.join(workspaceRoot(), '.scroll', 'scroll.db');
    assert.ok(fs.existsSync(dbPath), `the seeded log is at ${dbPath}`);
    initial = snapshotLog(dbPath);
    assert.ok(initial.events > 5, `seeded history: ${initial.events} events`);
    api = await scrollApi();
    // Records any kernel start (and refuses it), so a start that slipped past the trust check shows up.
    const recordingKernelFactory: KernelFactory = async ({ session }) => {
      kernelStarts.push(session);
      throw new Error('test: a kernel was requested in an untrusted workspace');
    };
    api.services.kernels.setFactory(recordingKernelFactory);
  });

  afterEach(closeAllEditors);

  it('the window is in restricted mode and Scroll is active there', async () => {
    assert.equal(vscode.workspace.isTrusted, false, 'vscode.workspace.isTrusted');
    const ext = vscode.extensions.getExtension(scrollId);
    assert.ok(ext, `${scrollId} is loaded`);
    assert.equal(ext.isActive, true, 'Scroll activates in restricted mode');
    assert.equal(ext.packageJSON.capabilities?.untrustedWorkspaces?.supported, 'limited');
    assert.equal(api.services.trusted, false);
  });

  it('the log opens read-only: searching works, appending is refused', () => {
    const log = api.services.log();
    assert.equal(log.readonly, true, 'Scroll opened the log read-only');
    assert.equal(log.stats().events, initial.events);
    assert.throws(
      () => log.append({ session: 'untrusted-probe', kind: 'user_message', role: 'user', content: 'must not be stored' }),
      /read.?only/i,
    );
  });

  it('searches history through the API', () => {
    const r = api.search('ledger report');
    assert.ok(r.hits.length > 0, 'hits for "ledger report"');
    const ev = api.get(r.hits[0].seq);
    assert.ok(ev, `event ${r.hits[0].seq} reads back`);
    assert.ok(api.sessions().length > 0, 'sessions listed');
  });

  it('scroll_searchHistory and scroll_expandEvent work through vscode.lm.invokeTool', async () => {
    const found = toolText(await invoke('scroll_searchHistory', { query: 'ledger report', k: 3 }));
    const seq = Number(/seq (\d+)/.exec(found)?.[1]);
    assert.ok(seq > 0, `a seq in the search result:\n${found.slice(0, 400)}`);
    const expanded = toolText(await invoke('scroll_expandEvent', { seq: String(seq) }));
    assert.ok(expanded.includes(api.get(seq)!.content.slice(0, 40)), `the expanded event holds its content:\n${expanded.slice(0, 400)}`);
  });

  it('a scroll:/event/N.md document opens with the event', async () => {
    const ev = api.get(3)!;
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse('scroll:/event/3.md'));
    await vscode.window.showTextDocument(doc);
    assert.equal(vscode.window.activeTextEditor?.document.uri.toString(), 'scroll:/event/3.md');
    assert.match(doc.getText(), /^# Event 3 · /);
    assert.ok(doc.getText().includes(ev.content), 'the tab holds the exact content');
    const uri = await vscode.commands.executeCommand<string>('scroll.openEvent', 4);
    assert.match(vscode.Uri.parse(uri).path, /^\/event\/4\/seq 4 · /, 'the openEvent command works too (its tab titled by what it shows)');
  });

  it('the history panel opens', async () => {
    const panelTabs = () =>
      vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith(PANEL_VIEW_TYPE));
    assert.equal(await vscode.commands.executeCommand<boolean>('scroll.openHistoryPanel', { query: 'ledger report' }), true);
    await waitFor('the panel tab', () => panelTabs().length === 1);
  });

  it('scroll_exec is refused with a clear message', async () => {
    await assert.rejects(invoke('scroll_exec', { code: 'print(6 * 7)' }), /Python kernel is disabled in untrusted workspaces/);
  });

  it('scroll_editFile is refused and the file is not written', async () => {
    const target = path.join(workspaceRoot(), 'untrusted-edit.txt');
    await assert.rejects(invoke('scroll_editFile', { path: 'untrusted-edit.txt', oldText: '', newText: 'written anyway\n' }), /Editing files is disabled in untrusted workspaces/);
    assert.equal(fs.existsSync(target), false, 'no file created');
  });

  it('scroll_runCommand is refused and the command does not run', async () => {
    const marker = path.join(workspaceRoot(), 'untrusted-ran.txt');
    await assert.rejects(invoke('scroll_runCommand', { command: `touch ${JSON.stringify(marker)}` }), /Running commands is disabled in untrusted workspaces/);
    assert.equal(fs.existsSync(marker), false, 'the command did not run');
  });

  it('the history check runs (it only reads); rebuilding or compacting the search index is refused', async () => {
    const report = await vscode.commands.executeCommand<{ ok: boolean }>('scroll.checkHistory', { quiet: true });
    assert.equal(report?.ok, true, JSON.stringify(report));
    assert.equal(await vscode.commands.executeCommand('scroll.rebuildSearchIndex'), undefined);
    assert.equal(await vscode.commands.executeCommand('scroll.compactSearchIndex'), undefined);
  });

  it('the kernel is refused directly and by the restart command', async () => {
    await assert.rejects(api.services.kernels.get('untrusted-probe'), /Python kernel is disabled in untrusted workspaces/);
    assert.equal(await vscode.commands.executeCommand('scroll.restartKernel', 'untrusted-probe').then((r) => r, () => false), false);
    assert.equal(api.services.kernels.state(api.services.sessions.execSession()), 'none');
  });

  describe('@scroll in the Chat view (scripted model)', function () {
    this.timeout(120_000);
    let lm: ScriptedLmApi;

    before(async () => {
      const ext = vscode.extensions.getExtension<ScriptedLmApi>('scroll-test.scripted-lm');
      assert.ok(ext, 'the scripted-lm fixture is loaded in restricted mode');
      lm = await ext.activate();
      lm.reset();
      lm.setScript({ rules: [{ match: '', reply: { text: 'the model was asked' } }] });
      await waitFor('the scripted model', async () => (await vscode.lm.selectChatModels({ vendor: lm.vendor })).length > 0);
    });

    after(() => lm?.reset());

    /** Sends one message through the Chat view, waits for @scroll's answer and returns its text. */
    async function ask(query: string): Promise<string> {
      const before = api.services.sessions.turnsCompleted;
      await vscode.commands.executeCommand('workbench.action.chat.open', { query, modelSelector: { vendor: lm.vendor } });
      await waitFor(`"${query}" to finish`, () => api.services.sessions.turnsCompleted > before, 60_000, 200);
      // The chat's own "Copy All": the transcript as the user sees it; the last reply follows the last "User:".
      await vscode.commands.executeCommand('workbench.action.chat.copyAll');
      const transcript = await vscode.env.clipboard.readText();
      const last = transcript.lastIndexOf(`User: ${query}`);
      assert.ok(last >= 0, `the transcript holds the question:\n${transcript.slice(-600)}`);
      return transcript.slice(last + `User: ${query}`.length);
    }

    it('a question gets the history-only reply: the model is not asked and nothing is logged', async () => {
      const events = api.services.log().stats().events;
      const reply = await ask('@scroll fix the ledger report');
      assert.match(reply, /This workspace is not trusted, so @scroll does not run its agent/);
      assert.match(reply, /History still works: `\/search`, `\/expand` and `\/index`/);
      assert.equal(lm.requests.length, 0, 'the agent did not run');
      assert.equal(api.services.log().stats().events, events);
    });

    it('/search and /expand still answer from the log', async () => {
      const hits = api.search('ledger report').hits;
      assert.ok(hits.length > 0);
      const found = await ask('@scroll /search ledger report');
      assert.doesNotMatch(found, /not trusted|no Scroll history/);
      assert.ok(found.includes(String(hits[0].seq)), `the reply lists seq ${hits[0].seq}:\n${found.slice(0, 600)}`);
      const first = api.get(1)!.content.split('\n')[0].slice(0, 60);
      const expanded = await ask('@scroll /expand 1..2');
      assert.ok(expanded.includes(first), `the reply holds event 1 ("${first}"):\n${expanded.slice(0, 600)}`);
      assert.equal(lm.requests.length, 0, 'slash commands do not call the model');
    });
  });

  // Last: after everything above (nested suites run after the tests of their parent).
  describe('at the end', () => {
    it('the kernel was never started', () => {
      assert.deepEqual(kernelStarts, []);
    });

    it('the log on disk is unchanged (same events, same bytes)', () => {
      assert.deepEqual(snapshotLog(dbPath), initial);
      assert.equal(api.services.log().stats().events, initial.events);
    });
  });
});
