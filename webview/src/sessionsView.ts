/** Sessions tab: every session with its span, size and time; choosing one scopes the panel. */
import { newestFirst, plural, type App } from './app';
import { button, sourceBadge } from './components';
import { formatCount, formatTime, h, replaceChildren } from './dom';

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
        h('th', { scope: 'col', class: 'num' }, 'Evictions'),
        h('th', { scope: 'col', class: 'num' }, 'Tokens'),
        h('th', { scope: 'col' }, 'Seqs'),
        h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Actions')),
      )),
      this.body,
    );
    this.element = h('div', { class: 'sessions-view' }, this.header, table);
    app.onScopeChange(() => this.render());
    app.onSessionsChange(() => this.render());
  }

  render(): void {
    const sessions = this.app.sessions();
    const scope = this.app.scope();
    this.header.textContent = sessions.length
      ? `${plural(sessions.length, 'session')}${scope ? ` · scoped to ${scope}` : ' · showing all'}`
      : 'No sessions in this workspace yet.';
    const current = this.app.currentSession();
    // Each cell names its column (data-label) for the narrow layout, where the header row is hidden.
    const cell = (label: string, cls: string | null, ...children: (Node | string)[]) => h('td', { class: cls, 'data-label': label }, ...children);
    replaceChildren(this.body, ...newestFirst(sessions).map((s) => {
      const scoped = s.session === scope;
      return h('tr', { class: scoped ? 'scoped' : null, 'aria-current': scoped ? 'true' : null, 'data-session': s.session },
        h('th', { scope: 'row', class: 'session', title: s.session },
          s.session,
          s.source ? h('span', { class: 'session-source' }, ' · ', sourceBadge(s.source)) : null,
          s.session === current ? h('span', { class: 'current' }, ' · current chat') : null),
        cell('First', null, h('time', { datetime: s.firstTs }, formatTime(s.firstTs))),
        cell('Last', null, h('time', { datetime: s.lastTs }, formatTime(s.lastTs))),
        cell('Events', 'num', formatCount(s.events)),
        cell('Evictions', 'num', formatCount(s.evictions)),
        cell('Tokens', 'num', formatCount(s.tokens)),
        cell('Seqs', null, `#${s.firstSeq}–${s.lastSeq}`),
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
