// Which sources the editor captures, asks about or leaves alone, from scroll.capture.sources and what was found.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { answered, askMessage, planCapture, readCaptureSetting } from '../../../../src/vscode/capture/capturePlan';

test('the setting keeps only known sources with boolean values', () => {
  assert.deepEqual(readCaptureSetting({ 'claude-code': true, codex: false, 'no-such-agent': true, cline: 'yes' }), { 'claude-code': true, codex: false });
  assert.deepEqual(readCaptureSetting(undefined), {});
  assert.deepEqual(readCaptureSetting([true]), {});
  assert.deepEqual(readCaptureSetting('claude-code'), {});
});

test('true captures (with no files yet too), false is off, unset and found is asked, unset and not found is nothing', () => {
  const plan = planCapture(
    { 'claude-code': true, codex: false, cline: true },
    { 'claude-code': 3, codex: 12, 'copilot-chat': 2, cline: 0, 'roo-code': 0, 'gemini-cli': 1 },
  );
  assert.deepEqual(plan, { capture: ['claude-code', 'cline'], ask: ['copilot-chat', 'gemini-cli'], off: ['codex'] });
});

test('a source that could not be located (absent from found) is neither captured nor asked', () => {
  assert.deepEqual(planCapture({ 'claude-code': true }, { codex: 1 }), { capture: [], ask: ['codex'], off: [] });
});

test('an answer sets the sources asked about and keeps the rest', () => {
  assert.deepEqual(answered({ codex: false }, ['claude-code', 'gemini-cli'], true), { codex: false, 'claude-code': true, 'gemini-cli': true });
  assert.deepEqual(answered({ 'claude-code': true }, ['claude-code'], false), { 'claude-code': false });
});

test('the question lists each source with its file count and says turning one off keeps what was captured', () => {
  const m = askMessage(['claude-code', 'codex'], { 'claude-code': 1, codex: 12 });
  assert.match(m, /Claude Code \(1 file\), Codex CLI \(12 files\)/);
  assert.match(m, /scroll\.capture\.sources/);
  assert.match(m, /keeps what was captured/);
});
