import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decideSandbox, type SandboxProbe } from '../../../../src/core/kernel/sandbox';
import {
  cellAsksFirst,
  CONSENT_CODE_CHARS,
  CONSENT_CODE_LINES,
  consentDetail,
  execConsentReason,
  type CellConfinement,
} from '../../../../src/vscode/kernel/cellConfinement';

const bwrap: SandboxProbe = { available: true, kind: 'bubblewrap', command: '/usr/bin/bwrap', version: '0.8.0' };
const none: SandboxProbe = { available: false, reason: 'bwrap not found', fix: 'install bubblewrap: sudo apt install bubblewrap' };

const of = (kind: 'sandboxed' | 'unsandboxed' | 'jupyter', mode: 'auto' | 'off', probe: SandboxProbe): CellConfinement => ({ kind, decision: decideSandbox(mode, probe) });

test('cells ask first exactly when they will not run sandboxed', () => {
  assert.equal(cellAsksFirst(of('sandboxed', 'auto', bwrap)), false);
  assert.equal(cellAsksFirst(of('unsandboxed', 'off', bwrap)), true);
  assert.equal(cellAsksFirst(of('unsandboxed', 'auto', none)), true);
  assert.equal(cellAsksFirst(of('jupyter', 'auto', bwrap)), true);
  const decision = decideSandbox('require', none);
  assert.equal(cellAsksFirst({ kind: 'refused', refusal: decision.refusal!, decision }), false, 'refused cells are not asked about: they do not run');
});

test('the reason names the setting or the missing sandbox, and the fix', () => {
  assert.equal(execConsentReason(of('unsandboxed', 'off', bwrap)), 'the kernel is not sandboxed: scroll.kernel.sandbox is off (to sandbox it: set scroll.kernel.sandbox to "auto")');
  assert.equal(execConsentReason(of('unsandboxed', 'auto', none)), 'the kernel is not sandboxed: bwrap not found (to sandbox it: install bubblewrap: sudo apt install bubblewrap)');
  assert.equal(execConsentReason(of('jupyter', 'auto', bwrap)), 'this is your Jupyter kernel, which Scroll cannot confine');
});

test('the dialog shows the reason and the whole of a short cell', () => {
  const { detail, cut } = consentDetail("print('hi')\n\n", of('unsandboxed', 'off', bwrap));
  assert.equal(cut, false);
  assert.equal(detail, "Scroll asks because the kernel is not sandboxed: scroll.kernel.sandbox is off (to sandbox it: set scroll.kernel.sandbox to \"auto\").\n\nprint('hi')");
});

test('a long cell is cut in the dialog, which says so (the chat shows all of it)', () => {
  const c = of('jupyter', 'auto', bwrap);
  const many = Array.from({ length: CONSENT_CODE_LINES + 5 }, (_, i) => `x${i} = ${i}`).join('\n');
  const byLines = consentDetail(many, c);
  assert.equal(byLines.cut, true);
  assert.ok(byLines.detail.includes(`x${CONSENT_CODE_LINES - 1} = `) && !byLines.detail.includes(`x${CONSENT_CODE_LINES} = `));
  assert.match(byLines.detail, new RegExp(`\\(${CONSENT_CODE_LINES + 5} lines, \\d+ characters in all: the whole cell is shown in the chat\\)$`));
  const wide = consentDetail(`s = '${'a'.repeat(CONSENT_CODE_CHARS * 2)}'`, c);
  assert.equal(wide.cut, true);
  assert.ok(wide.detail.length < CONSENT_CODE_CHARS + 300);
  // Exactly at the limits: not cut.
  const exact = Array.from({ length: CONSENT_CODE_LINES }, () => 'x').join('\n');
  assert.equal(consentDetail(exact, c).cut, false);
});
