/** Sessions tab: every session with its span, size and time; choosing one scopes the panel. */
import type { PanelSession } from '../../src/shared/panelProtocol';
import type { App } from './app';
import { button, formatCount, formatTime, h, replaceChildren } from './dom';

export class SessionsView {
  readonly element: HTMLElement;
  private readonly body: HTMLElement;
  private readonly header: HTMLElement;

  constructor(private readonly app: App) {
    this.header = h('div', { class: 'status', role: 'status', 'data-testid': 'sessions-status' });
    this.body = h('tbody');
    const table = h('table', { class: 'sessions', 'aria-label': 'Sessions', 'data-testid': 'sessions-table' },
      h('thead', null, h('tr', null,
        h('th', { scope: 'col' }, 'Session'),
        h('th', { scope: 'col' }, 'First'),
        h('th', { scope: 'col' }, 'Last'),
        h('th', { scope: 'col', class: 'num' }, 'Events'),
        h('th', { scope: 'col', class: 'num' }, 'Tokens'),
        h('th', { scope: 'col' }, 'Seqs'),
        h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')),
      )),
      this.body,
    );
    this.element = h('div', { class: 'sessions-view' }, this.header, table);
    app.onScopeChange(() => this.render(app.sessions()));
  }

  render(sessions: PanelSession[]): void {
    const scope = this.app.store.state.scope;
    this.header.textContent = sessions.length
      ? `${sessions.length} session${sessions.length === 1 ? '' : 's'}${scope ? ` · scoped to ${scope}` : ' · showing all'}`
      : 'No sessions in this workspace yet.';
    const sorted = [...sessions].sort((a, b) => b.lastSeq - a.lastSeq);
    replaceChildren(this.body, ...sorted.map((s) => {
      const scoped = s.session === scope;
      return h('tr', { class: scoped ? 'scoped' : null, 'aria-current': scoped ? 'true' : null },
        h('th', { scope: 'row', class: 'session' }, s.session),
        h('td', null, h('time', { datetime: s.firstTs }, formatTime(s.firstTs))),
        h('td', null, h('time', { datetime: s.lastTs }, formatTime(s.lastTs))),
        h('td', { class: 'num' }, formatCount(s.events)),
        h('td', { class: 'num' }, formatCount(s.tokens)),
        h('td', null, `#${s.firstSeq}–${s.lastSeq}`),
        h('td', { class: 'actions' },
          scoped
            ? button('Show all sessions', () => this.app.setScope(null), { testId: 'unscope-session' })
            : button('Scope to this', () => this.app.setScope(s.session), { ariaLabel: `Scope the panel to session ${s.session}`, testId: 'scope-session' }),
          button('Timeline', () => {
            this.app.setScope(s.session);
            this.app.showTab('timeline');
          }, { ariaLabel: `Timeline of session ${s.session}` }),
        ),
      );
    }));
  }
}
