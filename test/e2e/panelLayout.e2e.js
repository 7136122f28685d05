// The history panel's first hour (issue 20) in the real workbench: one session scope shared by the
// dropdown, the Sessions, Eviction index and Timeline tabs (also after another writer adds a
// session); the Eviction index in "All sessions" lists every session that has evictions; the
// Timeline draws only what a session has, with labelled axes; the layout at 350, 700 and 1,400 px
// (no horizontal overflow, every tab visible, no text clipped without an ellipsis, pairs of filters
// on one line, nothing in fixed-height boxes); keyboard and names for screen readers; theme colours
// equal the theme's tokens in light, dark and high contrast. Screenshots of the panel at the three
// widths in the three themes are written to docs/screenshots/ when SCROLL_UPDATE_SCREENSHOTS=1, else
// to test-results/panel-layout/.
'use strict';
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { Workbench, waitFor } = require('./workbench');

const repoRoot = path.resolve(__dirname, '..', '..');
const WIDTHS = [350, 700, 1400];
const THEMES = [
  ['Light Modern', 'light'],
  ['Dark Modern', 'dark'],
  ['Dark High Contrast', 'high-contrast'],
];
const LONG_TITLE = 'untangle the retry cap of the ledger importer so that nightly reconciliation no longer stalls on duplicated rows';
const NEWEST = 'ledger-2026-11-20-a-rather-long-session-name';

function ingest(db, cwd, lines) {
  const file = path.join(cwd, `ingest-${process.pid}-${Date.now()}.jsonl`);
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'scroll.js'), 'ingest', file, '--db', db, '--json'], { cwd, encoding: 'utf8' });
  fs.rmSync(file);
  if (r.status !== 0) throw new Error(`scroll ingest failed: ${(r.stderr || r.stdout).trim()}`);
}

/**
 * Three sessions: an agent run with evictions (oldest), a plain chat with steps but no view sizes,
 * and the newest session with neither — the one a panel that shows "the newest session" got wrong.
 */
function seedWorkspace() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'scroll-panel-layout-'));
  fs.writeFileSync(path.join(dir, 'README.md'), '# panel layout e2e workspace\n');
  const lines = [];
  let ts = Date.parse('2026-11-18T09:00:00Z');
  const add = (e) => {
    lines.push({ ts: new Date((ts += 1000)).toISOString(), ...e });
    return lines.length;
  };
  let segmentStart = 1;
  for (let step = 1; step <= 24; step++) {
    const s = 'agent-run';
    add({ session: s, kind: 'user_message', role: 'user', content: `step ${step}: the parser drops the retry cap ${step}`, step });
    add({ session: s, kind: 'model_turn', role: 'assistant', content: `Reading the parser for step ${step}.`, step, meta: { viewTokens: 900 + ((step * 131) % 700), budget: 1600, step } });
    add({ session: s, kind: 'tool_call', role: 'assistant', name: 'read_file', content: `{"path":"src/parser.ts","line":${step}}`, step });
    const last = add({ session: s, kind: 'tool_result', role: 'tool', name: 'read_file', content: `export function parseRetry${step}() { return ${step}; } // a parser line`, step });
    if (step % 4 === 0) {
      const seq = add({
        session: s, kind: 'eviction', role: 'system', content: `evicted ${segmentStart}-${last}`, step,
        meta: { from_seq: segmentStart, to_seq: last, title: { task: `${LONG_TITLE} (part ${step / 4})`, state: `step ${step} done, the parser keeps the cap`, next: `step ${step + 1}` } },
      });
      segmentStart = seq + 1;
    }
  }
  for (let step = 1; step <= 8; step++) {
    const s = 'plain-chat';
    add({ session: s, kind: 'user_message', role: 'user', content: `question ${step} about the parser`, step });
    for (let i = 0; i < (step % 3) + 1; i++) add({ session: s, kind: 'model_turn', role: 'assistant', content: `answer ${step}.${i}: the parser is in src/parser.ts`, step });
  }
  add({ session: NEWEST, kind: 'user_message', role: 'user', content: 'what did we decide about the ledger retry cap?' });
  add({ session: NEWEST, kind: 'assistant_message', role: 'assistant', content: 'The cap stays at five retries; see the parser notes.' });
  const file = path.join(dir, 'history.jsonl');
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const db = path.join(dir, '.scroll', 'scroll.db');
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'scroll.js'), 'ingest', file, '--db', db, '--json'], { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`seeding failed: ${(r.stderr || r.stdout).trim()}`);
  fs.rmSync(file);
  return { dir, db };
}

/** Runs in the panel's frame: what a reader would see as broken at this width. */
function layoutProblems() {
  const problems = [];
  const vw = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > vw + 1) problems.push(`page scrolls sideways: ${document.documentElement.scrollWidth} > ${vw}`);
  const describe = (el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.split(' ').join('.')}` : ''} "${(el.textContent || '').trim().slice(0, 40)}"`;
  // Visually hidden text (for screen readers: 1 px and clipped) is not text a reader sees.
  const srOnly = (el) => {
    const r = el.getBoundingClientRect();
    return r.width <= 1 || r.height <= 1;
  };
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && !el.closest('[hidden]');
  };
  const ellipsis = (el) => {
    const s = getComputedStyle(el);
    return s.textOverflow === 'ellipsis' && s.overflowX !== 'visible';
  };
  for (const el of document.querySelectorAll('#app *')) {
    if (el instanceof SVGElement || !visible(el) || srOnly(el)) continue;
    const hasText = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!hasText) continue;
    const r = el.getBoundingClientRect();
    // Clipped by itself or by an ancestor, with no ellipsis on the way? What stays visible ends
    // at the nearest clipping ancestor's edge; past the window's edge is off screen.
    let cut = ellipsis(el);
    if (!cut && el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX === 'hidden') {
      problems.push(`text clipped without an ellipsis: ${describe(el)}`);
      continue;
    }
    let visibleRight = r.right;
    for (let a = el.parentElement; a && a.id !== 'app'; a = a.parentElement) {
      if (ellipsis(a)) cut = true;
      if (getComputedStyle(a).overflowX === 'visible') continue;
      if (srOnly(a)) {
        visibleRight = 0;
        break;
      }
      const ar = a.getBoundingClientRect();
      if ((r.right > ar.right + 1 || r.left < ar.left - 1) && !cut) {
        problems.push(`text clipped by ${describe(a)} without an ellipsis: ${describe(el)}`);
        break;
      }
      visibleRight = Math.min(visibleRight, ar.right);
    }
    if (visibleRight > vw + 1) problems.push(`off screen to the right: ${describe(el)} (right ${Math.round(visibleRight)} > ${vw})`);
  }
  for (const tab of document.querySelectorAll('[role=tab]')) {
    const r = tab.getBoundingClientRect();
    if (!(r.width > 0 && r.left >= -1 && r.right <= vw + 1)) problems.push(`tab not visible: ${tab.textContent}`);
  }
  return problems;
}

/** Runs in the panel's frame: interactive elements without a name a screen reader can read. */
function unnamedControls() {
  const sel = '[role=tab], [role=treeitem], [role=listbox], [role=application], vscode-button, vscode-text-field, select, button, [tabindex="0"]';
  return [...document.querySelectorAll(sel)]
    .filter((el) => !el.closest('[hidden]'))
    .filter((el) => {
      const labelled = el.getAttribute('aria-labelledby');
      const name = el.getAttribute('aria-label') || (labelled && document.getElementById(labelled)?.textContent) || el.textContent;
      return !(name || '').trim();
    })
    .map((el) => el.outerHTML.slice(0, 120));
}

describe('history panel: scope, layout, themes (real workbench)', function () {
  this.timeout(600000);
  /** @type {Workbench} */
  let wb;
  let seed;
  let frame;
  const shotDir = process.env.SCROLL_UPDATE_SCREENSHOTS === '1'
    ? path.join(repoRoot, 'docs', 'screenshots')
    : path.join(repoRoot, 'test-results', 'panel-layout');

  async function panelFrame(timeoutMs = 180000) {
    frame = await wb.webviewFrame({ hasSelector: '[data-testid=query]', timeoutMs });
    await frame.locator('#app:not([aria-busy])').waitFor({ timeout: 60000 });
    return frame;
  }

  const scopeValue = () => frame.locator('[data-testid=scope]').evaluate((el) => el.value);
  const scopeShown = () => frame.locator('[data-testid=scope]').evaluate((el) => (el.selectedOptions[0]?.textContent || '').trim());

  async function chooseScope(value) {
    await frame.locator('[data-testid=scope]').selectOption(value);
    await waitFor(async () => (await scopeValue()) === value, { what: `the scope ${value || 'All sessions'}` });
  }

  async function showTab(tab) {
    await frame.locator(`[data-testid=tab-${tab}]`).click();
    await frame.locator(`#view-${tab}:not([hidden])`).waitFor();
  }

  async function typeQuery(text) {
    const status = frame.locator('[data-testid=search-status]');
    const before = Number((await status.getAttribute('data-generation')) ?? 0);
    const input = frame.locator('[data-testid=query] input');
    await input.fill('');
    await input.pressSequentially(text, { delay: 20 });
    await waitFor(async () => Number((await status.getAttribute('data-generation')) ?? 0) > before
      && (await status.getAttribute('data-query')) === text, { what: `the search for ${text}` });
  }

  async function setTheme(name) {
    await wb.runCommand('Preferences: Color Theme');
    await wb.typeInQuickInput(name);
    await wb.pickQuickItem(name);
    await waitFor(async () => !(await wb.quickInput().isVisible()), { what: 'the theme picker to close' });
    await wb.page.waitForTimeout(600); // the webview restyles once the theme's variables arrive
  }

  /** Resizes the browser so the panel's document is `width` px wide (the workbench has chrome around it). */
  async function setPanelWidth(width) {
    for (let i = 0; i < 4; i++) {
      const inner = await frame.evaluate(() => document.documentElement.clientWidth);
      if (Math.abs(inner - width) <= 1) return;
      const vp = wb.page.viewportSize();
      await wb.page.setViewportSize({ width: vp.width + (width - inner), height: vp.height });
      await wb.page.waitForTimeout(400);
    }
    const inner = await frame.evaluate(() => document.documentElement.clientWidth);
    assert.ok(Math.abs(inner - width) <= 2, `panel width ${inner}, wanted ${width}`);
  }

  before(async () => {
    seed = seedWorkspace();
    wb = await Workbench.open({ folder: seed.dir, viewport: { width: 1500, height: 900 } });
    assert.ok(await wb.paletteHas('Scroll: Open History Panel', { timeoutMs: 240000 }), 'Scroll is registered');
    await wb.runCommand('Scroll: Open History Panel');
    await panelFrame();
    // The panel alone in the window: its width is the window's minus the activity bar.
    await wb.runCommand('View: Close Primary Side Bar').catch(() => {});
    await wb.runCommand('View: Hide Panel').catch(() => {});
  });

  after(async () => {
    await wb?.close();
    if (seed) fs.rmSync(seed.dir, { recursive: true, force: true });
  });

  it('"Scroll: Show Eviction Index" offers a session with evictions first', async () => {
    await wb.runCommand('Scroll: Show Eviction Index');
    const labels = await waitFor(async () => {
      const l = await wb.quickPickItems();
      return l.length >= 3 ? l : null;
    }, { what: 'the session pick' });
    assert.match(labels[0], /^agent-run/, `first: ${labels[0]} (of ${labels.join(' | ')})`);
    await wb.page.keyboard.press('Escape');
    await panelFrame();
  });

  it('"All sessions": the Eviction index lists every session that has evictions, not the newest session', async () => {
    assert.equal(await scopeValue(), '');
    await showTab('index');
    const sessionItems = frame.locator('[data-testid=index-tree] > li[role=treeitem]');
    await waitFor(async () => (await sessionItems.count()) === 1, { what: 'one session with evictions' });
    assert.equal(await sessionItems.first().getAttribute('data-session'), 'agent-run');
    const status = await frame.locator('[data-testid=index-status]').innerText();
    assert.match(status, /1 session with evictions \(2 other sessions without\)/);
    assert.doesNotMatch(status, /nothing has been evicted/);
    // "L0" is explained where it shows.
    assert.match(await frame.locator('[data-testid=index-legend]').innerText(), /L0 = one evicted segment/);
    const level = frame.locator('[data-testid=index-tree] abbr.level').first();
    assert.match(await level.getAttribute('title'), /^L\d: /);
    // Scoped to the newest session (no evictions): it says so and offers the sessions that have some.
    await chooseScope(NEWEST);
    await waitFor(async () => /nothing has been evicted/.test(await frame.locator('[data-testid=index-status]').innerText()), { what: 'the scoped index' });
    await frame.locator('[data-testid=index-others] [data-testid=index-session]').first().click();
    await waitFor(async () => (await scopeValue()) === 'agent-run', { what: 'scoped to agent-run from the index' });
    await waitFor(async () => /agent-run: 6 evicted segments/.test(await frame.locator('[data-testid=index-status]').innerText()), { what: 'the index of agent-run' });
    await chooseScope('');
  });

  it('one scope: dropdown, Sessions and Timeline agree, also after another writer adds a session', async () => {
    await showTab('timeline');
    // All sessions: the timeline asks which session (it draws one session's steps).
    await frame.locator('[data-testid=timeline-sessions] [data-testid=timeline-session]').first().waitFor();
    assert.equal(await frame.locator('[data-testid=timeline-chart]').isVisible(), false);
    await frame.locator('[data-testid=timeline-sessions] [data-testid=timeline-session]', { hasText: 'plain-chat' }).click();
    await waitFor(async () => (await scopeValue()) === 'plain-chat', { what: 'the dropdown follows the timeline' });
    await waitFor(async () => /^Session plain-chat/.test(await frame.locator('[data-testid=timeline-status]').innerText()), { what: 'the plain-chat timeline' });
    await showTab('sessions');
    assert.match(await frame.locator('[data-testid=sessions-status]').innerText(), /scoped to plain-chat/);
    // A chat adds a session (another writer appends to the log while the panel is open).
    ingest(seed.db, seed.dir, [{ ts: '2026-11-21T08:00:00Z', session: 'chat-added-later', kind: 'user_message', role: 'user', content: 'a new chat' }]);
    await waitFor(async () => (await frame.locator('[data-testid=scope] option').count()) === 5, { timeoutMs: 30000, what: 'the new session in the dropdown' });
    await waitFor(async () => (await frame.locator('[data-testid=sessions-table] tbody tr').count()) === 4, { what: 'the new session in the Sessions tab' });
    assert.equal(await scopeValue(), 'plain-chat');
    assert.match(await scopeShown(), /^plain-chat/);
    assert.match(await frame.locator('[data-testid=sessions-status]').innerText(), /scoped to plain-chat/);
    assert.equal(await frame.locator('[data-testid=sessions-table] tr[aria-current=true]').getAttribute('data-session'), 'plain-chat');
    await showTab('timeline');
    assert.match(await frame.locator('[data-testid=timeline-status]').innerText(), /^Session plain-chat/);
    // Back to all sessions from the Sessions tab: the dropdown says so too.
    await showTab('sessions');
    await frame.locator('[data-testid=unscope-session]').click();
    await waitFor(async () => (await scopeValue()) === '', { what: 'the dropdown back to All sessions' });
    assert.match(await scopeShown(), /^All sessions/);
    assert.match(await frame.locator('[data-testid=sessions-status]').innerText(), /showing all/);
  });

  it('the Timeline draws what a session has, with labelled axes in events per step', async () => {
    await chooseScope('plain-chat');
    await showTab('timeline');
    const chart = frame.locator('[data-testid=timeline-chart]');
    await chart.locator('svg .bars rect').first().waitFor();
    const legend = await frame.locator('[data-testid=timeline-legend]').innerText();
    assert.match(legend, /events per step/);
    assert.doesNotMatch(legend, /view tokens|budget|eviction/, `legend of a plain chat: ${legend}`);
    assert.equal(await chart.locator('path.view, path.budget').count(), 0);
    const axis = await chart.evaluate((el) => {
      const texts = [...el.querySelectorAll('text')];
      const left = texts.filter((t) => t.classList.contains('tick-left')).map((t) => t.textContent);
      const yAxis = el.querySelectorAll('line.axis')[1];
      const firstBar = el.querySelector('.bars rect');
      return {
        left,
        titles: texts.filter((t) => t.classList.contains('axis-title')).map((t) => `${t.getAttribute('data-axis')}:${t.textContent}`),
        axisX: Number(yAxis.getAttribute('x1')),
        firstBarX: Number(firstBar.getAttribute('x')),
      };
    });
    assert.deepEqual(axis.titles.sort(), ['x:step', 'y-left:events per step']);
    // plain-chat has 2 to 4 events per step: the axis reads 0–5, not 0–1.
    assert.deepEqual(axis.left, ['0', '5']);
    assert.ok(axis.firstBarX >= axis.axisX, `first bar at ${axis.firstBarX}, axis at ${axis.axisX}`);
    // The agent run has view sizes, a budget and evictions: all drawn, named, and two y axes.
    await chooseScope('agent-run');
    await waitFor(async () => (await chart.locator('path.view').count()) === 1, { what: 'the agent timeline' });
    const agentLegend = await frame.locator('[data-testid=timeline-legend]').innerText();
    for (const name of ['events per step', 'view tokens', 'budget', 'eviction']) assert.ok(agentLegend.includes(name), `${name} in ${agentLegend}`);
    const titles = await chart.locator('text.axis-title').evaluateAll((els) => els.map((e) => e.textContent));
    assert.deepEqual(titles.sort(), ['events per step', 'step', 'view tokens']);
    assert.equal(await chart.locator('.evictions line').count(), 6);
    await chooseScope('');
  });

  it('a search with no hits clears the old detail; "Show neighbours" scrolls to what it added', async () => {
    await showTab('search');
    await setPanelWidth(700);
    await typeQuery('parser');
    await frame.locator('.vlist-row:not(.placeholder)').first().click();
    const detail = frame.locator('[data-testid=detail]');
    await detail.locator('article.event').first().waitFor();
    await detail.locator('[data-testid=neighbours]').first().click();
    const section = detail.locator('[data-testid=neighbours-list]');
    await section.waitFor();
    await waitFor(async () => section.evaluate((s) => {
      const d = s.closest('[data-testid=detail]').getBoundingClientRect();
      const r = s.getBoundingClientRect();
      return r.top >= d.top - 1 && r.top < d.bottom - 20;
    }), { timeoutMs: 5000, what: 'the neighbours scrolled into view' });
    await typeQuery('xyzzyplughnothing');
    assert.match(await frame.locator('[data-testid=search-status]').innerText(), /^No hits/);
    assert.equal(await detail.locator('article.event').count(), 0, 'the old event is gone');
    assert.match(await detail.innerText(), /Select a hit/);
  });

  it('keyboard: tabs by arrows, every control reachable with Tab, every control named', async () => {
    await setPanelWidth(1400);
    await showTab('search');
    const tab = frame.locator('[data-testid=tab-search]');
    await tab.focus();
    await frame.page().keyboard.press('ArrowRight');
    assert.equal(await frame.locator('[data-testid=tab-expand]').getAttribute('aria-selected'), 'true');
    assert.equal(await frame.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'tab-expand');
    await frame.page().keyboard.press('ArrowLeft');
    await frame.page().keyboard.press('Tab');
    // From the tab strip, Tab walks the Search tab's controls in reading order and reaches the hits.
    const seen = [];
    for (let i = 0; i < 14; i++) {
      seen.push(await frame.evaluate(() => {
        const a = document.activeElement;
        return a?.getAttribute('data-testid') || a?.getAttribute('role') || a?.tagName.toLowerCase();
      }));
      await frame.page().keyboard.press('Tab');
    }
    for (const want of ['query', 'filter-kind', 'filter-role', 'filter-seq-from', 'filter-seq-to', 'filter-ts-from', 'filter-ts-to', 'clear-filters', 'listbox']) {
      assert.ok(seen.includes(want), `${want} reachable by Tab (seen ${seen.join(', ')})`);
    }
    for (const t of ['search', 'index', 'timeline', 'sessions', 'expand']) {
      await showTab(t);
      assert.deepEqual(await frame.evaluate(unnamedControls), [], `unnamed controls in ${t}`);
    }
    await showTab('search');
  });

  for (const [themeName, themeSlug] of THEMES) {
    it(`${themeName}: selection and focus use the theme's tokens; layout holds at ${WIDTHS.join(', ')} px`, async () => {
      await setTheme(themeName);
      await setPanelWidth(1400);
      await showTab('search');
      await typeQuery('parser');
      const row = frame.locator('.vlist-row:not(.placeholder)').nth(1);
      await row.click();
      await frame.locator('[data-testid=detail] article.event').first().waitFor();
      const colours = await frame.evaluate(() => {
        const token = (name, prop = 'backgroundColor') => {
          const probe = document.createElement('div');
          probe.style[prop] = `var(${name})`;
          document.body.appendChild(probe);
          const v = getComputedStyle(probe)[prop];
          probe.remove();
          return v;
        };
        const list = document.querySelector('.vlist');
        const selected = () => getComputedStyle(document.querySelector('.vlist-row[aria-selected="true"]')).backgroundColor;
        list.focus();
        const focusedSel = selected();
        document.querySelector('[data-testid=query] ')?.focus();
        const blurredSel = selected();
        const hc = document.body.classList.contains('vscode-high-contrast') || document.body.classList.contains('vscode-high-contrast-light');
        const activeTab = getComputedStyle(document.querySelector('.tab[aria-selected="true"]')).borderBottomColor;
        return {
          focusedSel, blurredSel, activeTab, hc,
          activeSelection: token('--vscode-list-activeSelectionBackground'),
          inactiveSelection: token('--vscode-list-inactiveSelectionBackground'),
          tabBorder: token(hc ? '--vscode-contrastActiveBorder' : '--vscode-panelTitle-activeBorder', 'borderBottomColor'),
          focusBorder: token('--vscode-focusBorder', 'outlineColor'),
        };
      });
      assert.equal(colours.focusedSel, colours.activeSelection, 'selected hit in a focused list: list.activeSelectionBackground');
      assert.equal(colours.blurredSel, colours.inactiveSelection, 'selected hit in an unfocused list: list.inactiveSelectionBackground');
      assert.equal(colours.activeTab, colours.tabBorder, 'the active tab: the panel title border');
      // A clicked tab gets no focus ring; a tab reached by keyboard gets the theme's focus border.
      await frame.locator('[data-testid=tab-sessions]').click();
      const clicked = await frame.locator('[data-testid=tab-sessions]').evaluate((el) => getComputedStyle(el).outlineStyle);
      assert.equal(clicked, 'none', 'no focus ring on a clicked tab');
      await frame.page().keyboard.press('ArrowLeft');
      const keyed = await frame.locator('[data-testid=tab-timeline]').evaluate((el) => ({ style: getComputedStyle(el).outlineStyle, color: getComputedStyle(el).outlineColor }));
      assert.equal(keyed.style, 'solid');
      assert.equal(keyed.color, colours.focusBorder, 'keyboard focus: focusBorder');
      await showTab('search');

      fs.mkdirSync(shotDir, { recursive: true });
      for (const width of WIDTHS) {
        await setPanelWidth(width);
        for (const t of ['search', 'index', 'timeline', 'sessions', 'expand']) {
          await showTab(t);
          if (t === 'index') await frame.locator('[data-testid=index-tree] li[role=treeitem]').first().waitFor();
          if (t === 'expand') {
            const spec = frame.locator('[data-testid=expand-spec] input');
            await spec.fill('1..4');
            await spec.press('Enter');
            await frame.locator('[data-testid=expand-results] article.event').nth(3).waitFor();
          }
          await wb.page.waitForTimeout(150);
          assert.deepEqual(await frame.evaluate(layoutProblems), [], `${themeSlug} ${width} px, ${t} tab`);
        }
        // The filters' pairs stay together: "Until" is on the line of "Since".
        await showTab('search');
        const tops = await frame.evaluate(() => ['ts-from', 'ts-to', 'seq-from', 'seq-to'].map((id) => Math.round(document.getElementById(id).getBoundingClientRect().top)));
        assert.equal(tops[0], tops[1], `Since and Until on one line at ${width} px`);
        assert.equal(tops[2], tops[3], `Seq from and to on one line at ${width} px`);
        // No box of fixed height: the results fill the panel down to its bottom, and no further.
        const fill = await frame.evaluate(() => {
          const panel = document.querySelector('#view-search').getBoundingClientRect();
          const split = document.querySelector('#view-search .split').getBoundingClientRect();
          return { gap: panel.bottom - split.bottom, pageScroll: document.documentElement.scrollHeight - document.documentElement.clientHeight };
        });
        assert.ok(fill.gap < 24, `results reach the panel's bottom at ${width} px (gap ${fill.gap})`);
        assert.ok(fill.pageScroll <= 1, `the page itself does not scroll at ${width} px`);
        // The eviction summary ends with an ellipsis when cut.
        await showTab('index');
        const titles = frame.locator('[data-testid=index-tree] li[role=treeitem] li .tree-label .title');
        const top = frame.locator('[data-testid=index-tree] > li[role=treeitem]').first();
        if ((await top.getAttribute('aria-expanded')) === 'false') await top.locator('.tree-label').first().click();
        await titles.first().waitFor();
        const cut = await titles.first().evaluate((el) => ({ overflow: getComputedStyle(el).textOverflow, cut: el.scrollWidth > el.clientWidth, full: el.getAttribute('title') }));
        assert.equal(cut.overflow, 'ellipsis');
        if (width < 1400) assert.ok(cut.cut, `the long summary is cut at ${width} px`);
        assert.match(cut.full, /untangle the retry cap/);
        if (width === 700) {
          const iframe = await frame.parentFrame().frameElement();
          await iframe.screenshot({ path: path.join(shotDir, `panel-${themeSlug}-${width}-index.png`) });
        }
        await showTab('search');
        await wb.page.waitForTimeout(200);
        const iframe = await frame.parentFrame().frameElement();
        await iframe.screenshot({ path: path.join(shotDir, `panel-${themeSlug}-${width}.png`) });
      }
    });
  }
});
