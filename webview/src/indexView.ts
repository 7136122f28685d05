/**
 * Index tab: the session's eviction index as a tree by level. Each block shows its seq span and
 * title; "Show" lists what it covers, "Open in editor" opens the segment (leaf) or the range.
 * Keyboard: a tree (role=tree) with one tab stop; arrows move and expand/collapse, Enter shows,
 * `o` opens in the editor.
 */
import type { IndexNode, IndexTree } from '../../src/shared/panelProtocol';
import type { App } from './app';
import { button, h, replaceChildren } from './dom';
import { eventCard } from './eventView';

function nodeKey(n: IndexNode): string {
  return `${n.level}:${n.from}-${n.to}`;
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

  constructor(private readonly app: App) {
    this.header = h('div', { class: 'status', role: 'status', 'aria-live': 'polite', 'data-testid': 'index-status' });
    this.tree = h('ul', { class: 'tree', role: 'tree', 'aria-label': 'Eviction index', 'data-testid': 'index-tree' });
    this.segment = h('section', { class: 'segment', 'aria-label': 'Evicted segment', 'data-testid': 'index-segment' });
    this.tree.addEventListener('keydown', (ev) => this.onKey(ev));
    this.element = h('div', { class: 'index-view' }, this.header, h('div', { class: 'split' }, h('div', { class: 'tree-wrap' }, this.tree), this.segment));
    app.onScopeChange(() => {
      if (this.loadedFor !== null) void this.load();
    });
  }

  async load(): Promise<void> {
    const session = this.app.sessionForViews();
    replaceChildren(this.tree);
    this.items = [];
    if (!session) {
      this.header.textContent = 'No session yet: the index appears once the agent has evicted something.';
      return;
    }
    this.loadedFor = session;
    this.header.textContent = `Loading the index of ${session}…`;
    let tree: IndexTree;
    try {
      tree = await this.app.rpc.request('index', { session });
    } catch (e) {
      this.header.textContent = e instanceof Error ? e.message : String(e);
      return;
    }
    this.header.textContent = tree.segments
      ? `Session ${session}: ${tree.segments} evicted segment${tree.segments === 1 ? '' : 's'}, ${tree.roots.length} top-level block${tree.roots.length === 1 ? '' : 's'}`
      : `Session ${session}: nothing has been evicted from the view yet.`;
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
      h('span', { class: 'level', title: 'level' }, `L${n.level}`),
      h('span', { class: 'title' }, titleText(n)),
    );
    const open = () => this.app.open(n.evictionSeq !== null ? { kind: 'segment', evictionSeq: n.evictionSeq } : { kind: 'range', from: n.from, to: n.to });
    const row = h('div', { class: 'tree-row' },
      label,
      button('Show', () => void this.showSegment(n), { ariaLabel: `Show events ${n.from} to ${n.to}`, testId: 'index-show' }),
      button('Open in editor', open, { ariaLabel: `Open ${n.from} to ${n.to} in an editor tab`, testId: 'index-open' }),
    );
    const li = h('li', {
      role: 'treeitem',
      tabindex: -1,
      'aria-level': depth,
      'aria-label': `seq ${n.from} to ${n.to}, level ${n.level}: ${titleText(n)}`,
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
