/**
 * The history panel's front end. Builds the UI with the webview UI toolkit, restores the saved
 * state, and talks to the extension only through the typed protocol (src/shared/panelProtocol.ts).
 */
import {
  provideVSCodeDesignSystem,
  vsCodeBadge,
  vsCodeButton,
  vsCodeDropdown,
  vsCodeOption,
  vsCodePanels,
  vsCodePanelTab,
  vsCodePanelView,
  vsCodeProgressRing,
  vsCodeTextField,
} from '@vscode/webview-ui-toolkit';
import type { OpenTarget, PanelPush, PanelSession } from '../../src/shared/panelProtocol';
import { setValue, valueOf, type App } from './app';
import { h, replaceChildren } from './dom';
import { ExpandView } from './expandView';
import { IndexView } from './indexView';
import { Rpc, vscodeApi } from './rpc';
import { SearchView } from './searchView';
import { SessionsView } from './sessionsView';
import { loadState, StateStore, TABS, type TabId } from './state';
import { TimelineView } from './timelineView';

provideVSCodeDesignSystem().register(
  vsCodeBadge(), vsCodeButton(), vsCodeDropdown(), vsCodeOption(), vsCodePanels(), vsCodePanelTab(),
  vsCodePanelView(), vsCodeProgressRing(), vsCodeTextField(),
);

const TAB_LABELS: Record<TabId, string> = {
  search: 'Search',
  expand: 'Expand',
  index: 'Eviction index',
  timeline: 'Timeline',
  sessions: 'Sessions',
};

function start(): void {
  const rpc = new Rpc(vscodeApi);
  const store = new StateStore(vscodeApi, loadState(vscodeApi));
  let sessions: PanelSession[] = [];
  let currentSession: string | null = null;
  const scopeListeners: (() => void)[] = [];
  const logListeners: (() => void)[] = [];

  const banner = h('div', { class: 'banner', role: 'alert', hidden: true, 'data-testid': 'banner' });
  const scopeSelect = h('vscode-dropdown', { id: 'scope', 'aria-label': 'Session scope', 'data-testid': 'scope' },
    h('vscode-option', { value: '' }, 'All sessions'));
  const panels = h('vscode-panels', { 'aria-label': 'Scroll history views', activeid: `tab-${store.state.tab}` });

  const app: App = {
    rpc,
    store,
    sessionForViews: () => store.state.scope ?? currentSession ?? [...sessions].sort((a, b) => b.lastSeq - a.lastSeq)[0]?.session ?? null,
    sessions: () => sessions,
    setScope(session) {
      store.update({ scope: session });
      setValue(scopeSelect, session ?? '');
      for (const l of scopeListeners) l();
    },
    showTab(tab) {
      (panels as unknown as { activeid: string }).activeid = `tab-${tab}`;
      onTab(tab);
    },
    showSeq(from, to) {
      app.showTab('expand');
      expand.show(from, to);
    },
    open(target: OpenTarget) {
      rpc.request('open', { target }).catch((e) => app.status(e instanceof Error ? e.message : String(e), true));
    },
    status(text, error = false) {
      banner.textContent = text;
      banner.hidden = !text;
      banner.classList.toggle('error', error);
    },
    onScopeChange: (l) => scopeListeners.push(l),
    onLogChange: (l) => logListeners.push(l),
  };

  const search = new SearchView(app);
  const expand = new ExpandView(app);
  const index = new IndexView(app);
  const timeline = new TimelineView(app);
  const sessionsView = new SessionsView(app);
  const views: Record<TabId, HTMLElement> = {
    search: search.element,
    expand: expand.element,
    index: index.element,
    timeline: timeline.element,
    sessions: sessionsView.element,
  };
  const loaded = new Set<TabId>();

  function onTab(tab: TabId): void {
    store.update({ tab });
    if (loaded.has(tab)) return;
    loaded.add(tab);
    if (tab === 'index') void index.load();
    if (tab === 'timeline') void timeline.load();
  }

  for (const t of TABS) {
    panels.appendChild(h('vscode-panel-tab', { id: `tab-${t}`, 'data-testid': `tab-${t}` }, TAB_LABELS[t]));
  }
  for (const t of TABS) panels.appendChild(h('vscode-panel-view', { id: `view-${t}` }, views[t]));
  panels.addEventListener('change', () => {
    const id = String((panels as unknown as { activeid?: string }).activeid ?? '');
    const tab = id.replace(/^tab-/, '') as TabId;
    if ((TABS as string[]).includes(tab)) onTab(tab);
  });
  scopeSelect.addEventListener('change', () => {
    const v = valueOf(scopeSelect);
    if ((v || null) !== store.state.scope) app.setScope(v || null);
  });

  const root = document.getElementById('app')!;
  replaceChildren(root,
    h('header', { class: 'top' },
      h('h1', null, 'Scroll history'),
      h('div', { class: 'field' }, h('label', { for: 'scope' }, 'Session'), scopeSelect),
    ),
    banner,
    panels,
  );
  root.removeAttribute('aria-busy');

  async function refreshSessions(): Promise<void> {
    try {
      sessions = await rpc.request('sessions', {});
    } catch (e) {
      app.status(e instanceof Error ? e.message : String(e), true);
      return;
    }
    const sorted = [...sessions].sort((a, b) => b.lastSeq - a.lastSeq);
    replaceChildren(scopeSelect, h('vscode-option', { value: '' }, 'All sessions'),
      ...sorted.map((s) => h('vscode-option', { value: s.session }, `${s.session} (${s.events})`)));
    if (store.state.scope && !sessions.some((s) => s.session === store.state.scope)) store.update({ scope: null });
    setValue(scopeSelect, store.state.scope ?? '');
    sessionsView.render(sessions);
  }

  rpc.onPush((m: PanelPush) => {
    if (m.type === 'init') {
      currentSession = m.currentSession;
      if (m.error) {
        app.status(m.error, true);
        return;
      }
      void (async () => {
        await refreshSessions();
        try {
          const f = await rpc.request('facets', {});
          search.setFacets(f.kinds, f.roles);
        } catch (e) {
          app.status(e instanceof Error ? e.message : String(e), true);
        }
        await search.run();
        expand.restore();
        onTab(store.state.tab);
        const sel = store.state.selectedSeq;
        if (sel !== null) void search.select(sel);
      })();
    } else if (m.type === 'logChanged') {
      void refreshSessions();
      for (const l of logListeners) l();
    } else if (m.type === 'reveal') {
      if (m.session !== undefined) app.setScope(m.session);
      if (m.query !== undefined) {
        app.showTab('search');
        setValue(document.getElementById('query')!, m.query);
        store.update({ query: m.query });
        void search.run();
      }
      if (m.seq !== undefined) app.showSeq(m.seq);
    }
  });
  window.addEventListener('beforeunload', () => store.flush());
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'hidden') store.flush();
  });
  rpc.ready();
  if (store.state.tab === 'search') setTimeout(() => search.focus(), 0);
}

start();
