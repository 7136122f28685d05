/**
 * Which chat session the user works in, and each session's working-view figures (status bar, the
 * panel's current session, export and index commands). `execSession()` is the session whose kernel a
 * scroll_exec from another agent (Copilot agent mode, through vscode.lm) uses and the restart
 * command targets: the @scroll session used last, else this window's own tools session.
 */
import * as vscode from 'vscode';
import { newSessionId } from '../core/sessionId';

export interface SessionFigures {
  session: string;
  viewTokens: number;
  budget: number;
  evictions: number;
}

export class SessionState implements vscode.Disposable {
  private activeId: string | undefined;
  private readonly figures = new Map<string, SessionFigures>();
  private readonly changed = new vscode.EventEmitter<void>();
  private tools: string | undefined;
  /** @scroll requests answered in this window (tests wait on it). */
  turnsCompleted = 0;

  readonly onDidChange = this.changed.event;

  /** The chat session the user worked in last. */
  get active(): string | undefined {
    return this.activeId;
  }

  setActive(session: string): void {
    this.activeId = session;
    this.changed.fire();
  }

  /** The session scroll_exec runs in when another agent calls it before any @scroll turn (one per window). */
  get toolsSession(): string {
    return (this.tools ??= newSessionId('tools'));
  }

  execSession(): string {
    return this.activeId ?? this.toolsSession;
  }

  reportFigures(f: SessionFigures): void {
    this.figures.set(f.session, f);
    this.activeId = f.session;
    this.changed.fire();
  }

  figuresOf(session: string | undefined): SessionFigures | undefined {
    return session ? this.figures.get(session) : undefined;
  }

  turnDone(): void {
    this.turnsCompleted++;
    this.changed.fire();
  }

  dispose(): void {
    this.changed.dispose();
  }
}
