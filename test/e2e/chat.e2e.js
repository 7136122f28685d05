// @scroll in the real Chat view, driven like a user: type `@scroll …`, see the streamed answer with its
// links into the log, allow an edit in the confirmation, open an event tab from a `seq` link, and see the
// working view's figures in the status bar. The model is the scripted fixture.
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Workbench } = require('./workbench');

describe('@scroll in the Chat view (UI)', function () {
  /** @type {Workbench} */
  let wb;
  before(async () => {
    wb = await Workbench.open();
    await wb.useScriptedModel(); // the picker shows no third-party model until one is chosen this way
  });
  after(async () => {
    await wb?.close();
  });

  it('before the first chat the status bar says so in words', async () => {
    const item = wb.page.locator('.part.statusbar [id="scroll-dev.scroll-memory.scroll.status"], .part.statusbar .statusbar-item').filter({ hasText: /Scroll|tokens/ }).first();
    const text = (await item.innerText()).trim();
    assert.match(text, /Scroll · no chat yet/);
    assert.doesNotMatch(text, /—|no kernel/);
  });

  it('answers a question with history search, a seq link and a session footer', async () => {
    wb.setScript({
      turns: [
        { text: 'Let me look at the history. ', toolCalls: [{ name: 'scroll_searchHistory', input: { query: 'EUR total ledger report' } }] },
        { text: ['The October report lost rows whose currency was lower-case (see seq 1). ', 'ANSWER-OK'] },
      ],
    });
    const reply = await wb.sendChat('@scroll why was the October ledger report off?');
    assert.match(reply, /ANSWER-OK/);
    assert.match(reply, /Session chat-\S+ · seq \d+–\d+ logged/);
    const [first, second] = wb.recordedRequests();
    assert.ok(first.tools.some((t) => t.name === 'scroll_exec') && first.tools.some((t) => t.name === 'scroll_editFile'), 'our tools are offered');
    assert.match(JSON.stringify(second.messages), /hit\(s\) for \\"EUR total ledger report\\"/, 'the tool result reached the model');
    await wb.screenshot('chat-answer');
  });

  it('a seq link opens the event in an editor tab', async () => {
    const link = wb.chatResponseRows().last().locator('a', { hasText: /^seq 1$/ }).first();
    await link.click();
    await wb.waitForTab('1.md');
    assert.match(await wb.activeEditorText(), /# Event 1 · user_message/);
  });

  it('an edit waits for the user to allow it, then changes the file', async () => {
    const file = path.join(process.env.SCROLL_E2E_WORKSPACE, 'docs', 'decisions.md');
    const before = fs.readFileSync(file, 'utf8');
    wb.setScript({
      turns: [
        { toolCalls: [{ name: 'scroll_editFile', input: { path: 'docs/decisions.md', oldText: '# Decisions', newText: '# Decisions (reviewed)' } }] },
        { text: 'EDIT-DONE' },
      ],
    });
    // The response waits on the confirmation; it completes once we press Allow.
    const answered = wb.sendChat('@scroll mark the decisions file as reviewed', { timeoutMs: 120000 });
    answered.catch(() => {});
    // The confirmation may sit above the input ("1 confirmation pending"), outside the response row.
    const allow = wb.page.getByRole('button', { name: /^Allow/ }).first();
    await allow.waitFor({ state: 'visible', timeout: 60000 });
    assert.equal(fs.readFileSync(file, 'utf8'), before, 'nothing changes before the user allows it');
    await wb.screenshot('chat-confirmation');
    await allow.click();
    const reply = await answered;
    assert.match(reply, /EDIT-DONE/);
    assert.ok(fs.readFileSync(file, 'utf8').startsWith('# Decisions (reviewed)'));
  });

  it('the status bar shows the working view tokens / budget', async () => {
    const text = await wb.statusBarText();
    assert.match(text, /\d+(\.\d)?k?\/\d+k tokens · Python (not started|\w+)/);
  });
});
