/**
 * Index tab: the session's eviction index as a tree by level. Each block shows its seq span and
 * title; "Show" lists what it covers, "Open in editor" opens the segment (leaf) or the range.
 * Keyboard: a tree (role=tree) with one tab stop; arrows move and expand/collapse, Enter shows,
 * `o` opens in the editor.
 */
import type { IndexNode, IndexTree, PanelSession } from '../../src/shared/panelProtocol';
import { newestFirst, plural, type App } from './app';
import { button } from './components';
import { h, replaceChildren } from './dom';
import { eventCard } from './eventView';

function nodeKey(n: IndexNode): string {
  return `${n.level}:${n.from}-${n.to}`;
}

/** What a level means, for the label's tooltip and for screen readers. */
export function levelMeaning(level: number): string {
  return level === 0
    ? 'L0: one evicted segment (the events the agent moved out of its view in one go)'
    : `L${level}: a summary block merging several L${level - 1} blocks`;
}

function titleText(n: IndexNode): string {
  const t = n.title;
  return [t.task, t.state && `state: ${t.state}`, t.next && `next: ${t.next}`].filter(Boolean).join(' · ') || '(untitled)';
}

export class IndexView {
  readonly element: HTMLElement;
  private readonly header: HTMLElement;
  private readonly tree: HTMLElement;
  private readonly segment: HTMLElement;
  private items: HTMLElement[] = [];
  private loadedFor: string | null = null;
  private readonly others: HTMLElement;
  private shownSessionsKey = '';

  constructor(private readonly app: App) {
    this.header = h('div', { class: 'status', role: 'status', 'aria-live': 'polite', 'data-testid': 'index-status' });
    this.others = h('div', { class: 'index-others', 'data-testid': 'index-others' });
    const legend = h('p', { class: 'hint legend-text', 'data-testid': 'index-legend' },
      'L0 = one evicted segment: events the agent moved out of its working view in one go. ',
      'L1, L2 … = summary blocks, each merging several blocks of the level below. Expand a block to see what it covers.');
    this.tree = h('ul', { class: 'tree', role: 'tree', 'aria-label': 'Eviction index', 'data-testid': 'index-tree' });
    this.segment = h('section', { class: 'segment', 'aria-label': 'Evicted segment', 'data-testid': 'index-segment' });
    this.tree.addEventListener('keydown', (ev) => this.onKey(ev));
    this.element = h('div', { class: 'index-view' }, this.header, legend, this.others, h('div', { class: 'split' }, h('div', { class: 'tree-wrap' }, this.tree), this.segment));
    app.onScopeChange(() => {
      if (this.loadedFor !== null) void this.load();
    });
    // A chat that evicts adds index blocks (or the first session with evictions).
    app.onSessionsChange(() => {
      if (this.loadedFor === null) return;
      const key = this.sessionsKey();
      if (key !== this.shownSessionsKey) void this.load();
    });
  }

  private sessionsKey(): string {
    return this.app.sessions().map((s) => `${s.session}:${s.evictions}`).join('|');
  }

  /** "Scope to" buttons for sessions that have evictions (most evictions' newest first). */
  private sessionButtons(sessions: PanelSession[]): HTMLElement {
    return h('div', { class: 'session-buttons' }, ...sessions.map((s) =>
      button(`${s.session} (${plural(s.evictions, 'eviction')})`, () => this.app.setScope(s.session), {
        ariaLabel: `Show the eviction index of session ${s.session}`, testId: 'index-session',
      })));
  }

  async load(): Promise<void> {
    this.loadedFor = this.app.scope() ?? '';
    this.shownSessionsKey = this.sessionsKey();
    const scope = this.app.scope();
    const withEvictions = newestFirst(this.app.sessions()).filter((s) => s.evictions > 0);
    replaceChildren(this.tree);
    replaceChildren(this.others);
    this.items = [];
    if (scope === null) return this.loadAll(withEvictions);
    return this.loadSession(scope, withEvictions.filter((s) => s.session !== scope));
  }

  /** All sessions: every session that has evictions, newest first, each a top-level tree item. */
  private async loadAll(withEvictions: PanelSession[]): Promise<void> {
    const without = this.app.sessions().length - withEvictions.length;
    if (!withEvictions.length) {
      this.header.textContent = this.app.sessions().length
        ? 'No session has evicted anything yet: the index grows once the agent moves events out of its working view.'
        : 'No session yet: the index appears once the agent has evicted something.';
      return;
    }
    this.header.textContent = `${plural(withEvictions.length, 'session')} with evictions${without ? ` (${plural(without, 'other session')} without)` : ''} · newest first`;
    const expanded = new Set(this.app.store.state.expandedIndexNodes);
    const trees = await Promise.all(withEvictions.map((s) => this.app.rpc.request('index', { session: s.session }).catch((e: unknown) => e)));
    if (this.app.scope() !== null) return; // the scope changed while loading
    withEvictions.forEach((s, i) => {
      const t = trees[i];
      const key = `session:${s.session}`;
      const label = h('span', { class: 'tree-label' },
        h('span', { class: 'title' }, t instanceof Error || !(t as IndexTree).roots
          ? `${s.session}: ${t instanceof Error ? t.message : String(t)}`
          : `${s.session} · ${plural((t as IndexTree).segments, 'evicted segment')}`));
      const row = h('div', { class: 'tree-row' }, label,
        button('Scope to this', () => this.app.setScope(s.session), { ariaLabel: `Scope the panel to session ${s.session}`, testId: 'index-scope' }));
      const open = expanded.has(key) || withEvictions.length === 1;
      const li = h('li', {
        role: 'treeitem', tabindex: -1, 'aria-level': 1, 'aria-expanded': String(open),
        'aria-label': `session ${s.session}, ${plural(s.evictions, 'eviction')}`, 'data-key': key, 'data-session': s.session,
      }, row);
      const group = h('ul', { role: 'group' });
      if (!(t instanceof Error) && (t as IndexTree).roots) for (const n of (t as IndexTree).roots) group.appendChild(this.renderNode(n, expanded, 2));
      group.hidden = !open;
      li.appendChild(group);
      label.addEventListener('click', () => this.toggle(li));
      this.tree.appendChild(li);
    });
    this.refreshItems();
    this.items[0]?.setAttribute('tabindex', '0');
  }

  private async loadSession(session: string, others: PanelSession[]): Promise<void> {
    this.header.textContent = `Loading the index of ${session}…`;
    let tree: IndexTree;
    try {
      tree = await this.app.rpc.request('index', { session });
    } catch (e) {
      this.header.textContent = e instanceof Error ? e.message : String(e);
      return;
    }
    if (this.app.scope() !== session) return;
    this.header.textContent = tree.segments
      ? `Session ${session}: ${plural(tree.segments, 'evicted segment')}, ${plural(tree.roots.length, 'top-level block')}`
      : `Session ${session}: nothing has been evicted from the view yet.`;
    if (!tree.segments && others.length) {
      replaceChildren(this.others, h('p', null, 'Sessions with evictions:'), this.sessionButtons(others));
    }
    const expanded = new Set(this.app.store.state.expandedIndexNodes);
    for (const n of tree.roots) this.tree.appendChild(this.renderNode(n, expanded, 1));
    this.refreshItems();
    this.items[0]?.setAttribute('tabindex', '0');
  }

  private renderNode(n: IndexNode, expanded: Set<string>, depth: number): HTMLElement {
    const key = nodeKey(n);
    const hasChildren = n.children.length > 0;
    const label = h('span', { class: 'tree-label' },
      h('span', { class: 'span' }, `#${n.from}–${n.to}`),
      h('abbr', { class: 'level', title: levelMeaning(n.level) }, `L${n.level}`),
      h('span', { class: 'title', title: titleText(n) }, titleText(n)),
    );
    const open = () => this.app.open(n.evictionSeq !== null ? { kind: 'segment', evictionSeq: n.evictionSeq } : { kind: 'range', from: n.from, to: n.to });
    const row = h('div', { class: 'tree-row' },
      label,
      h('span', { class: 'tree-actions' },
        button('Show', () => void this.showSegment(n), { ariaLabel: `Show events ${n.from} to ${n.to}`, testId: 'index-show' }),
        button('Open in editor', open, { ariaLabel: `Open ${n.from} to ${n.to} in an editor tab`, testId: 'index-open' })),
    );
    const li = h('li', {
      role: 'treeitem',
      tabindex: -1,
      'aria-level': depth,
      'aria-label': `seq ${n.from} to ${n.to}, ${levelMeaning(n.level)}: ${titleText(n)}`,
      'aria-expanded': hasChildren ? String(expanded.has(key)) : null,
      'data-key': key,
    }, row);
    (li as HTMLElement & { _node?: IndexNode })._node = n;
    if (hasChildren) {
      const group = h('ul', { role: 'group' });
      for (const c of n.children) group.appendChild(this.renderNode(c, expanded, depth + 1));
      group.hidden = !expanded.has(key);
      li.appendChild(group);
      label.addEventListener('click', () => this.toggle(li));
    } else {
      label.addEventListener('click', () => void this.showSegment(n));
    }
    return li;
  }

  private refreshItems(): void {
    this.items = [...this.tree.querySelectorAll<HTMLElement>('li[role=treeitem]')].filter((li) => !li.closest('ul[hidden]'));
  }

  private toggle(li: HTMLElement, force?: boolean): void {
    const group = li.querySelector(':scope > ul[role=group]') as HTMLElement | null;
    if (!group) return;
    const open = force ?? group.hidden;
    group.hidden = !open;
    li.setAttribute('aria-expanded', String(open));
    const key = li.getAttribute('data-key') ?? '';
    const set = new Set(this.app.store.state.expandedIndexNodes);
    if (open) set.add(key);
    else set.delete(key);
    this.app.store.update({ expandedIndexNodes: [...set] });
    this.refreshItems();
  }

  private focusItem(li: HTMLElement | undefined): void {
    if (!li) return;
    for (const it of this.items) it.setAttribute('tabindex', '-1');
    li.setAttribute('tabindex', '0');
    li.focus();
  }

  private onKey(ev: KeyboardEvent): void {
    const li = (ev.target as Element).closest('li[role=treeitem]') as HTMLElement | null;
    if (!li || ev.target !== li) return;
    const i = this.items.indexOf(li);
    const node = (li as HTMLElement & { _node?: IndexNode })._node;
    switch (ev.key) {
      case 'ArrowDown': this.focusItem(this.items[i + 1]); break;
      case 'ArrowUp': this.focusItem(this.items[i - 1]); break;
      case 'Home': this.focusItem(this.items[0]); break;
      case 'End': this.focusItem(this.items[this.items.length - 1]); break;
      case 'ArrowRight':
        if (li.getAttribute('aria-expanded') === 'false') this.toggle(li, true);
        else this.focusItem(this.items[i + 1]);
        break;
      case 'ArrowLeft':
        if (li.getAttribute('aria-expanded') === 'true') this.toggle(li, false);
        else this.focusItem(li.parentElement?.closest('li[role=treeitem]') as HTMLElement | undefined);
        break;
      case 'Enter':
        if (node) void this.showSegment(node);
        break;
      case 'o':
        if (node) this.app.open(node.evictionSeq !== null ? { kind: 'segment', evictionSeq: node.evictionSeq } : { kind: 'range', from: node.from, to: node.to });
        break;
      default:
        return;
    }
    ev.preventDefault();
  }

  private async showSegment(n: IndexNode): Promise<void> {
    replaceChildren(this.segment, h('p', { class: 'muted' }, 'Loading…'));
    try {
      const page = n.evictionSeq !== null
        ? await this.app.rpc.request('segment', { evictionSeq: n.evictionSeq })
        : await this.app.rpc.request('expand', { from: n.from, to: n.to });
      replaceChildren(this.segment,
        h('h3', { tabindex: -1 }, `#${n.from}–${n.to}: ${titleText(n)}`),
        ...page.events.map((e) => eventCard(e, { rpc: this.app.rpc, open: (t) => this.app.open(t), showStatus: (t, er) => this.app.status(t, er) }, { compact: true })),
        page.nextFrom !== null
          ? h('p', null, `Showing the first ${page.events.length} events. `, button('Show all in Expand', () => this.app.showSeq(n.from, n.to)))
          : null,
      );
      this.segment.querySelector<HTMLElement>('h3')?.focus();
    } catch (e) {
      replaceChildren(this.segment, h('p', { class: 'error' }, e instanceof Error ? e.message : String(e)));
    }
  }
}
