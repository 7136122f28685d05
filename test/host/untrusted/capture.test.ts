// Capture (src/vscode/capture) in an UNTRUSTED workspace: off. A Claude Code transcript of the workspace in
// the fake home (SCROLL_TEST_CAPTURE_HOME) is not read, even with the user's setting capturing claude-code.
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { scrollApi, scrollChannelText, sleep, workspaceRoot } from '../suite/helpers';

describe('capture in an untrusted workspace', function () {
  this.timeout(60_000);

  after(async () => {
    await vscode.workspace.getConfiguration('scroll').update('capture.sources', undefined, vscode.ConfigurationTarget.Global);
  });

  it('reads no transcript and says capture is off', async () => {
    assert.equal(vscode.workspace.isTrusted, false);
    const api = await scrollApi();
    const home = process.env.SCROLL_TEST_CAPTURE_HOME;
    assert.ok(home, 'the harness sets SCROLL_TEST_CAPTURE_HOME');
    const dir = path.join(home, '.claude', 'projects', workspaceRoot().replace(/[^A-Za-z0-9]/g, '-'));
    fs.mkdirSync(dir, { recursive: true });
    const session = randomUUID();
    fs.writeFileSync(path.join(dir, `${session}.jsonl`), JSON.stringify({
      parentUuid: null, cwd: workspaceRoot(), sessionId: session, version: '2.0.14', type: 'user', uuid: 'u-1',
      timestamp: new Date().toISOString(), message: { role: 'user', content: 'not to be captured' },
    }) + '\n');
    await vscode.workspace.getConfiguration('scroll').update('capture.sources', { 'claude-code': true }, vscode.ConfigurationTarget.Global);
    await sleep(6000); // past the start delay and a poll
    assert.match(scrollChannelText(), /capture: off \(the workspace is not trusted\)/);
    const log = api.services.existingLog();
    assert.equal(log?.recent(10, `claude-code:${session}`).length ?? 0, 0, 'nothing captured');
  });
});
