// "Scroll: Search History" items: the source of a captured hit, the source filter's choices, and
// logged text that stays text in the quick pick (its `$(name)` icon syntax is escaped).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claudeCodeReader, CAPTURE_SOURCES, importFiles } from '../../../src/core/capture';
import { EventLog } from '../../../src/core/log/eventLog';
import { sessionSources, sourcesOf } from '../../../src/core/log/historyQueries';
import type { SearchHit } from '../../../src/core/types';
import { SOURCE_DISPLAY, sourceDisplay } from '../../../src/shared/sourceDisplay';
import { hitItemText, quickPickText, sourceChoices } from '../../../src/vscode/searchHistoryItems';

const hit = (over: Partial<SearchHit> = {}): SearchHit => ({
  seq: 12, score: 1, kind: 'user_message', role: 'user', session: 'claude-code:s-1', ts: '2026-03-02T10:00:00.000Z',
  name: null, headline: null, snippet: 'a «walrus» question', broadened: false, ...over,
});

test('a captured hit names its source and carries its icon; Scroll\'s own hit is as before', () => {
  const captured = hitItemText(hit(), 'claude-code');
  assert.equal(captured.label, 'seq 12 · user_message');
  assert.equal(captured.description, 'Claude Code · claude-code:s-1 · 2026-03-02 10:00');
  assert.equal(captured.detail, 'a walrus question');
  assert.equal(captured.codicon, 'terminal');
  const own = hitItemText(hit({ session: 'chat-1' }));
  assert.equal(own.description, 'chat-1 · 2026-03-02 10:00');
  assert.equal(own.codicon, undefined);
  // A source Scroll does not know is shown by its own name.
  assert.match(hitItemText(hit(), 'other-agent').description, /^other-agent · /);
});

test('logged text keeps its $(name) as characters, not an icon', () => {
  assert.equal(quickPickText('run $(rm) now'), 'run \\$(rm) now');
  assert.equal(quickPickText('already \\$(x)'), 'already \\\\$(x)');
  assert.equal(quickPickText('$ (no) $() cost $5'), '$ (no) $() cost $5');
  const item = hitItemText(hit({ snippet: 'see $(alert) here', session: '$(zap)' }), '$(bug)');
  assert.equal(item.detail, 'see \\$(alert) here');
  assert.equal(item.description, '\\$(bug) · \\$(zap) · 2026-03-02 10:00');
});

test('source choices: all sources first, then each captured source with its session count', () => {
  const choices = sourceChoices(new Map([['codex:a', 'codex'], ['claude-code:b', 'claude-code'], ['claude-code:c', 'claude-code']]), 'codex');
  assert.deepEqual(choices.map((c) => [c.source, c.label, c.description]), [
    [undefined, 'All sources', "Scroll's own sessions and every captured one"],
    ['claude-code', 'Claude Code', 'claude-code · 2 captured sessions'],
    ['codex', 'Codex CLI', 'codex · 1 captured session · current filter'],
  ]);
});

test('every capture source has a label, a panel icon file and a codicon', async () => {
  const { existsSync } = await import('node:fs');
  const media = join(__dirname, '..', '..', '..', '..', 'media', 'sources');
  for (const s of CAPTURE_SOURCES) {
    const d = SOURCE_DISPLAY[s];
    assert.ok(d && d.label && d.codicon, `${s} has a display`);
    assert.ok(existsSync(join(media, `${d.icon}.svg`)), `media/sources/${d.icon}.svg`);
  }
  assert.ok(existsSync(join(media, `${sourceDisplay('unknown').icon}.svg`)), 'the generic icon');
  assert.equal(sourceDisplay('constructor').label, 'constructor', 'only the table\'s own keys');
});

test('sessionSources and sourcesOf read meta.source of captured events only', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-items-'));
  const log = EventLog.open({ path: join(dir, 'scroll.db'), session: 'own', onWarning: () => {} });
  try {
    const own = log.append({ kind: 'user_message', role: 'user', content: 'own' });
    const file = join(dir, 's-1.jsonl');
    writeFileSync(file, JSON.stringify({
      parentUuid: null, cwd: dir, sessionId: 's-1', version: '2.0.14', type: 'user', uuid: 'u-1', timestamp: '2026-03-02T10:00:00.000Z',
      message: { role: 'user', content: 'captured' },
    }) + '\n');
    await importFiles(log, claudeCodeReader, [file], { scope: [dir] });
    const captured = log.maxSeq();
    assert.deepEqual([...sessionSources(log)], [['claude-code:s-1', 'claude-code']]);
    assert.deepEqual([...sourcesOf(log, [own.seq, captured, 999])], [[captured, 'claude-code']]);
    assert.equal(sourcesOf(log, []).size, 0);
  } finally {
    log.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
