// Capture in the real editor (src/vscode/capture): a Claude Code transcript written into the fake home
// (SCROLL_TEST_CAPTURE_HOME, set by scripts/host/run-host-tests.mjs) while the window is open reaches
// the workspace log within seconds, a line appended later is appended once, and turning the source off
// stops capture and keeps what was captured. The captured session is listed by the history panel's
// request handler (the one the panel's webview talks to) with its source, a `scroll:` tab opens for its
// events, and "Search History" filtered by source lists only its hits. The chat session file the editor
// itself writes for an @scroll turn is read through the copilot-chat source, and its @scroll request is
// skipped (Scroll's log has the turn already): the output channel says so.
// The panel's rendering of a source (icon, label, filter) is driven in Chromium by test/e2e/panel.e2e.js.
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ScrollApi } from '../../../src/api';
import type { PanelSession, SearchPage } from '../../../src/shared/panelProtocol';
import { EventLogPanelSource } from '../../../src/vscode/panel/eventLogSource';
import { PanelRequestHandler } from '../../../src/vscode/panel/panelRequestHandler';
import { closeAllEditors, scrollApi, scrollChannelText, sleep, waitFor, workspaceRoot } from './helpers';

interface ScriptedLmApi {
  vendor: string;
  setScript(script: unknown): void;
  reset(): void;
}

/** Runs "Search History" for `query` (with its options) and accepts the first item; the tab it opened. */
async function searchHistoryOpens(query: string, options?: { source?: string }): Promise<vscode.Uri> {
  await closeAllEditors();
  // The chat view may take focus back and close a QuickPick: put it away first.
  await vscode.commands.executeCommand('workbench.action.closeAuxiliaryBar').then(undefined, () => undefined);
  await vscode.commands.executeCommand('workbench.action.focusActiveEditorGroup');
  let running: Thenable<unknown> | undefined;
  let finished = true;
  await waitFor('a hit to open from the Search History quick pick', async () => {
    if (finished) {
      finished = false;
      running = vscode.commands.executeCommand('scroll.searchHistory', query, options);
      running.then(() => (finished = true), () => (finished = true));
      await sleep(300);
    }
    await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
    return vscode.window.activeTextEditor?.document.uri.scheme === 'scroll' || undefined;
  }, 30_000, 250);
  await running;
  return vscode.window.activeTextEditor!.document.uri;
}

/** Letters only: one search term (a word with digits or dashes may be split into several). */
function oneWord(): string {
  return [...randomUUID().replace(/-/g, '').slice(0, 12)].map((c) => String.fromCharCode(97 + parseInt(c, 16))).join('');
}

const seqOfTab = (uri: vscode.Uri) => Number(/^\/event\/(\d+)\//.exec(uri.path)?.[1]);

describe('capture of other agents in the editor', function () {
  this.timeout(120_000);
  let api: ScrollApi;
  let projectDir: string;
  const session = randomUUID();
  const marker = `captured${oneWord()}`;
  const ownWord = `own${oneWord()}`;
  const line = (uuid: string, type: 'user' | 'assistant', text: string) =>
    JSON.stringify({
      parentUuid: null, cwd: workspaceRoot(), sessionId: session, version: '2.0.14', type, uuid, timestamp: new Date().toISOString(),
      message: type === 'user' ? { role: 'user', content: text } : { role: 'assistant', model: 'claude-test', content: [{ type: 'text', text }] },
    }) + '\n';
  const events = () => api.services.log().recent(100, `claude-code:${session}`);
  let ownNoteSeq: number | undefined;
  /** An event of Scroll's own with the captured word and one more (appended once, by the first test that needs it). */
  const ownNote = () => (ownNoteSeq ??= api.services.log().append({ kind: 'note', role: 'user', session: 'capture-display', content: `${marker} ${ownWord}` }).seq);

  before(async () => {
    api = await scrollApi();
    const home = process.env.SCROLL_TEST_CAPTURE_HOME;
    assert.ok(home, 'the harness sets SCROLL_TEST_CAPTURE_HOME');
    // How Claude Code names a project's folder: its cwd with every non-alphanumeric character as "-".
    projectDir = path.join(home, '.claude', 'projects', workspaceRoot().replace(/[^A-Za-z0-9]/g, '-'));
    fs.mkdirSync(projectDir, { recursive: true });
    await vscode.workspace.getConfiguration('scroll').update('capture.sources', { 'claude-code': true }, vscode.ConfigurationTarget.Global);
    await waitFor('capture to follow claude-code', () => /capture: claude-code: following/.test(scrollChannelText()), 20_000, 200);
  });

  after(async () => {
    await vscode.workspace.getConfiguration('scroll').update('capture.sources', undefined, vscode.ConfigurationTarget.Global);
  });

  it('imports a transcript written while the window is open, then appends a later line once', async () => {
    const file = path.join(projectDir, `${session}.jsonl`);
    const t0 = Date.now();
    fs.writeFileSync(file, line('u-1', 'user', `question ${marker}`) + line('a-1', 'assistant', `answer ${marker}`));
    await waitFor('the session in the log', () => events().length === 2, 10_000, 100);
    const firstMs = Date.now() - t0;
    assert.deepEqual(events().map((e) => [e.kind, e.content]), [['user_message', `question ${marker}`], ['model_turn', `answer ${marker}`]]);
    assert.equal(events()[0].meta?.source, 'claude-code');

    const t1 = Date.now();
    fs.appendFileSync(file, line('a-2', 'assistant', `later ${marker}`));
    await waitFor('the appended line in the log', () => events().length === 3, 10_000, 100);
    const appendMs = Date.now() - t1;
    await sleep(4000); // a watcher event and a poll later: still once
    assert.deepEqual(events().map((e) => e.content), [`question ${marker}`, `answer ${marker}`, `later ${marker}`]);
    assert.ok(firstMs < 5000 && appendMs < 5000, `within 5 s of the change (first ${firstMs} ms, append ${appendMs} ms)`);
    console.log(`capture: transcript in the log ${firstMs} ms after it was written, appended line ${appendMs} ms after`);

    const channel = scrollChannelText();
    assert.match(channel, /capture: claude-code: \d+ event\(s\) appended \(1 session\(s\)/);
    assert.ok(!channel.includes(marker), 'no transcript content in the output channel');
  });

  it('the panel lists the captured session with its source, and its search filters by source', async () => {
    assert.equal(events().length, 3, 'the first test captured the session');
    const handler = new PanelRequestHandler(EventLogPanelSource.open(api.services.log()));
    const ask = async <T>(msg: Record<string, unknown>): Promise<T> => {
      const res = await handler.handleMessage({ id: 1, ...msg });
      if (!res?.ok) assert.fail(`panel request failed: ${res && !res.ok ? res.error : 'no answer'}`);
      return res.result as T;
    };
    const sessions = await ask<PanelSession[]>({ type: 'sessions' });
    const listed = sessions.find((s) => s.session === `claude-code:${session}`);
    assert.ok(listed, 'the Sessions tab lists the captured session');
    assert.equal(listed.source, 'claude-code');
    assert.equal(listed.events, 3);
    assert.ok(sessions.filter((s) => s !== listed).every((s) => s.source === undefined), "Scroll's own sessions have no source");
    ownNote();
    const all = await ask<SearchPage>({ type: 'search', query: marker, filters: {}, offset: 0, limit: 40 });
    const matches = (p: SearchPage) => p.hits.filter((h) => !h.broadened);
    assert.equal(matches(all).length, 4);
    const filtered = await ask<SearchPage>({ type: 'search', query: marker, filters: { source: 'claude-code' }, offset: 0, limit: 40 });
    assert.equal(matches(filtered).length, 3);
    assert.ok(filtered.hits.every((h) => h.source === 'claude-code' && h.session === `claude-code:${session}`), 'only the captured hits, each with its source');
  });

  it('a scroll: tab opens for a captured event, from the command and from the panel', async () => {
    const [first, second] = events();
    await closeAllEditors();
    await vscode.commands.executeCommand('scroll.openEvent', first.seq);
    const doc = vscode.window.activeTextEditor!.document;
    assert.equal(doc.uri.scheme, 'scroll');
    assert.equal(seqOfTab(doc.uri), first.seq);
    assert.ok(doc.getText().includes(`question ${marker}`), 'the tab shows the captured content');
    assert.ok(doc.getText().includes('"source": "claude-code"'), "the tab's meta names the source");
    // The panel's "Open in editor" goes through its handler to vscode.open, as the panel host does.
    const handler = new PanelRequestHandler(EventLogPanelSource.open(api.services.log()), {
      openUri: async (uri) => {
        await vscode.commands.executeCommand('vscode.open', vscode.Uri.parse(uri));
      },
    });
    const res = await handler.handleMessage({ id: 2, type: 'open', target: { kind: 'event', seq: second.seq } });
    assert.ok(res?.ok, 'open answered');
    await waitFor('the panel-opened tab', () => seqOfTab(vscode.window.activeTextEditor?.document.uri ?? vscode.Uri.parse('x:/')) === second.seq);
    assert.ok(vscode.window.activeTextEditor!.document.getText().includes(`answer ${marker}`));
    await closeAllEditors();
  });

  it('"Search History" filtered by source lists only that agent\'s hits', async () => {
    // Both words: Scroll's own note matches every one and leads; the captured events match one.
    ownNote();
    const query = `${marker} ${ownWord}`;
    const own = api.search(query, { k: 5 }).hits[0];
    assert.equal(own.session, 'capture-display', "unfiltered, Scroll's own note ranks first");
    assert.equal(seqOfTab(await searchHistoryOpens(query)), own.seq, 'without a filter the quick pick opens it');
    const opened = seqOfTab(await searchHistoryOpens(query, { source: 'claude-code' }));
    assert.ok(events().some((e) => e.seq === opened), `the filtered quick pick opens a captured event (opened seq ${opened})`);
    await closeAllEditors();
  });

  it("reads the editor's own chat session file of an @scroll turn and skips the turn: it is in the log once, as Scroll's own", async () => {
    const lm = await vscode.extensions.getExtension<ScriptedLmApi>('scroll-test.scripted-lm')!.activate();
    const word = `chatfile${oneWord()}`;
    lm.reset();
    lm.setScript({ rules: [{ match: word, reply: { text: `Noted ${word}, nothing to do.` } }] });
    await waitFor('the scripted model', async () => (await vscode.lm.selectChatModels({ vendor: lm.vendor })).length > 0);
    const before = api.services.sessions.turnsCompleted;
    await vscode.commands.executeCommand('workbench.action.chat.open', { query: `@scroll remember ${word}`, modelSelector: { vendor: lm.vendor } });
    await waitFor('@scroll to answer', () => api.services.sessions.turnsCompleted > before, 120_000, 200);
    await vscode.workspace.getConfiguration('scroll').update('capture.sources', { 'claude-code': true, 'copilot-chat': true }, vscode.ConfigurationTarget.Global);
    // The editor writes its chat session files as the chat goes; capture reads them like any source's,
    // and leaves out the requests Scroll's own participant answered, saying why.
    await waitFor("the @scroll request skipped", () => /capture: copilot-chat: skipped \d+ record\(s\): requests answered by Scroll's own @scroll participant \(scroll\.agent\)/.test(scrollChannelText()), 60_000, 500);
    // Scroll's own record of the turn is there, under its own session and without a source.
    assert.ok(api.search(word, { k: 20 }).hits.some((x) => !x.session.startsWith('copilot-chat:')), "Scroll's own events of the turn");
    await sleep(4000); // a poll later: still not a second time
    assert.deepEqual(api.search(word, { k: 20, source: 'copilot-chat' }).hits.map((h) => h.seq), [], 'the turn is not captured a second time');
    lm.reset();
    // A new chat, so the next test file's first @scroll message does not continue this chat's session.
    await vscode.commands.executeCommand('workbench.action.chat.newChat');
  });

  it('turning the source off stops capture and keeps what was captured', async () => {
    const file = path.join(projectDir, `${session}.jsonl`);
    const before = events().length;
    assert.ok(before >= 3, 'the first test captured the session');
    await vscode.workspace.getConfiguration('scroll').update('capture.sources', { 'claude-code': false }, vscode.ConfigurationTarget.Global);
    await waitFor('capture to stop', () => /capture: claude-code: stopped/.test(scrollChannelText()), 10_000, 200);
    fs.appendFileSync(file, line('a-3', 'assistant', `after off ${marker}`));
    await sleep(5000);
    assert.equal(events().length, before, 'nothing appended after the source was turned off, nothing removed');
  });
});
