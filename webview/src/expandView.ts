/** Expand tab: type a seq or a range, see the events (a page at a time). */
import { parseSeqSpec, type EventPage } from '../../src/shared/panelProtocol';
import type { App } from './app';
import { button, setValue, textField, valueOf } from './components';
import { h, replaceChildren } from './dom';
import { eventCard } from './eventView';

export class ExpandView {
  readonly element: HTMLElement;
  private readonly spec: HTMLElement;
  private readonly results: HTMLElement;
  private readonly statusLine: HTMLElement;
  private generation = 0;

  constructor(private readonly app: App) {
    this.spec = textField({ id: 'expand-spec', label: 'Seq or range', ariaLabel: 'Seq or range to expand', placeholder: 'e.g. 42 or 40..60', value: app.store.state.expandSpec, testId: 'expand-spec' });
    this.spec.classList.add('query');
    this.spec.addEventListener('keydown', (ev) => {
      if ((ev as KeyboardEvent).key === 'Enter') void this.run();
    });
    this.statusLine = h('div', { class: 'status', role: 'status', 'aria-live': 'polite', 'data-testid': 'expand-status' });
    this.results = h('div', { class: 'expand-results', 'data-testid': 'expand-results' });
    this.element = h('div', { class: 'expand-view' },
      h('div', { class: 'search-bar expand-bar' }, this.spec,
        button('Expand', () => void this.run(), { appearance: 'primary', testId: 'expand-go' }),
        button('Open in editor', () => this.openInEditor(), { testId: 'expand-open', ariaLabel: 'Open this seq or range in an editor tab' })),
      this.statusLine,
      this.results,
    );
  }

  /** Shows `from..to` (called from the timeline, index, sessions). */
  show(from: number, to = from): void {
    setValue(this.spec, from === to ? String(from) : `${from}..${to}`);
    void this.run();
  }

  restore(): void {
    if (valueOf(this.spec).trim()) void this.run();
  }

  private parsed(): { from: number; to: number } | null {
    const spec = parseSeqSpec(valueOf(this.spec));
    if (!spec) this.setStatus('Type a seq (42) or a range (40..60).', true);
    return spec;
  }

  private openInEditor(): void {
    const s = this.parsed();
    if (!s) return;
    this.app.open(s.from === s.to ? { kind: 'event', seq: s.from } : { kind: 'range', from: s.from, to: s.to });
  }

  async run(): Promise<void> {
    const s = this.parsed();
    if (!s) return;
    const gen = ++this.generation;
    this.app.store.update({ expandSpec: valueOf(this.spec).trim() });
    replaceChildren(this.results);
    this.setStatus('Loading…');
    await this.loadPage(s.from, s.to, gen);
  }

  private async loadPage(from: number, to: number, gen: number): Promise<void> {
    let page: EventPage;
    try {
      page = await this.app.rpc.request('expand', { from, to });
    } catch (e) {
      if (gen === this.generation) this.setStatus(e instanceof Error ? e.message : String(e), true);
      return;
    }
    if (gen !== this.generation) return;
    this.results.querySelector('.load-more')?.remove();
    for (const e of page.events) {
      this.results.appendChild(eventCard(e, { rpc: this.app.rpc, open: (t) => this.app.open(t), showStatus: (t, er) => this.app.status(t, er) }));
    }
    const shown = this.results.querySelectorAll('article.event').length;
    this.setStatus(shown ? `${shown} event${shown === 1 ? '' : 's'} in ${page.from}..${page.to}` : `No events in ${page.from}..${page.to}`);
    if (page.nextFrom !== null) {
      const next = page.nextFrom;
      const more = h('div', { class: 'load-more' }, button(`Load more (from #${next})`, () => void this.loadPage(next, to, gen), { testId: 'expand-more' }));
      this.results.appendChild(more);
    }
  }

  private setStatus(text: string, error = false): void {
    this.statusLine.textContent = text;
    this.statusLine.classList.toggle('error', error);
  }

  focus(): void {
    this.spec.focus();
  }
}
