// Smoke test of the e2e harness itself: the workbench loads with Scroll installed, the command palette,
// editor tabs, chat (through the scripted model) and webview frames can all be driven and read.
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Workbench } = require('./workbench');

const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));

describe('e2e harness (real workbench in Chromium)', function () {
  /** @type {Workbench} */
  let wb;
  before(async () => {
    wb = await Workbench.open({ fresh: true }); // its own copy: other tests edit files of the shared one
  });
  after(async () => {
    await wb?.close();
  });

  it('lists every command Scroll contributes in the command palette', async () => {
    const contributed = (manifest.contributes.commands || [])
      .filter((c) => !(manifest.contributes.menus?.commandPalette || []).some((m) => m.command === c.command && m.when === 'false'))
      .map((c) => `${c.category ? `${c.category}: ` : ''}${c.title}`);
    assert.ok(contributed.length, 'package.json contributes commands');
    const missing = [];
    for (const title of contributed) if (!(await wb.paletteHas(title))) missing.push(title);
    assert.deepEqual(missing, [], 'every contributed command is in the palette');
  });

  it('opens a workspace file in an editor tab and reads it', async () => {
    await wb.openFile('docs/decisions.md');
    assert.ok((await wb.editorTabs()).includes('decisions.md'));
    assert.match(await wb.activeEditorText(), /Retry cap raised from 8 s to 30 s/);
  });

  it('finds a webview frame and reads its content (Markdown preview)', async () => {
    await wb.runCommand('Markdown: Open Preview');
    const frame = await wb.webviewFrame({ extensionId: 'vscode.markdown-language-features', hasSelector: 'h1' });
    assert.equal((await frame.locator('h1').first().innerText()).trim(), 'Decisions');
  });

  it('sends a chat message to a participant and reads the scripted model reply', async () => {
    await wb.useScriptedModel();
    wb.setScript({ turns: [{ text: ['Scripted reply: ', 'the retry cap is **30 s**.'] }] });
    const reply = await wb.sendChat('@scripted what is the retry cap?');
    assert.match(reply, /Scripted reply: the retry cap is 30 s\./);
    const [request] = wb.recordedRequests();
    assert.ok(request, 'the scripted model received the request');
    assert.equal(request.messages.at(-1).text, 'what is the retry cap?');
    assert.equal(request.source, 'turn');
  });

  it('reads each reply of a long chat, also after older responses left the list (virtualized)', async () => {
    // Two short replies both in view, then one taller than the view: it pushes the older ones out of
    // the list's DOM, so there are fewer response rows than before it came.
    const long = (i) => `Reply ${i}:\n\n` + Array.from({ length: 60 }, (_, k) => `- line ${k} of reply ${i}`).join('\n');
    const replies = ['Reply 1: short.', 'Reply 2: short.', long(3), long(4)];
    wb.setScript({ turns: replies.map((text) => ({ text })) });
    for (const [n, text] of replies.entries()) {
      const reply = await wb.sendChat(`@scripted reply number ${n + 1}`, { timeoutMs: 30000 });
      assert.match(reply, new RegExp(text.split('\n').at(-1).replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/^- /, '')));
    }
  });

  it('keeps a screenshot on request', async () => {
    const file = await wb.screenshot('harness-smoke');
    assert.ok(fs.statSync(file).size > 10000, `${file} holds a real screenshot`);
  });
});
