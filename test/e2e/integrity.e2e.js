// "Scroll: Check History Integrity" and "Scroll: Rebuild Search Index" run from the command palette
// of the real workbench, on a seeded copy of the sample workspace: what the user reads is the
// notification each one leaves (both jobs run on the maintenance worker in the extension host).
'use strict';
const assert = require('node:assert/strict');
const { Workbench, waitFor } = require('./workbench');

describe('history integrity commands (real workbench)', function () {
  /** @type {Workbench} */
  let wb;
  before(async () => {
    wb = await Workbench.open({ fresh: true }); // its own copy: the rebuild writes to its log
  });
  after(async () => {
    await wb?.close();
  });

  /** Waits for a notification toast whose text matches `re`; returns its text. */
  const toast = (re, what) =>
    waitFor(async () => (await wb.notifications()).find((t) => re.test(t)), { timeoutMs: 60000, what });

  /** Earlier toasts must not answer for a later command. */
  const clearToasts = async () => {
    await wb.runCommand('Notifications: Clear All Notifications');
    await waitFor(async () => (await wb.notifications()).length === 0, { what: 'the toasts to clear' });
  };

  it('Check History Integrity reports an intact history in a short toast; "Details" opens the full report', async () => {
    await clearToasts();
    await wb.runCommand('Scroll: Check History Integrity');
    const text = await toast(/history is intact/, 'the "history is intact" notification');
    const m = /Scroll: the history is intact \(seq 1–(\d+)\)\./.exec(text);
    assert.ok(m, text);
    assert.ok(Number(m[1]) > 0, 'the seeded history has events');
    // Short enough to be read whole: the message line is not cut off with an ellipsis.
    const message = wb.page.locator('.notifications-toasts .notification-toast .notification-list-item-message').first();
    const cut = await message.evaluate((el) => el.scrollWidth > el.clientWidth + 1);
    assert.equal(cut, false, 'the toast message fits its line');
    await wb.page.locator('.notifications-toasts .notification-toast').getByRole('button', { name: 'Details' }).click();
    const report = await waitFor(async () => {
      const t = await wb.activeEditorText().catch(() => '');
      return /# Scroll history check/.test(t) && t;
    }, { what: 'the report tab' });
    // The tab wraps long lines: compare without whitespace.
    const flat = report.replace(/\s+/g, '');
    assert.match(flat, new RegExp(`\\*\\*Intact\\*\\*:eventsuptoseq${m[1]},thesearchindex,and\\d+payloadfile\\(s\\)verified`), report);
  });

  it('Rebuild Search Index reports how many events it indexed; the history checks intact after it', async () => {
    await clearToasts();
    await wb.runCommand('Scroll: Rebuild Search Index');
    const text = await toast(/search index was rebuilt from \d+ events/, 'the "rebuilt" notification');
    assert.doesNotMatch(text, /failed|cancelled/i, text);
    await clearToasts();
    await wb.runCommand('Scroll: Check History Integrity');
    await toast(/history is intact/, 'the history to check intact after the rebuild');
  });
});
