/**
 * The history panel's front end. Builds the UI from the panel's components (src: components.ts),
 * restores the saved state, and talks to the extension only through the typed protocol
 * (src/shared/panelProtocol.ts).
 */
import type { OpenTarget, PanelPush, PanelSession } from '../../src/shared/panelProtocol';
import { newestFirst, plural, type App } from './app';
import { dropdown, registerComponents, setOptions, setValue, Tabs, valueOf, type DropdownOption } from './components';
import { h, replaceChildren } from './dom';
import { ExpandView } from './expandView';
import { IndexView } from './indexView';
import { Rpc, vscodeApi } from './rpc';
import { SearchView } from './searchView';
import { SessionsView } from './sessionsView';
import { loadState, StateStore, TABS, type TabId } from './state';
import { TimelineView } from './timelineView';

registerComponents();

const TAB_LABELS: Record<TabId, string> = {
  search: 'Search',
  expand: 'Expand',
  index: 'Eviction index',
  timeline: 'Timeline',
  sessions: 'Sessions',
};

const ALL_SESSIONS = 'All sessions';

function scopeOptions(sessions: PanelSession[]): DropdownOption[] {
  return [
    { value: '', label: ALL_SESSIONS },
    ...newestFirst(sessions).map((s) => ({
      value: s.session,
      label: `${s.session} (${plural(s.events, 'event')}${s.evictions ? `, ${plural(s.evictions, 'eviction')}` : ''})`,
    })),
  ];
}

function start(): void {
  const rpc = new Rpc(vscodeApi);
  const store = new StateStore(vscodeApi, loadState(vscodeApi));
  let sessions: PanelSession[] = [];
  let currentSession: string | null = null;
  const scopeListeners: (() => void)[] = [];
  const logListeners: (() => void)[] = [];
  const sessionListeners: (() => void)[] = [];

  const banner = h('div', { class: 'banner', role: 'alert', hidden: true, 'data-testid': 'banner' });
  const scopeSelect = dropdown({ id: 'scope', ariaLabel: 'Session scope', testId: 'scope', options: scopeOptions([]), value: '' });

  const app: App = {
    rpc,
    store,
    scope: () => store.state.scope,
    sessions: () => sessions,
    currentSession: () => currentSession,
    setScope(session) {
      const changed = session !== store.state.scope;
      store.update({ scope: session });
      if (valueOf(scopeSelect) !== (session ?? '')) setValue(scopeSelect, session ?? '');
      if (changed) for (const l of scopeListeners) l();
    },
    showTab(tab) {
      tabs.select(tab);
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
    onSessionsChange: (l) => sessionListeners.push(l),
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

  const tabs = new Tabs<TabId>(TABS.map((t) => ({ id: t, label: TAB_LABELS[t], panel: views[t] })), store.state.tab, onTab, 'Scroll history views');
  scopeSelect.addEventListener('change', () => {
    const v = valueOf(scopeSelect) || null;
    if (v !== store.state.scope) app.setScope(v);
  });

  const root = document.getElementById('app')!;
  replaceChildren(root,
    h('header', { class: 'top' },
      h('h1', null, 'Scroll history'),
      h('div', { class: 'field scope-field' }, h('label', { for: 'scope' }, 'Session'), scopeSelect),
    ),
    banner,
    tabs.element,
  );
  root.removeAttribute('aria-busy');

  let shownOptions = '';
  async function refreshSessions(): Promise<void> {
    try {
      sessions = await rpc.request('sessions', {});
    } catch (e) {
      app.status(e instanceof Error ? e.message : String(e), true);
      return;
    }
    // A scope whose session is gone (another workspace's state) falls back to all sessions.
    if (store.state.scope && !sessions.some((s) => s.session === store.state.scope)) app.setScope(null);
    const options = scopeOptions(sessions);
    const key = JSON.stringify(options);
    // Rebuilt only when it changed: the log grows while a chat runs, and a rebuild closes an open list.
    if (key !== shownOptions || valueOf(scopeSelect) !== (store.state.scope ?? '')) setOptions(scopeSelect, options, store.state.scope ?? '');
    shownOptions = key;
    scopeSelect.setAttribute('data-scope', store.state.scope ?? '');
    for (const l of sessionListeners) l();
  }
  app.onScopeChange(() => scopeSelect.setAttribute('data-scope', store.state.scope ?? ''));

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
        search.setQuery(m.query);
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
