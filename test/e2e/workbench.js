// Playwright driver of the real workbench (code-server in headless Chromium), for UI end-to-end tests.
// Tests run under mocha started by scripts/host/run-e2e.mjs, which starts code-server with Scroll and the
// fixture extensions installed and passes the environment below. Plain JavaScript: playwright-core lives
// in the harness cache, not in node_modules, and nothing here needs compiling.
//
//   const { Workbench } = require('./workbench');
//   const wb = await Workbench.open();                 // loads the workbench on the seeded sample workspace
//   await wb.runCommand('Scroll: Search History');     // command palette, by title
//   await wb.setScript([{ text: 'hi' }]);              // the scripted model's next replies
//   const reply = await wb.sendChat('@scroll /search retry cap');   // text of the finished response
//   const frame = await wb.webviewFrame({ extensionId: 'scroll-dev.scroll-memory' });
//   await wb.close();
//
// Every wait is on a condition with a deadline; a failing test's open workbenches are screenshotted into
// test-results/e2e/ by the root hook in hooks.js.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { createRequire } = require('module');

const repoRoot = path.resolve(__dirname, '..', '..');
const cacheDir = process.env.SCROLL_DEV_CACHE || path.join(os.homedir(), '.cache', 'scroll-dev');

/** What run-e2e.mjs passes; a clear error when a test file is run some other way. */
function e2eEnv() {
  const url = process.env.SCROLL_E2E_URL;
  if (!url) {
    throw new Error('SCROLL_E2E_URL is not set: run e2e tests through `node scripts/host/run-e2e.mjs [file-filter]`');
  }
  return {
    url,
    workspace: process.env.SCROLL_E2E_WORKSPACE,
    workspaceTemplate: process.env.SCROLL_E2E_WORKSPACE_TEMPLATE,
    resultsDir: process.env.SCROLL_E2E_RESULTS || path.join(repoRoot, 'test-results', 'e2e'),
    scriptedLmDir: process.env.SCROLL_SCRIPTED_LM_DIR,
    playwrightCore: process.env.SCROLL_PLAYWRIGHT || path.join(cacheDir, 'playwright', 'node_modules', 'playwright-core'),
    chromium: process.env.SCROLL_CHROMIUM || '/usr/bin/chromium',
  };
}

const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage',
];

/** A new copy of the run's pristine seeded sample workspace. */
function freshWorkspace(env) {
  if (!env.workspaceTemplate) throw new Error('SCROLL_E2E_WORKSPACE_TEMPLATE is not set: run e2e tests through scripts/host/run-e2e.mjs');
  const dir = fs.mkdtempSync(path.join(path.dirname(env.workspaceTemplate), 'workspace-'));
  fs.cpSync(env.workspaceTemplate, dir, { recursive: true });
  return dir;
}

/** Workbenches still open, for the failure screenshots of hooks.js. */
const openWorkbenches = new Set();

async function waitFor(check, { timeoutMs = 30000, intervalMs = 100, what = 'condition' } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    last = await check();
    if (last) return last;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

function safeName(s) {
  return s.replace(/[^\w.-]+/g, '_').slice(0, 120);
}

class Workbench {
  /**
   * Launches Chromium and loads the workbench on `folder` (default: the seeded sample workspace this run's
   * tests share). `fresh: true` opens a new seeded copy of its own instead (`wb.folder` says where), for a
   * test that must not see what other tests changed. Resolves once the workbench is rendered and
   * extensions have finished activating at start-up.
   */
  static async open({ folder, fresh = false, viewport = { width: 1400, height: 900 }, timeoutMs = 120000 } = {}) {
    const env = e2eEnv();
    const { chromium } = createRequire(path.join(env.playwrightCore, 'package.json'))('playwright-core');
    const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'scroll-e2e-chromium-'));
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: env.chromium,
      headless: true,
      viewport,
      args: CHROMIUM_ARGS,
    });
    const page = context.pages()[0] || (await context.newPage());
    const wb = new Workbench(env, context, page, profile);
    openWorkbenches.add(wb);
    page.on('pageerror', (e) => wb.pageErrors.push(String(e)));
    const target = folder || (fresh ? freshWorkspace(env) : env.workspace);
    wb.folder = target;
    try {
      await page.goto(`${env.url}/?folder=${encodeURIComponent(target)}`, { waitUntil: 'domcontentloaded' });
      await page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout: timeoutMs });
      await page.locator('.monaco-workbench .explorer-folders-view, .monaco-workbench .part.sidebar').first().waitFor({ timeout: timeoutMs });
      await wb.waitForExtensionsActivated(timeoutMs);
    } catch (e) {
      // A failure here is usually in a `before` hook, which the per-test screenshot hook never sees.
      const shot = await wb.screenshot(`FAILED opening the workbench ${new Date().toISOString()}`).catch(() => null);
      await wb.close();
      throw new Error(`the workbench did not load: ${e.message}${shot ? ` (screenshot: ${shot})` : ''}`);
    }
    return wb;
  }

  constructor(env, context, page, profile) {
    this.env = env;
    this.context = context;
    /** The Playwright Page of the workbench: use it directly for anything this class lacks. */
    this.page = page;
    this.profile = profile;
    this.pageErrors = [];
  }

  /** Waits until the status bar no longer shows extensions activating. */
  async waitForExtensionsActivated(timeoutMs = 60000) {
    await waitFor(
      async () => !(await this.page.locator('.part.statusbar').innerText().catch(() => '')).includes('Activating Extensions'),
      { timeoutMs, what: 'extensions to finish activating' },
    );
  }

  /** Moves keyboard focus into the workbench without triggering anything (the empty editor area). */
  async focusWorkbench() {
    await this.page.locator('.monaco-workbench').focus().catch(() => {});
    if (!(await this.page.evaluate(() => !!document.activeElement && document.activeElement !== document.body))) {
      await this.page.locator('.part.editor').click({ position: { x: 20, y: 20 } }).catch(() => {});
    }
  }

  // ------------------------------------------------------------ command palette and quick input

  /** Opens the command palette (F1). */
  async openPalette() {
    await this.focusWorkbench();
    await this.page.keyboard.press('F1');
    await this.quickInput().waitFor({ state: 'visible', timeout: 30000 });
  }

  quickInput() {
    return this.page.locator('.quick-input-widget');
  }

  /** Labels of the rows the quick input currently shows. */
  async quickPickItems() {
    return this.page.locator('.quick-input-widget .quick-input-list .monaco-list-row').evaluateAll((rows) =>
      rows.map((r) => (r.getAttribute('aria-label') || r.textContent || '').trim()),
    );
  }

  /** Types into the visible quick input (palette, QuickPick or InputBox). */
  async typeInQuickInput(text, { clear = false } = {}) {
    const input = this.page.locator('.quick-input-widget .quick-input-box input');
    if (clear) await input.fill('');
    await input.pressSequentially(text, { delay: 10 });
  }

  /** Waits for a quick pick row whose label matches, and picks it with Enter. */
  async pickQuickItem(match, { timeoutMs = 60000 } = {}) {
    const test = typeof match === 'string' ? (l) => l.includes(match) : (l) => match.test(l);
    const index = await waitFor(
      async () => {
        const labels = await this.quickPickItems();
        const i = labels.findIndex(test);
        return i >= 0 ? i + 1 : 0;
      },
      { timeoutMs, what: `a quick pick item matching ${match}` },
    );
    await this.page.locator('.quick-input-widget .quick-input-list .monaco-list-row').nth(index - 1).click();
  }

  /**
   * Opens the palette, types `title` and waits for a row whose label is `title` (or contains it). The
   * palette lists what is registered when it opens, and the extensions' contributions arrive once the
   * extension host is up, so a miss closes and reopens it until `timeoutMs`. Returns the row's index or -1
   * (palette left open either way).
   */
  async findInPalette(title, { timeoutMs = 90000 } = {}) {
    const deadline = Date.now() + timeoutMs;
    const norm = (s) => s.replace(/\s+/g, ' ').trim();
    for (;;) {
      await this.openPalette();
      await this.typeInQuickInput(title);
      const attemptEnd = Math.min(deadline, Date.now() + 5000);
      do {
        const labels = (await this.quickPickItems()).map(norm);
        const exact = labels.findIndex((l) => l === title || l.startsWith(`${title},`));
        const i = exact >= 0 ? exact : labels.findIndex((l) => l.includes(title));
        if (i >= 0) return i;
        await new Promise((r) => setTimeout(r, 100));
      } while (Date.now() < attemptEnd);
      if (Date.now() >= deadline) return -1;
      await this.page.keyboard.press('Escape');
    }
  }

  /** Whether the command palette offers a command with this title ("Scroll: Search History"). */
  async paletteHas(title, { timeoutMs = 90000 } = {}) {
    const i = await this.findInPalette(title, { timeoutMs });
    await this.page.keyboard.press('Escape');
    return i >= 0;
  }

  /**
   * Runs a command from the palette by its title as the palette shows it ("Scroll: Search History").
   * Resolves when the palette has closed (the command may go on to open its own quick input).
   */
  async runCommand(title, { timeoutMs = 90000 } = {}) {
    const i = await this.findInPalette(title, { timeoutMs });
    if (i < 0) {
      const shown = await this.quickPickItems();
      await this.page.keyboard.press('Escape');
      throw new Error(`"${title}" is not in the command palette after ${timeoutMs} ms; it showed: ${JSON.stringify(shown.slice(0, 10))}`);
    }
    await this.page.locator('.quick-input-widget .quick-input-list .monaco-list-row').nth(i).click();
    // The palette itself closes; a command may immediately reopen the widget with its own quick pick.
    await waitFor(
      async () => {
        if (!(await this.quickInput().isVisible())) return true;
        const value = await this.page.locator('.quick-input-widget .quick-input-box input').inputValue().catch(() => '');
        return !value.startsWith('>');
      },
      { timeoutMs: 15000, what: `the palette to close after "${title}"` },
    );
  }

  // ------------------------------------------------------------ editors, files, notifications

  /** Opens a workspace file through Quick Open (Ctrl+P) and waits for its tab. */
  async openFile(relativePath) {
    await this.focusWorkbench();
    await this.page.keyboard.press('Control+P');
    await this.quickInput().waitFor({ state: 'visible', timeout: 30000 });
    await this.typeInQuickInput(relativePath);
    // File search runs on the server (ripgrep); the first one after start-up can take a while.
    await this.pickQuickItem(path.basename(relativePath), { timeoutMs: 60000 });
    await this.waitForTab(path.basename(relativePath));
    // The tab shows before Monaco renders the file's lines: a read right after it can find no line yet.
    await this.page.locator('.editor-group-container.active .monaco-editor .view-lines .view-line').first().waitFor({ state: 'attached', timeout: 30000 });
  }

  /** Titles of the open editor tabs, left to right. */
  async editorTabs() {
    return this.page.locator('.tabs-container .tab').evaluateAll((tabs) =>
      // aria-label is the full title ("decisions.md"); .label-name alone drops the suffix (".md").
      tabs.map((t) => (t.getAttribute('aria-label') || t.querySelector('.monaco-icon-label-container')?.textContent || '').trim()),
    );
  }

  async waitForTab(match, { timeoutMs = 60000 } = {}) {
    const test = typeof match === 'string' ? (t) => t.includes(match) : (t) => match.test(t);
    return waitFor(async () => (await this.editorTabs()).find(test), { timeoutMs, what: `an editor tab matching ${match}` });
  }

  /** Visible text of the active text editor (Monaco renders only the lines in view). */
  async activeEditorText() {
    const lines = this.page.locator('.editor-group-container.active .monaco-editor .view-lines').first();
    return (await lines.innerText()).replace(/\u00a0/g, ' ');
  }

  /** Texts of the notification toasts currently shown. */
  async notifications() {
    return this.page.locator('.notifications-toasts .notification-toast').allInnerTexts();
  }

  async statusBarText() {
    return this.page.locator('.part.statusbar').innerText();
  }

  // ------------------------------------------------------------ chat

  /** Opens the Chat view and waits for its input. */
  async openChat() {
    const input = this.page.locator('.interactive-input-part .monaco-editor').first();
    if (!(await input.isVisible().catch(() => false))) await this.runCommand('Chat: Open Chat');
    await input.waitFor({ state: 'visible', timeout: 60000 });
    return input;
  }

  /** The model the chat input's picker shows ("Models" when none is selected). */
  async chatModelName() {
    const text = await this.page.locator('.interactive-input-part').first().innerText().catch(() => '');
    const picker = await this.page
      .locator('.interactive-input-part .model-picker-split, .interactive-input-part [aria-label*="Pick Model"], .interactive-input-part .chat-model-picker-item')
      .first()
      .innerText()
      .catch(() => null);
    if (picker) return picker.trim();
    // Fallback: the input toolbar reads "Agent\n<model>\n..." — the line after the mode.
    return (text.split('\n')[1] || '').trim();
  }

  chatResponseRows() {
    return this.page.locator('.interactive-list .interactive-item-container.interactive-response');
  }

  /**
   * The chat list's rows now in the DOM: list index, request or response, text. The list is
   * virtualized: rows scrolled out of view are not here, and DOM order is not list order. The
   * request of a response scrolled past stays as the "sticky" row at the top.
   */
  async chatListRows() {
    return this.page.locator('.interactive-list .monaco-list-row[data-index]').evaluateAll((rows) =>
      rows
        .filter((r) => r.classList.contains('request') || r.classList.contains('response')) // not the rows of lists inside a response
        .map((r) => ({
          index: Number(r.dataset.index),
          sticky: r.classList.contains('monaco-tree-sticky-row'),
          response: r.classList.contains('response'),
          request: r.classList.contains('request'),
          text: r.innerText.replace(/\s+/g, ' ').trim(),
        })),
    );
  }

  /** The list index of the newest response in the DOM (-1 when none is). */
  async newestChatResponseIndex() {
    const responses = (await this.chatListRows()).filter((r) => r.response && !r.sticky).map((r) => r.index);
    return responses.length ? Math.max(...responses) : -1;
  }

  /** The list index of the newest response to a request that reads `message`, above `after`; -1 when there is none yet. */
  async chatResponseIndexFor(message, after) {
    const rows = await this.chatListRows();
    const requests = new Map(rows.filter((r) => r.request).map((r) => [r.index, r.text]));
    const answers = rows.filter((r) => r.response && !r.sticky && r.index > after && (requests.get(r.index - 1) ?? '').includes(message));
    return answers.length ? Math.max(...answers.map((r) => r.index)) : -1;
  }

  /**
   * The response to the message sendChat sent last. Found by list index and by its request's text,
   * not as the last response row in the DOM: seen in CI, a tall response pushed the older ones out of
   * the DOM, a count of response rows did not grow although the message was answered, and sendChat
   * waited out its timeout; and seen here, right after another test the rows were not yet rendered,
   * so "newer than the newest before" matched the previous answer.
   */
  sentChatResponse() {
    return this.page.locator(`.interactive-list .monaco-list-row[data-index="${this.sentResponseIndex ?? -1}"]:not(.monaco-tree-sticky-row) .interactive-item-container.interactive-response`);
  }

  /**
   * Sends a chat message (e.g. `@scroll /search retry cap`) and waits for the response to finish.
   * Returns the response's text (folded "Completed N steps" sections opened first).
   * With `{ waitFor: 'confirmation' }` it returns as soon as the response asks for a confirmation.
   */
  async sendChat(message, { timeoutMs = 120000, waitFor: until = 'done' } = {}) {
    const input = await this.openChat();
    const before = await this.newestChatResponseIndex();
    // The keys below go wherever the focus is, and another view can take it from the chat input
    // between two keys: "Scroll: Reveal Log Folder" (chat.e2e.js's first test) focuses the
    // Explorer on scroll.db when its reveal completes, which can be after the next test clicked the
    // input. Seen in CI: Control+A selected the log's files there and Delete asked to delete them (a
    // modal that blocked every later test), or the message went to the Explorer's type-to-navigate.
    // So the input must have the focus before the keys, the clearing key is Backspace (the Explorer
    // does not bind it to deleting files), and the whole step is tried again until the input holds
    // the message.
    const wanted = message.replace(/\s+/g, ' ').trim();
    const holds = async () => (await input.innerText()).replace(/\s+/g, ' ').trim() === wanted;
    /** Clicks the input; true when the focus is there afterwards (keys pressed now reach it). */
    const focusInput = async () => {
      await input.click();
      return this.page.evaluate(() => document.activeElement?.closest('.interactive-input-part') != null);
    };
    await waitFor(async () => {
      if (!(await focusInput())) return false;
      await this.page.keyboard.press('Control+A');
      await this.page.keyboard.press('Backspace');
      // Inserted, not typed key by key: typed, "@scroll " can race the participant suggestions and
      // come out as another participant (seen: "@agent") on a loaded machine.
      await this.page.keyboard.insertText(message);
      return waitFor(holds, { timeoutMs: 2000, what: 'the message in the input' }).catch(() => false);
    }, { timeoutMs: 15000, what: `the chat input to hold "${message}"` });
    const suggest = this.page.locator('.interactive-input-part .suggest-widget.visible');
    if (await suggest.count()) await this.page.keyboard.press('Escape');
    await this.page.keyboard.press('Enter');
    // The focus can still move after the input held the message (seen in CI: the reveal above took
    // it and Enter went to the Explorer; the message sat unsent until the timeout). A sent message
    // leaves the input at once, so one still there after a few seconds was not sent: focus the
    // input again and send it again.
    let pressed = Date.now();
    const sent = await waitFor(async () => {
      const index = await this.chatResponseIndexFor(wanted, before);
      if (index >= 0) return { index };
      if (Date.now() - pressed > 1000) await this.scrollChatToEnd(); // the answer may be there, scrolled out of the DOM
      if (Date.now() - pressed > 3000 && (await holds()) && (await focusInput())) {
        await this.page.keyboard.press('Enter');
        pressed = Date.now();
      }
      return false;
    }, { timeoutMs, what: `a chat response to "${message}"` });
    this.sentResponseIndex = sent.index;
    return this.waitForChatResponse({ timeoutMs, waitFor: until });
  }

  /** Waits until the response to the message sent last is complete (or asks for a confirmation) and returns its text. */
  async waitForChatResponse({ timeoutMs = 120000, waitFor: until = 'done' } = {}) {
    const last = this.sentChatResponse();
    let stableSince = 0;
    await waitFor(
      async () => {
        if (until === 'confirmation' && (await this.chatConfirmationButtons().count())) return true;
        if (!(await this.revealSentChatResponse())) {
          stableSince = 0;
          return false;
        }
        const loading = await last
          .evaluate((el) => {
            const row = el.closest('.monaco-list-row') || el;
            return row.classList.contains('chat-response-loading') || el.classList.contains('chat-response-loading');
          }, undefined, { timeout: 1000 })
          .catch(() => undefined); // re-rendered or scrolled away meanwhile: look again
        if (loading === undefined) return false;
        // Progressive rendering toggles the class between chunks: require it to stay off briefly.
        if (loading) {
          stableSince = 0;
          return false;
        }
        stableSince = stableSince || Date.now();
        return Date.now() - stableSince > 300;
      },
      { timeoutMs, what: 'the chat response to finish' },
    );
    await waitFor(() => this.revealSentChatResponse(), { timeoutMs: 10000, what: 'the finished chat response in view' });
    await this.expandChatSteps();
    return this.lastChatResponseText();
  }

  /**
   * True when the response to the message sent last is in the DOM. When it is not, scrolls the chat to
   * its end (where the newest response is) and returns false: seen, the chat list scrolled back to
   * an older, focused response right after the answer came, which took the answer out of the DOM.
   */
  async revealSentChatResponse() {
    if (await this.sentChatResponse().count()) return true;
    await this.scrollChatToEnd();
    return false;
  }

  /** Scrolls the chat list to its end, by the wheel (the list scrolls itself; its DOM scrollTop is not its position). */
  async scrollChatToEnd() {
    const box = await this.page.locator('.interactive-list').first().boundingBox().catch(() => null);
    if (!box) return;
    await this.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await this.page.mouse.wheel(0, 100000);
  }

  /** Opens every folded "Completed N steps" / "Used N references" section of the response to the message sent last. */
  async expandChatSteps() {
    const folded = this.sentChatResponse().locator('.chat-used-context-label[aria-expanded="false"], [aria-expanded="false"]').filter({ hasText: /Completed \d+ steps?|Used \d+ references?/ });
    // Clicked in the page, not with Playwright's pointer: the sticky request row can cover the button,
    // and a pointer click then waits out its 30 s timeout (it did, on most responses).
    await folded.evaluateAll((buttons) => buttons.forEach((b) => b.click()));
  }

  async lastChatResponseText() {
    return (await this.sentChatResponse().innerText()).trim();
  }

  /** Texts of every response in the chat, oldest first (rows scrolled out of view may be missing). */
  async chatResponses() {
    return this.chatResponseRows().allInnerTexts();
  }

  chatConfirmationButtons() {
    return this.sentChatResponse().locator('.chat-confirmation-widget .monaco-button, .chat-confirmation-widget2 .monaco-button');
  }

  /** Clicks the confirmation button whose label matches (default: the first, e.g. "Allow"/"Continue"). */
  async confirmChat(label) {
    const buttons = this.chatConfirmationButtons();
    await buttons.first().waitFor({ timeout: 60000 });
    const target = label ? buttons.filter({ hasText: label }).first() : buttons.first();
    await target.click();
  }

  // ------------------------------------------------------------ webviews

  /**
   * The content frame of a webview (panel or view), found by the extension that owns it and/or a selector
   * its document contains. Webviews are two nested iframes; this returns the inner one, where the
   * extension's HTML lives.
   */
  async webviewFrame({ extensionId, hasSelector, timeoutMs = 60000 } = {}) {
    return waitFor(
      async () => {
        for (const frame of this.page.frames()) {
          // The content frame's parent is VS Code's webview iframe (.../webview/browser/pre/index.html?...
          // &extensionId=<owner>). The content frame is created as "pending-frame" and renamed "active-frame"
          // once its document has loaded; Playwright's frame.name() keeps the first name, so read the id.
          const parent = frame.parentFrame();
          if (!parent || !parent.url().includes('/webview/browser/pre/index.html')) continue;
          if (extensionId && !decodeURIComponent(parent.url()).includes(`extensionId=${extensionId}`)) continue;
          const id = await frame.frameElement().then((el) => el.getAttribute('id')).catch(() => null);
          if (id !== 'active-frame') continue;
          if (hasSelector && !(await frame.locator(hasSelector).count().catch(() => 0))) continue;
          return frame;
        }
        return null;
      },
      { timeoutMs, what: `a webview${extensionId ? ` of ${extensionId}` : ''}${hasSelector ? ` containing ${hasSelector}` : ''}` },
    );
  }

  // ------------------------------------------------------------ the scripted model (fixture)

  /** Sets the scripted model's script (see test/fixtures/scripted-lm/README.md); forgets old requests. */
  setScript(script) {
    const dir = this.env.scriptedLmDir;
    if (!dir) throw new Error('SCROLL_SCRIPTED_LM_DIR is not set: the scripted model is not installed in this run');
    fs.mkdirSync(dir, { recursive: true });
    fs.rmSync(path.join(dir, 'requests.jsonl'), { force: true });
    const tmp = path.join(dir, `.script-${process.pid}.json`);
    fs.writeFileSync(tmp, JSON.stringify(script));
    fs.renameSync(tmp, path.join(dir, 'script.json'));
  }

  /**
   * Selects the scripted model in the chat view (and opens it). Without a Copilot sign-in the chat view does
   * not pick a third-party model by itself, and a participant then gets "Language model unavailable".
   */
  async useScriptedModel({ name = 'Scripted test model', timeoutMs = 90000 } = {}) {
    await this.runCommand('Test: Scripted LM: Use in Chat');
    await waitFor(async () => (await this.chatModelName()) === name, { timeoutMs, what: `the chat model picker to show "${name}"` });
  }

  /** Requests the scripted model received since the last setScript, oldest first. */
  recordedRequests() {
    const file = path.join(this.env.scriptedLmDir || '', 'requests.jsonl');
    if (!fs.existsSync(file)) return [];
    return fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  }

  // ------------------------------------------------------------ evidence and teardown

  /** Saves a screenshot under test-results/e2e/ and returns its path. */
  async screenshot(name) {
    fs.mkdirSync(this.env.resultsDir, { recursive: true });
    const file = path.join(this.env.resultsDir, `${safeName(name)}.png`);
    await this.page.screenshot({ path: file });
    return file;
  }

  async close() {
    openWorkbenches.delete(this);
    await this.context.close().catch(() => {});
    fs.rmSync(this.profile, { recursive: true, force: true });
  }
}

module.exports = { Workbench, openWorkbenches, waitFor, e2eEnv };
