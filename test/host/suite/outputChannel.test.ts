// The "Scroll" output channel tells what the extension did, for a user to send with a problem:
// activation, the log opened, a kernel started with its backend and sandbox mode, settings changes,
// the history check; never the content of a cell or its output.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ScrollApi } from '../../../src/api';
import { scrollApi, scrollChannelText, toolText, waitFor } from './helpers';

describe('the "Scroll" output channel', function () {
  this.timeout(120_000);
  let api: ScrollApi;
  const marker = `CHANNEL-SECRET-${process.pid}-${Date.now()}`;

  before(async () => {
    api = await scrollApi();
  });

  after(async () => {
    await vscode.workspace.getConfiguration('scroll').update('view.maxTokens', undefined, vscode.ConfigurationTarget.Global);
  });

  it('logs activation, the log, a kernel start with its sandbox, a settings change and the history check; no content', async () => {
    const log = api.services.logs.log();
    const session = api.services.sessions.execSession();
    const r = await vscode.lm.invokeTool('scroll_exec', { input: { code: `print(${JSON.stringify(marker)})` }, toolInvocationToken: undefined });
    assert.match(toolText(r), new RegExp(marker), 'the cell ran');
    await vscode.workspace.getConfiguration('scroll').update('view.maxTokens', 4321, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('scroll.checkHistory', { quiet: true });

    const expected: Array<[string, RegExp]> = [
      ['activation', /\[info\] Scroll \S+ activated in [\d.]+ ms \(VS Code [\d.]+/],
      ['the log', new RegExp(`\\[info\\] log opened: ${escape(log.path)} \\((better-sqlite3|node:sqlite); events up to seq \\d+; redaction on; \\d+ ms\\)`)],
      ['the kernel start', new RegExp(`\\[info\\] kernel of session ${escape(session)}: starting \\(scroll\\.kernel\\.backend: \\w+; sandboxed \\(bubblewrap`)],
      ['the kernel started', new RegExp(`\\[info\\] kernel of session ${escape(session)} started in \\d+ ms: Scroll's own process, sandboxed`)],
      ['the settings change', /\[info\] setting changed: scroll\.view\.maxTokens: 0 → 4321/],
      ['the history check', /\[info\] history check: intact \(/],
    ];
    await waitFor('every line in the channel', () => expected.every(([, re]) => re.test(scrollChannelText())), 20_000, 200);
    const text = scrollChannelText();
    for (const [what, re] of expected) assert.match(text, re, what);
    assert.ok(!text.includes(marker), 'the cell and its output are not in the channel');
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
