/**
 * Where a scroll_exec cell runs, as far as the user's safety goes, and the words Scroll uses for it
 * (the consent question on both paths, the status bar, the output channel). Pure: no `vscode`.
 */
import type { SandboxDecision } from '../../core/kernel/sandbox';

/**
 * - `sandboxed`: Scroll's own process in the OS sandbox — runs without asking;
 * - `unsandboxed`: Scroll's own process, no sandbox (none available, or `scroll.kernel.sandbox: off`) — asks first;
 * - `jupyter`: the user's Jupyter kernel, which Scroll cannot confine — asks first;
 * - `refused`: `scroll.kernel.sandbox: require` and no sandbox to be had — nothing runs; `refusal` says how to fix it.
 */
export type CellConfinement =
  | { kind: 'sandboxed' | 'unsandboxed' | 'jupyter'; decision: SandboxDecision }
  | { kind: 'refused'; refusal: string; decision: SandboxDecision };

/** The cell is run only after the user allowed it. */
export function cellAsksFirst(c: CellConfinement): boolean {
  return c.kind === 'unsandboxed' || c.kind === 'jupyter';
}

/** Why a cell of an unsandboxed Scroll kernel asks first, and what would sandbox it. */
export function unsandboxedReason(decision: SandboxDecision): { reason: string; fix?: string } {
  if (decision.mode === 'off') return { reason: 'scroll.kernel.sandbox is off', fix: 'set scroll.kernel.sandbox to "auto"' };
  if (!decision.probe.available) return { reason: decision.probe.reason, fix: decision.probe.fix };
  return { reason: decision.summary };
}

/** Why a cell asks first, in one line of the question. */
export function execConsentReason(c: CellConfinement): string {
  if (c.kind === 'jupyter') return 'this is your Jupyter kernel, which Scroll cannot confine';
  const { reason, fix } = unsandboxedReason(c.decision);
  return `the kernel is not sandboxed: ${reason}${fix ? ` (to sandbox it: ${fix})` : ''}`;
}

export const EXEC_CONFIRMATION_TITLE = 'Run Python in the Scroll kernel?';

/** The consent dialog shows at most this much of a cell; the chat shows the rest. */
export const CONSENT_CODE_LINES = 40;
export const CONSENT_CODE_CHARS = 4_000;

/**
 * The body of @scroll's consent dialog (plain text: a modal's detail is not Markdown): why it asks,
 * then the cell, cut at CONSENT_CODE_LINES / CONSENT_CODE_CHARS. `cut` says the cell did not fit.
 */
export function consentDetail(code: string, c: CellConfinement): { detail: string; cut: boolean } {
  const lines = code.replace(/\s+$/, '').split('\n');
  let shown = lines.slice(0, CONSENT_CODE_LINES).join('\n');
  if (shown.length > CONSENT_CODE_CHARS) shown = shown.slice(0, CONSENT_CODE_CHARS);
  const cut = shown.length < lines.join('\n').length;
  const rest = cut ? `\n… (${lines.length} lines, ${code.length} characters in all: the whole cell is shown in the chat)` : '';
  return { detail: `Scroll asks because ${execConsentReason(c)}.\n\n${shown}${rest}`, cut };
}
