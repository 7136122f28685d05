/** Search tab: query as you type, filters, a virtualized hit list, the selected event in full. */
import { SEARCH_PAGE_SIZE, type PanelEvent, type PanelHit, type SearchFilters } from '../../src/shared/panelProtocol';
import type { App } from './app';
import { button, dropdown, progressRing, setOptions, setValue, sourceBadge, textField, valueOf } from './components';
import { sourceDisplay } from '../../src/shared/sourceDisplay';
import { debounce, formatCount, formatTime, h, replaceChildren, snippetNodes } from './dom';
import { eventCard } from './eventView';
import { VirtualList } from './virtualList';

export const SEARCH_DEBOUNCE_MS = 200;
const ROW_HEIGHT = 52;

export class SearchView {
  readonly element: HTMLElement;
  private readonly query: HTMLElement;
  private readonly kind: HTMLElement;
  private readonly role: HTMLElement;
  private readonly source: HTMLElement;
  private readonly seqFrom: HTMLElement;
  private readonly seqTo: HTMLElement;
  private readonly tsFrom: HTMLElement;
  private readonly tsTo: HTMLElement;
  private readonly statusLine: HTMLElement;
  private readonly ring: HTMLElement;
  private readonly detail: HTMLElement;
  private readonly list: VirtualList<PanelHit>;
  private generation = 0;
  private current: { query: string; filters: SearchFilters } | null = null;
  private restoreScroll: number | null;
  readonly runDebounced: ReturnType<typeof debounce<[]>>;

  constructor(private readonly app: App) {
    const st = app.store.state;
    this.restoreScroll = st.hitScrollTop || null;
    this.query = textField({ id: 'query', label: 'Search', ariaLabel: 'Search history', placeholder: 'words, "phrases", identifiers', value: st.query, testId: 'query' });
    this.query.classList.add('query');
    this.kind = this.dropdown('kind', 'Kind', 'any kind');
    this.role = this.dropdown('role', 'Role', 'any role');
    this.source = this.dropdown('source', 'Source', 'any source');
    this.source.hidden = true; // shown once the log holds captured sessions (setSources)
    this.seqFrom = this.textFilter('seq-from', 'Seq from', 'from seq', st.filters.seqFrom?.toString() ?? '');
    this.seqTo = this.textFilter('seq-to', 'Seq to', 'to seq', st.filters.seqTo?.toString() ?? '');
    this.tsFrom = this.textFilter('ts-from', 'Since', 'YYYY-MM-DD', st.filters.tsFrom ?? '');
    this.tsTo = this.textFilter('ts-to', 'Until', 'YYYY-MM-DD', st.filters.tsTo ?? '');
    this.ring = progressRing('Searching');
    this.statusLine = h('div', { class: 'status', role: 'status', 'aria-live': 'polite', 'data-testid': 'search-status' });
    this.detail = h('section', { class: 'detail', 'aria-label': 'Selected event', 'data-testid': 'detail' });
    this.clearDetail();
    this.list = new VirtualList<PanelHit>({
      rowHeight: ROW_HEIGHT,
      pageSize: SEARCH_PAGE_SIZE,
      label: 'Search results',
      idPrefix: 'hit',
      loadPage: (p) => this.loadPage(p),
      renderRow: (hit) => this.renderHit(hit),
      renderPlaceholder: () => h('div', { class: 'hit' }, h('span', { class: 'muted' }, 'Loading…')),
      onSelect: (hit) => void this.select(hit.seq),
      onScroll: (top) => app.store.update({ hitScrollTop: top }),
    });
    this.runDebounced = debounce(() => void this.run(), SEARCH_DEBOUNCE_MS);
    this.query.addEventListener('input', () => {
      app.store.update({ query: valueOf(this.query) });
      this.runDebounced();
    });
    this.query.addEventListener('keydown', (ev) => {
      const k = (ev as KeyboardEvent).key;
      if (k === 'Enter') this.runDebounced.flush();
      if (k === 'ArrowDown') {
        ev.preventDefault();
        this.list.element.focus();
      }
    });
    for (const f of [this.kind, this.role, this.source]) f.addEventListener('change', () => this.filtersChanged(true));
    for (const f of [this.seqFrom, this.seqTo, this.tsFrom, this.tsTo]) f.addEventListener('input', () => this.filtersChanged(false));
    const clearBtn = button('Clear filters', () => {
      for (const f of [this.seqFrom, this.seqTo, this.tsFrom, this.tsTo]) setValue(f, '');
      setValue(this.control(this.kind), '');
      setValue(this.control(this.role), '');
      setValue(this.control(this.source), '');
      this.filtersChanged(true);
    }, { testId: 'clear-filters' });
    clearBtn.classList.add('clear-filters');
    this.element = h('div', { class: 'search-view' },
      h('div', { class: 'search-bar' }, this.query, this.ring),
      // Pairs that belong together (from–to) are one group each, so a narrow panel never
      // leaves "Until" alone on a line.
      h('div', { class: 'filters', role: 'group', 'aria-label': 'Filters' },
        h('div', { class: 'filter-group' }, this.kind, this.role, this.source),
        h('div', { class: 'filter-group', role: 'group', 'aria-label': 'Seq range' }, this.seqFrom, this.seqTo),
        h('div', { class: 'filter-group', role: 'group', 'aria-label': 'Time range' }, this.tsFrom, this.tsTo),
        clearBtn),
      this.statusLine,
      h('div', { class: 'split' }, this.list.element, this.detail),
    );
    app.onScopeChange(() => void this.run());
    app.onSessionsChange(() => this.setSources());
    app.onLogChange(() => {
      if (this.current) void this.run(true);
    });
  }

  private dropdown(id: string, label: string, anyLabel: string): HTMLElement {
    const dd = dropdown({ id, ariaLabel: `${label} filter`, testId: `filter-${id}`, options: [{ value: '', label: anyLabel }] });
    return h('div', { class: 'field stacked' }, h('label', { for: id }, label), dd);
  }

  private textFilter(id: string, label: string, placeholder: string, value: string): HTMLElement {
    return textField({ id, label, placeholder, value, testId: `filter-${id}` });
  }

  private clearDetail(): void {
    replaceChildren(this.detail, h('p', { class: 'hint' }, 'Select a hit to see the whole event.'));
  }

  /** Puts `query` in the box and runs it now (the extension asked the panel to search). */
  setQuery(query: string): void {
    setValue(this.query, query);
    this.app.store.update({ query });
    this.runDebounced.cancel();
    void this.run();
  }

  private control(wrapper: HTMLElement): HTMLElement {
    return wrapper.querySelector('select') ?? wrapper;
  }

  /** Fills the kind and role dropdowns (after facets arrive) and restores their saved values. */
  setFacets(kinds: string[], roles: string[]): void {
    const st = this.app.store.state.filters;
    const fill = (wrapper: HTMLElement, values: string[], selected: string | undefined) => {
      const dd = this.control(wrapper);
      const any = { value: '', label: dd.querySelector('option')?.textContent ?? '' };
      setOptions(dd, [any, ...values.map((v) => ({ value: v, label: v }))], selected && values.includes(selected) ? selected : '');
    };
    fill(this.kind, kinds, st.kind?.[0]);
    fill(this.role, roles, st.role?.[0]);
  }

  private shownSources = '';

  /**
   * Fills the source dropdown with the agents whose sessions were captured into this log (read from
   * the session list, re-read as the log grows), keeping the choice. Hidden while there are none.
   */
  private setSources(): void {
    const sources = [...new Set(this.app.sessions().map((s) => s.source).filter((s): s is string => !!s))].sort();
    const key = JSON.stringify(sources);
    if (key === this.shownSources) return;
    this.shownSources = key;
    const dd = this.control(this.source);
    const selected = valueOf(dd) || this.app.store.state.filters.source;
    setOptions(dd, [{ value: '', label: 'any source' }, ...sources.map((v) => ({ value: v, label: sourceDisplay(v).label }))], selected && sources.includes(selected) ? selected : '');
    this.source.hidden = !sources.length && !selected;
  }

  private readFilters(): SearchFilters | string {
    const f: SearchFilters = {};
    const kind = valueOf(this.control(this.kind));
    const role = valueOf(this.control(this.role));
    if (kind) f.kind = [kind];
    if (role) f.role = [role];
    const source = valueOf(this.control(this.source));
    if (source) f.source = source;
    const scope = this.app.scope();
    if (scope) f.session = scope;
    const seq = (el: HTMLElement, name: string): number | undefined | string => {
      const v = valueOf(el).trim();
      if (!v) return undefined;
      return /^\d+$/.test(v) ? Number(v) : `${name} must be a seq number`;
    };
    const a = seq(this.seqFrom, 'Seq from');
    const b = seq(this.seqTo, 'Seq to');
    if (typeof a === 'string') return a;
    if (typeof b === 'string') return b;
    if (a !== undefined) f.seqFrom = a;
    if (b !== undefined) f.seqTo = b;
    const tsFrom = valueOf(this.tsFrom).trim();
    const tsTo = valueOf(this.tsTo).trim();
    if (tsFrom) f.tsFrom = tsFrom;
    // "Until 2026-01-31" means through the end of that day.
    if (tsTo) f.tsTo = /^\d{4}-\d{2}-\d{2}$/.test(tsTo) ? `${tsTo}T23:59:59.999Z` : tsTo;
    return f;
  }

  private filtersChanged(now: boolean): void {
    const f = this.readFilters();
    if (typeof f !== 'string') {
      const { session: _session, ...rest } = f;
      // Saved with the "until" the person typed, not the widened one.
      const tsTo = valueOf(this.tsTo).trim();
      this.app.store.update({ filters: { ...rest, tsTo: tsTo || undefined } });
    }
    if (now) {
      this.runDebounced.cancel();
      void this.run();
    } else this.runDebounced();
  }

  private async loadPage(page: number): Promise<PanelHit[]> {
    const cur = this.current;
    if (!cur) return [];
    const res = await this.app.rpc.request('search', { query: cur.query, filters: cur.filters, offset: page * SEARCH_PAGE_SIZE, limit: SEARCH_PAGE_SIZE });
    if (cur === this.current && res.total !== this.list.length) {
      this.list.setTotal(res.total);
      this.statusLine.setAttribute('data-total', String(res.total));
    }
    return res.hits;
  }

  /** Runs the current query; `keepPosition` keeps the scroll position (the log grew). */
  async run(keepPosition = false): Promise<void> {
    const gen = ++this.generation;
    const started = performance.now();
    const query = valueOf(this.query).trim();
    const filters = this.readFilters();
    if (typeof filters === 'string') {
      this.setStatus(filters, true);
      return;
    }
    if (!query) {
      this.current = null;
      this.list.reset(0);
      this.dropSelection();
      this.setStatus('Type to search the whole history. Filters narrow it; choose a session above to scope the panel.');
      return;
    }
    this.ring.hidden = false;
    try {
      const page = await this.app.rpc.request('search', { query, filters, offset: 0, limit: SEARCH_PAGE_SIZE });
      if (gen !== this.generation) return;
      this.current = { query, filters };
      const scrollTop = keepPosition ? this.list.element.scrollTop : this.restoreScroll ?? 0;
      this.restoreScroll = null;
      this.list.reset(page.total, page.hits, scrollTop);
      const selected = this.app.store.state.selectedSeq;
      // With no hits, the event of an earlier search must not stay on screen as if it matched.
      if (page.total === 0) this.dropSelection();
      else if (selected !== null) this.list.selectWhere((hit) => hit.seq === selected);
      const ms = performance.now() - started;
      const parts = [
        page.total === 0 ? 'No hits' : `${formatCount(page.total)}${page.capped ? '+' : ''} hit${page.total === 1 ? '' : 's'}`,
        page.broadened ? 'broadened hits (next to a match, or with only some of the words) follow the matches' : '',
        page.pruned.length ? `ignored: ${page.pruned.join(', ')}` : '',
        page.message ?? '',
        `${Math.round(ms)} ms`,
      ].filter(Boolean);
      this.setStatus(parts.join(' · '));
      this.statusLine.setAttribute('data-render-ms', ms.toFixed(1));
      this.statusLine.setAttribute('data-host-ms', String(page.elapsedMs));
      this.statusLine.setAttribute('data-total', String(page.total));
      // For tests and tools reading the panel: which search the status describes.
      this.statusLine.setAttribute('data-query', query);
      this.statusLine.setAttribute('data-generation', String(gen));
    } catch (e) {
      if (gen !== this.generation) return;
      this.setStatus(e instanceof Error ? e.message : String(e), true);
    } finally {
      if (gen === this.generation) this.ring.hidden = true;
    }
  }

  private dropSelection(): void {
    this.app.store.update({ selectedSeq: null });
    this.clearDetail();
  }

  private setStatus(text: string, error = false): void {
    this.statusLine.textContent = text;
    this.statusLine.classList.toggle('error', error);
  }

  private renderHit(hit: PanelHit): HTMLElement {
    const line2 = h('div', { class: 'hit-snippet' });
    if (hit.headline) line2.appendChild(h('span', { class: 'hit-headline' }, hit.headline, ' — '));
    line2.appendChild(snippetNodes(hit.snippet));
    return h('div', { class: 'hit', 'aria-label': `seq ${hit.seq}, ${hit.kind}, ${hit.role}${hit.source ? `, from ${sourceDisplay(hit.source).label}` : ''}${hit.broadened ? ', broadened' : ''}` },
      h('div', { class: 'hit-meta' },
        h('span', { class: 'seq' }, `#${hit.seq}`),
        h('span', { class: `kind kind-${hit.kind.replace(/[^a-z0-9_-]/gi, '')}` }, hit.kind),
        h('span', { class: 'role' }, hit.role),
        hit.name ? h('span', { class: 'name' }, hit.name) : null,
        hit.source ? sourceBadge(hit.source) : null,
        h('span', { class: 'session' }, hit.session),
        h('time', { datetime: hit.ts }, formatTime(hit.ts)),
        hit.broadened ? h('span', { class: 'broadened', title: 'broadened: next to a match, or matching only some of the words' }, 'broadened') : null,
      ),
      line2,
    );
  }

  /** Shows one event in the detail pane (payload beyond the cap is loaded on demand). */
  async select(seq: number): Promise<void> {
    this.app.store.update({ selectedSeq: seq });
    this.detail.setAttribute('aria-busy', 'true');
    try {
      const page = await this.app.rpc.request('expand', { from: seq, to: seq });
      const e = page.events[0];
      if (!e) throw new Error(`no event with seq ${seq}`);
      replaceChildren(this.detail, this.card(e));
    } catch (err) {
      replaceChildren(this.detail, h('p', { class: 'error' }, err instanceof Error ? err.message : String(err)));
    } finally {
      this.detail.removeAttribute('aria-busy');
    }
  }

  private card(e: PanelEvent): HTMLElement {
    return eventCard(e, {
      rpc: this.app.rpc,
      open: (t) => this.app.open(t),
      neighbours: (s) => void this.neighbours(s),
      showStatus: (t, err) => this.app.status(t, err),
    });
  }

  private async neighbours(seq: number): Promise<void> {
    try {
      const page = await this.app.rpc.request('neighbours', { seq, radius: 3 });
      const section = h('section', { class: 'neighbours', 'aria-label': `Events around ${seq}`, 'data-testid': 'neighbours-list' },
        h('h3', null, `Around #${seq} (${page.from}–${page.to})`),
        ...page.events.map((e) => {
          const card = eventCard(e, { rpc: this.app.rpc, open: (t) => this.app.open(t), showStatus: (t, er) => this.app.status(t, er) }, { compact: true });
          if (e.seq === seq) card.classList.add('current');
          return card;
        }),
      );
      this.detail.querySelector('.neighbours')?.remove();
      this.detail.appendChild(section);
      const heading = section.querySelector<HTMLElement>('h3')!;
      heading.setAttribute('tabindex', '-1');
      // What was added is below the event: bring it into view, then move focus to its heading.
      section.scrollIntoView({ block: 'start' });
      heading.focus({ preventScroll: true });
    } catch (err) {
      this.app.status(err instanceof Error ? err.message : String(err), true);
    }
  }

  focus(): void {
    (this.query as HTMLElement).focus();
  }
}
