/**
 * Asking the user before an @scroll cell that will not run in Scroll's sandbox (the agent loop's
 * `confirm` hook, agentSession.ts). Other agents' scroll_exec calls are asked by VS Code itself
 * (the tool's confirmationMessages, registerTools.ts).
 *
 * The question is a modal dialog: "Allow", "Allow for this session", "Deny" (Escape and closing it
 * deny). The stable chat API gives a participant no confirmation widget of its own (the chat's inline
 * confirmation only appears for tools called through vscode.lm.invokeTool; `stream.confirmation` is a
 * proposed API), and response buttons (`stream.button`) stay clickable after the answer and after the
 * turn, with nothing in VS Code that shows the turn is waiting on them. A modal is answered exactly
 * once, cannot be missed or answered late, and its safe default is to deny.
 *
 * "Allow for this session" lasts while this window keeps the @scroll session, for cells of the same
 * kind (Scroll's unsandboxed process, or the user's Jupyter kernel): a change of kind asks again.
 */
import * as vscode from 'vscode';
import { consentDetail, EXEC_CONFIRMATION_TITLE, type CellConfinement } from '../kernel/cellConfinement';
import { out } from '../output';

export type ConsentAnswer = 'allow' | 'allowSession' | 'deny';

export interface ConsentRequest {
  session: string;
  code: string;
  confinement: CellConfinement;
  /** Shows the whole cell in the chat when the dialog cannot (it is cut there). */
  showCell?: (code: string) => void;
}

/** Asks the user; resolves to the choice. Tests replace it (CellConsent.setPrompt). */
export type ConsentPrompt = (req: ConsentRequest) => Promise<ConsentAnswer>;

export const CONSENT_CHOICES = { allow: 'Allow', allowSession: 'Allow for this session', deny: 'Deny' } as const;

/** The default prompt: VS Code's modal warning dialog. */
export const modalConsentPrompt: ConsentPrompt = async (req) => {
  const { detail, cut } = consentDetail(req.code, req.confinement);
  if (cut) req.showCell?.(req.code);
  const allow: vscode.MessageItem = { title: CONSENT_CHOICES.allow };
  const allowSession: vscode.MessageItem = { title: CONSENT_CHOICES.allowSession };
  const deny: vscode.MessageItem = { title: CONSENT_CHOICES.deny, isCloseAffordance: true };
  const pick = await vscode.window.showWarningMessage(EXEC_CONFIRMATION_TITLE, { modal: true, detail }, allow, allowSession, deny);
  return pick === allow ? 'allow' : pick === allowSession ? 'allowSession' : 'deny';
};

export type ConsentOutcome = 'allowed' | 'denied' | 'cancelled';

export class CellConsent {
  private prompt: ConsentPrompt = modalConsentPrompt;
  /** Sessions whose user chose "Allow for this session", with the kinds of cell allowed. */
  private readonly allowed = new Map<string, Set<CellConfinement['kind']>>();

  /** Replaces the prompt (tests); undefined restores the modal dialog. */
  setPrompt(prompt: ConsentPrompt | undefined): void {
    this.prompt = prompt ?? modalConsentPrompt;
  }

  /** Whether the user allowed every cell of this kind in the session already. */
  allowedForSession(session: string, kind: CellConfinement['kind']): boolean {
    return this.allowed.get(session)?.has(kind) === true;
  }

  /**
   * Asks (unless the session allows this kind already). A cancelled turn stops waiting: `cancelled`,
   * which is not the user's answer (nothing is logged as declined).
   */
  async ask(req: ConsentRequest, token?: vscode.CancellationToken): Promise<ConsentOutcome> {
    const kind = req.confinement.kind;
    if (this.allowedForSession(req.session, kind)) {
      out.debug(`cell consent, session ${req.session}: allowed for this session (${kind})`);
      return 'allowed';
    }
    if (token?.isCancellationRequested) return 'cancelled';
    let sub: vscode.Disposable | undefined;
    const cancelled = new Promise<'cancelled'>((resolve) => (sub = token?.onCancellationRequested(() => resolve('cancelled'))));
    const t0 = performance.now();
    out.info(`cell consent, session ${req.session}: asking (${kind}; ${req.code.split('\n').length} lines)`);
    try {
      const answer = await Promise.race([this.prompt(req), cancelled]);
      out.info(`cell consent, session ${req.session}: ${answer} after ${Math.round(performance.now() - t0)} ms`);
      if (answer === 'cancelled') return 'cancelled';
      if (answer === 'allowSession') {
        const kinds = this.allowed.get(req.session) ?? new Set();
        kinds.add(kind);
        this.allowed.set(req.session, kinds);
      }
      return answer === 'deny' ? 'denied' : 'allowed';
    } finally {
      sub?.dispose();
    }
  }
}
