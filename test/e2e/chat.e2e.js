// @scroll in the real Chat view, driven like a user: type `@scroll …`, see the streamed answer with its
// links into the log, allow an edit in the confirmation, open an event tab from a `seq` link, and see the
// working view's figures in the status bar. The model is the scripted fixture.
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Workbench, waitFor } = require('./workbench');

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
    // Scroll activates on its first use; a command that shows nothing in chat starts it.
    await wb.runCommand('Scroll: Reveal Log Folder');
    const text = await waitFor(async () => {
      const t = (await wb.statusBarText()).replace(/\s+/g, ' ');
      return /Scroll · |tokens · /.test(t) && t;
    }, { what: "Scroll's status bar item" });
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
    const link = wb.sentChatResponse().locator('a', { hasText: /^seq 1$/ }).first();
    await link.click();
    await wb.waitForTab('seq 1 · user message'); // a tab titled by what it shows (issue 20), not "1.md"
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

  /** Layout problems of the last response: code blocks, and elements wider than the box they are in. */
  const layoutOf = () =>
    wb.sentChatResponse().evaluate((row) => {
      const overflowing = [...row.querySelectorAll('*')]
        .filter((el) => el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible')
        .map((el) => `${el.tagName.toLowerCase()}.${el.className}`.slice(0, 80));
      return { width: row.clientWidth, codeBlocks: row.querySelectorAll('pre').length, overflowing };
    });

  it('/search is readable in the narrow chat view: text first, one short line per hit, compact times', async () => {
    const reply = await wb.sendChat('@scroll /search retry cap');
    const layout = await layoutOf();
    await wb.screenshot('chat-search-narrow');
    assert.ok(layout.width <= 450, `the chat view is narrow in this layout (${layout.width} px)`);
    assert.match(reply, /hits? for retry cap/);
    assert.doesNotMatch(reply, /\d{4}-\d\d-\d\dT\d\d/, 'no ISO timestamps');
    assert.equal(layout.codeBlocks, 0);
    assert.deepEqual(layout.overflowing, [], 'nothing wider than the chat view');
    // The hit's metadata is one short line: "seq N · kind · time".
    assert.match(reply, /seq \d+ · [a-z ]+ · (just now|\d+ (min|h|d) ago|[A-Z][a-z]{2} \d{1,2}|\d{4}-\d\d-\d\d)/);
  });

  it('/expand shows the text as wrapping text, no code block cut off, then one metadata line', async () => {
    const reply = await wb.sendChat('@scroll /expand 1..3');
    const layout = await layoutOf();
    await wb.screenshot('chat-expand-narrow');
    assert.equal(layout.codeBlocks, 0, 'no non-wrapping code blocks');
    assert.deepEqual(layout.overflowing, [], 'nothing wider than the chat view');
    assert.match(reply, /seq 1 · user message · /);
    assert.doesNotMatch(reply, /\*\*kind:\*\*|^- kind:/m, 'no bullet list of metadata');
  });

  it('/index in a session with nothing evicted lists the sessions that have an index', async () => {
    const reply = await wb.sendChat('@scroll /index');
    assert.match(reply, /Nothing has been evicted from this session's working view yet/);
    assert.match(reply, /Sessions with an eviction index:/);
    assert.match(reply, /\S+: \d+ evictions?/);
  });

  it('a plain question to the scripted test model, nothing scripted, says it is a test model and how to set up a real one', async () => {
    wb.setScript([]);
    const reply = await wb.sendChat('@scroll what does this project do?');
    assert.match(reply, /scripted test model/i);
    assert.match(reply, /scroll\.openai\.baseUrl/);
    assert.match(reply, /scroll\.openai\.model/);
    assert.match(reply, /model Scripted test model/, 'the footer names the model that answered');
  });
});
