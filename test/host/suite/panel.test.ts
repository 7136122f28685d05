// The history panel in the real extension host: the command opens one panel (a webview tab of view
// type scroll.history), a second call reuses it, and closing it lets the command open a new one.
// What happens inside the webview is driven in Chromium by test/e2e/panel.e2e.js.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { PANEL_VIEW_TYPE } from '../../../src/shared/panelProtocol';
import { closeAllEditors, scrollApi, waitFor } from './helpers';

function panelTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith(PANEL_VIEW_TYPE));
}

describe('History panel host', () => {
  before(async () => {
    await scrollApi();
  });
  after(closeAllEditors);

  it('opens one panel, reuses it, and opens a new one after it was closed', async () => {
    await closeAllEditors();
    const open = await vscode.commands.executeCommand<boolean>('scroll.openHistoryPanel');
    assert.equal(open, true);
    await waitFor('the panel tab', () => panelTabs().length === 1);
    assert.equal(panelTabs()[0].label, 'Scroll History');
    await vscode.commands.executeCommand('scroll.openHistoryPanel', { query: 'retry cap' });
    assert.equal(panelTabs().length, 1, 'the same panel is revealed, not a second one');
    await vscode.window.tabGroups.close(panelTabs());
    await waitFor('the panel to close', () => panelTabs().length === 0);
    assert.equal(await vscode.commands.executeCommand<boolean>('scroll.openHistoryPanel', { session: 'nope' }), true);
    await waitFor('a new panel', () => panelTabs().length === 1);
  });
});
