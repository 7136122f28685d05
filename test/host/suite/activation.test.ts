// Runs first (file order): activation is lazy and cheap — nothing opened until used.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { scrollApi, scrollId } from './helpers';

describe('Scroll activation', () => {
  // The 30 ms target is measured by bench/activation.bench.mjs (timed tests are flaky on a shared machine).
  it('activates without opening the database', async () => {
    const api = await scrollApi();
    assert.ok(vscode.extensions.getExtension(scrollId)!.isActive);
    assert.equal(api.services.logIsOpen, false, 'no database opened at start-up');
    console.log(`[scroll] activate() took ${api.services.activationMs.toFixed(2)} ms in this host`);
  });

  it('contributes its commands, tools and participant', async () => {
    const commands = await vscode.commands.getCommands(true);
    for (const c of ['scroll.searchHistory', 'scroll.openEvent', 'scroll.openHistoryPanel', 'scroll.showEvictionIndex', 'scroll.restartKernel', 'scroll.exportSession', 'scroll.revealLogFolder', 'scroll.checkHistory', 'scroll.rebuildSearchIndex', 'scroll.setOpenAIKey']) {
      assert.ok(commands.includes(c), `command ${c}`);
    }
    const tools = vscode.lm.tools.map((t) => t.name);
    for (const t of ['scroll_searchHistory', 'scroll_expandEvent', 'scroll_readFile', 'scroll_listFiles', 'scroll_searchText', 'scroll_editFile', 'scroll_runCommand', 'scroll_exec']) {
      assert.ok(tools.includes(t), `tool ${t} (have ${tools.join(', ')})`);
    }
    const history = vscode.lm.tools.find((t) => t.name === 'scroll_searchHistory')!;
    assert.ok(history.inputSchema, 'tool schema');
  });

  it('the OpenAI-compatible provider is off until configured', async () => {
    const models = await vscode.lm.selectChatModels({ vendor: 'scroll' });
    assert.equal(models.length, 0);
  });
});
