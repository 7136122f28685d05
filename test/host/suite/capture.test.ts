// Capture in the real editor (src/vscode/capture): a Claude Code transcript written into the fake home
// (SCROLL_TEST_CAPTURE_HOME, set by scripts/host/run-host-tests.mjs) while the window is open reaches
// the workspace log within seconds, a line appended later is appended once, and turning the source off
// stops capture and keeps what was captured.
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ScrollApi } from '../../../src/api';
import { scrollApi, scrollChannelText, sleep, waitFor, workspaceRoot } from './helpers';

describe('capture of other agents in the editor', function () {
  this.timeout(120_000);
  let api: ScrollApi;
  let projectDir: string;
  const session = randomUUID();
  const marker = `CAPTURED-${process.pid}-${Date.now()}`;
  const line = (uuid: string, type: 'user' | 'assistant', text: string) =>
    JSON.stringify({
      parentUuid: null, cwd: workspaceRoot(), sessionId: session, version: '2.0.14', type, uuid, timestamp: new Date().toISOString(),
      message: type === 'user' ? { role: 'user', content: text } : { role: 'assistant', model: 'claude-test', content: [{ type: 'text', text }] },
    }) + '\n';
  const events = () => api.services.log().recent(100, `claude-code:${session}`);

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
