/** What every view of the panel shares: the connection, the saved state, navigation. */
import type { OpenTarget, PanelSession } from '../../src/shared/panelProtocol';
import type { Rpc } from './rpc';
import type { StateStore, TabId } from './state';

export interface App {
  rpc: Rpc;
  store: StateStore;
  /** The session views that need one (index, timeline) use: the scope, else the current one. */
  sessionForViews(): string | null;
  sessions(): PanelSession[];
  setScope(session: string | null): void;
  showTab(tab: TabId): void;
  /** Shows one event (or a span) in the Expand tab. */
  showSeq(from: number, to?: number): void;
  open(target: OpenTarget): void;
  status(text: string, error?: boolean): void;
  onScopeChange(listener: () => void): void;
  onLogChange(listener: () => void): void;
}

/** Value of a toolkit form control (text field, dropdown). */
export function valueOf(el: Element): string {
  return String((el as unknown as { value?: unknown }).value ?? '');
}

export function setValue(el: Element, v: string): void {
  (el as unknown as { value: string }).value = v;
}
