/** What every view of the panel shares: the connection, the saved state, navigation. */
import type { OpenTarget, PanelSession } from '../../src/shared/panelProtocol';
import type { Rpc } from './rpc';
import type { StateStore, TabId } from './state';

export interface App {
  rpc: Rpc;
  store: StateStore;
  /**
   * The panel's one session scope (null = all sessions). The dropdown, the Sessions tab, the
   * search filter, the Eviction index and the Timeline all read it here and nowhere else.
   */
  scope(): string | null;
  setScope(session: string | null): void;
  sessions(): PanelSession[];
  /** The chat session in use when the panel opened (marked "current" in the Sessions tab). */
  currentSession(): string | null;
  showTab(tab: TabId): void;
  /** Shows one event (or a span) in the Expand tab. */
  showSeq(from: number, to?: number): void;
  open(target: OpenTarget): void;
  status(text: string, error?: boolean): void;
  onScopeChange(listener: () => void): void;
  onLogChange(listener: () => void): void;
  /** Called after the session list was re-read (the log grew). */
  onSessionsChange(listener: () => void): void;
}

/** Sessions newest first (by last seq). */
export function newestFirst(sessions: PanelSession[]): PanelSession[] {
  return [...sessions].sort((a, b) => b.lastSeq - a.lastSeq);
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}
