// "Scroll: Search History" in the real workbench, on a history that also holds a captured Claude Code
// session: the hits say where each one comes from, and the quick pick's filter button (its title bar)
// narrows them to one agent's transcripts and back, clicked as a user clicks it.
'use strict';
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { Workbench, waitFor } = require('./workbench');

const repoRoot = path.resolve(__dirname, '..', '..');
const CLAUDE_FIXTURE = path.join(repoRoot, 'test', 'fixtures', 'capture', 'claude-code', 'projects', '-work-proj');

describe('Search History source filter (real workbench)', function () {
  /** @type {Workbench} */
  let wb;
  before(async () => {
    wb = await Workbench.open({ fresh: true }); // its own copy: a captured session is imported into its log
    const db = path.join(wb.folder, '.scroll', 'scroll.db');
    const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'scroll.js'), 'import', 'claude-code', '--path', CLAUDE_FIXTURE, '--db', db], { encoding: 'utf8' });
    assert.equal(r.status, 0, `scroll import: ${r.stderr || r.stdout}`);
  });
  after(async () => {
    await wb?.close();
  });

  const title = () => wb.page.locator('.quick-input-widget .quick-input-title').innerText().catch(() => '');
  /** The rows shown once they settle on something that satisfies `ok`. */
  const rowsWhen = (ok, what) =>
    waitFor(async () => {
      const rows = await wb.quickPickItems();
      return rows.length > 0 && ok(rows) && rows;
    }, { timeoutMs: 60000, what });
  const fromClaude = (row) => row.includes('Claude Code ·');

  it('lists hits from Scroll and from Claude Code; the filter button narrows them to Claude Code and back', async () => {
    await wb.runCommand('Scroll: Search History');
    // The command opens its quick pick after the palette closes: type once it is there and focused.
    await waitFor(async () => /Search History/.test(await title()), { what: 'the Search History quick pick' });
    await wb.page.locator('.quick-input-widget .quick-input-box input').click();
    await wb.typeInQuickInput('total');
    const mixed = await rowsWhen((rows) => rows.some(fromClaude) && rows.some((r) => !fromClaude(r)), 'hits from both Scroll and Claude Code');
    assert.ok(mixed.some((r) => /b\.price|price total/i.test(r)), `the captured message is a hit: ${JSON.stringify(mixed)}`);

    // The filter button sits in the quick pick's title bar; its tooltip is its accessible name.
    const button = wb.page.locator('.quick-input-widget .quick-input-titlebar .action-label[aria-label^="Filter by source"]');
    await button.waitFor({ state: 'visible', timeout: 30000 });
    await button.click();
    await waitFor(async () => /filter by source/.test(await title()), { what: 'the source list' });
    const choices = await wb.quickPickItems();
    assert.ok(choices.some((c) => c.startsWith('All sources')), JSON.stringify(choices));
    await wb.pickQuickItem(/^Claude Code/);

    await waitFor(async () => /from Claude Code only/.test(await title()), { what: 'the filtered title' });
    const only = await rowsWhen((rows) => rows.every(fromClaude), 'only Claude Code hits');
    assert.ok(only.some((r) => /b\.price|price total/i.test(r)), JSON.stringify(only));
    assert.equal(await wb.page.locator('.quick-input-widget .quick-input-box input').inputValue(), 'total', 'the query is kept');

    // And back to every source.
    await wb.page.locator('.quick-input-widget .quick-input-titlebar .action-label[aria-label^="Source: Claude Code"]').click();
    await waitFor(async () => /filter by source/.test(await title()), { what: 'the source list again' });
    await wb.pickQuickItem(/^All sources/);
    await rowsWhen((rows) => rows.some(fromClaude) && rows.some((r) => !fromClaude(r)), 'hits from every source again');
    assert.doesNotMatch(await title(), /only/);
    await wb.page.keyboard.press('Escape');
  });
});
