/**
 * The panel's UI state, kept with `setState` so hiding the panel or reloading the window restores
 * it (the serializer re-creates the webview; `getState` hands this back).
 */
import type { SearchFilters } from '../../src/shared/panelProtocol';
import type { VsCodeApi } from './rpc';

export type TabId = 'search' | 'expand' | 'index' | 'timeline' | 'sessions';
export const TABS: TabId[] = ['search', 'expand', 'index', 'timeline', 'sessions'];

export interface PanelState {
  v: 1;
  tab: TabId;
  /** Session the panel is scoped to; null = all sessions. */
  scope: string | null;
  query: string;
  filters: Omit<SearchFilters, 'session'>;
  selectedSeq: number | null;
  hitScrollTop: number;
  expandSpec: string;
  expandedIndexNodes: string[];
  timelineCursor: number | null;
}

export function defaultState(): PanelState {
  return {
    v: 1,
    tab: 'search',
    scope: null,
    query: '',
    filters: {},
    selectedSeq: null,
    hitScrollTop: 0,
    expandSpec: '',
    expandedIndexNodes: [],
    timelineCursor: null,
  };
}

function isTab(v: unknown): v is TabId {
  return typeof v === 'string' && (TABS as string[]).includes(v);
}

/** Reads saved state defensively: a state from an older build must not break the panel. */
export function loadState(api: VsCodeApi): PanelState {
  const s = defaultState();
  const raw = api.getState() as Partial<PanelState> | undefined;
  if (!raw || typeof raw !== 'object') return s;
  if (isTab(raw.tab)) s.tab = raw.tab;
  if (typeof raw.scope === 'string') s.scope = raw.scope;
  if (typeof raw.query === 'string') s.query = raw.query;
  if (raw.filters && typeof raw.filters === 'object') s.filters = { ...raw.filters };
  if (typeof raw.selectedSeq === 'number') s.selectedSeq = raw.selectedSeq;
  if (typeof raw.hitScrollTop === 'number') s.hitScrollTop = raw.hitScrollTop;
  if (typeof raw.expandSpec === 'string') s.expandSpec = raw.expandSpec;
  if (Array.isArray(raw.expandedIndexNodes)) s.expandedIndexNodes = raw.expandedIndexNodes.filter((x) => typeof x === 'string');
  if (typeof raw.timelineCursor === 'number') s.timelineCursor = raw.timelineCursor;
  return s;
}

export class StateStore {
  private timer: ReturnType<typeof setTimeout> | undefined;
  constructor(private readonly api: VsCodeApi, readonly state: PanelState) {}

  update(patch: Partial<PanelState>): void {
    Object.assign(this.state, patch);
    // Scroll events fire often; write at most every 150 ms.
    if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.api.setState(this.state);
      }, 150);
    }
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.api.setState(this.state);
  }
}
