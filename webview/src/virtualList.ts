/**
 * A virtualized listbox: only the rows in view (plus a margin) exist in the DOM, so 10,000 hits
 * scroll as smoothly as 10. Rows have a fixed height. Items load by page on demand through
 * `loadPage`; rows whose page is not here yet show a placeholder until it arrives.
 * Keyboard: the list is one tab stop; arrows/Page/Home/End move the active row
 * (`aria-activedescendant`), Enter selects it.
 */
import { h } from './dom';

export interface VirtualListOptions<T> {
  rowHeight: number;
  pageSize: number;
  label: string;
  idPrefix: string;
  loadPage(page: number): Promise<T[]>;
  renderRow(item: T, index: number): HTMLElement;
  renderPlaceholder(index: number): HTMLElement;
  onSelect(item: T, index: number): void;
  onScroll?(scrollTop: number): void;
}

const OVERSCAN = 8;

export class VirtualList<T> {
  readonly element: HTMLElement;
  private readonly spacer: HTMLElement;
  private total = 0;
  private pages = new Map<number, T[]>();
  private inflight = new Set<number>();
  private generation = 0;
  private active = -1;
  private selected = -1;
  private frame = 0;
  private rendered = new Map<number, HTMLElement>();

  constructor(private readonly opts: VirtualListOptions<T>) {
    this.spacer = h('div', { class: 'vlist-spacer' });
    this.element = h('div', {
      class: 'vlist',
      role: 'listbox',
      tabindex: 0,
      'aria-label': opts.label,
    }, this.spacer);
    this.element.addEventListener('scroll', () => {
      this.schedule();
      this.opts.onScroll?.(this.element.scrollTop);
    });
    this.element.addEventListener('keydown', (ev) => this.onKey(ev));
    this.element.addEventListener('click', (ev) => {
      const row = (ev.target as Element).closest('[data-index]');
      if (!row) return;
      const i = Number(row.getAttribute('data-index'));
      this.setActive(i);
      this.select(i);
    });
    new ResizeObserver(() => this.schedule()).observe(this.element);
  }

  /** Replaces the content: `total` rows, with the first page already loaded (if any). */
  reset(total: number, firstPage?: T[], scrollTop = 0): void {
    this.generation++;
    this.total = total;
    this.pages = new Map();
    this.inflight = new Set();
    if (firstPage) this.pages.set(0, firstPage);
    this.active = -1;
    this.selected = -1;
    this.element.removeAttribute('aria-activedescendant');
    this.spacer.style.height = `${total * this.opts.rowHeight}px`;
    for (const el of this.rendered.values()) el.remove();
    this.rendered.clear();
    this.element.scrollTop = scrollTop;
    this.renderNow();
  }

  /** The list grew or shrank (the host learned the exact total while the reader scrolled). */
  setTotal(total: number): void {
    if (total === this.total) return;
    this.total = total;
    this.spacer.style.height = `${total * this.opts.rowHeight}px`;
    for (const [i, el] of this.rendered) {
      if (i >= total) {
        el.remove();
        this.rendered.delete(i);
      } else el.setAttribute('aria-setsize', String(total));
    }
    this.schedule();
  }

  get length(): number {
    return this.total;
  }

  itemAt(i: number): T | undefined {
    const page = this.pages.get(Math.floor(i / this.opts.pageSize));
    return page?.[i % this.opts.pageSize];
  }

  /** Selects the row showing `pred` if it is loaded. */
  selectWhere(pred: (item: T) => boolean): boolean {
    for (const [p, items] of this.pages) {
      const k = items.findIndex(pred);
      if (k >= 0) {
        const i = p * this.opts.pageSize + k;
        this.setActive(i);
        this.selected = i;
        this.renderNow();
        return true;
      }
    }
    return false;
  }

  private schedule(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.renderNow();
    });
  }

  /** Renders the rows in view; returns when the DOM is updated (loaded pages only). */
  renderNow(): void {
    const rh = this.opts.rowHeight;
    const height = this.element.clientHeight || 400;
    const first = Math.max(0, Math.floor(this.element.scrollTop / rh) - OVERSCAN);
    const last = Math.min(this.total - 1, Math.ceil((this.element.scrollTop + height) / rh) + OVERSCAN);
    for (const [i, el] of this.rendered) {
      if (i < first || i > last || (el.classList.contains('placeholder') && this.itemAt(i) !== undefined)) {
        el.remove();
        this.rendered.delete(i);
      }
    }
    for (let i = first; i <= last; i++) {
      const existing = this.rendered.get(i);
      if (existing) {
        this.decorate(existing, i);
        continue;
      }
      const item = this.itemAt(i);
      let row: HTMLElement;
      if (item === undefined) {
        row = this.opts.renderPlaceholder(i);
        row.classList.add('placeholder');
        this.requestPage(Math.floor(i / this.opts.pageSize));
      } else {
        row = this.opts.renderRow(item, i);
      }
      row.classList.add('vlist-row');
      row.setAttribute('role', 'option');
      row.setAttribute('id', `${this.opts.idPrefix}-${i}`);
      row.setAttribute('data-index', String(i));
      row.setAttribute('aria-setsize', String(this.total));
      row.setAttribute('aria-posinset', String(i + 1));
      row.style.transform = `translateY(${i * rh}px)`;
      row.style.height = `${rh}px`;
      this.decorate(row, i);
      this.spacer.appendChild(row);
      this.rendered.set(i, row);
    }
  }

  private decorate(row: HTMLElement, i: number): void {
    row.classList.toggle('active', i === this.active);
    row.setAttribute('aria-selected', i === this.selected ? 'true' : 'false');
  }

  private requestPage(page: number): void {
    if (this.inflight.has(page) || this.pages.has(page)) return;
    this.inflight.add(page);
    const gen = this.generation;
    this.opts.loadPage(page).then(
      (items) => {
        if (gen !== this.generation) return;
        this.inflight.delete(page);
        this.pages.set(page, items);
        this.schedule();
      },
      () => {
        if (gen === this.generation) this.inflight.delete(page);
      },
    );
  }

  private setActive(i: number): void {
    if (this.total === 0) return;
    this.active = Math.max(0, Math.min(this.total - 1, i));
    this.element.setAttribute('aria-activedescendant', `${this.opts.idPrefix}-${this.active}`);
    const rh = this.opts.rowHeight;
    const top = this.active * rh;
    if (top < this.element.scrollTop) this.element.scrollTop = top;
    else if (top + rh > this.element.scrollTop + this.element.clientHeight) this.element.scrollTop = top + rh - this.element.clientHeight;
    this.renderNow();
  }

  private select(i: number): void {
    const item = this.itemAt(i);
    if (item === undefined) return;
    this.selected = i;
    this.renderNow();
    this.opts.onSelect(item, i);
  }

  private onKey(ev: KeyboardEvent): void {
    const pageRows = Math.max(1, Math.floor(this.element.clientHeight / this.opts.rowHeight) - 1);
    const cur = this.active < 0 ? -1 : this.active;
    let next: number | undefined;
    switch (ev.key) {
      case 'ArrowDown': next = cur + 1; break;
      case 'ArrowUp': next = Math.max(0, cur - 1); break;
      case 'PageDown': next = cur + pageRows; break;
      case 'PageUp': next = Math.max(0, cur - pageRows); break;
      case 'Home': next = 0; break;
      case 'End': next = this.total - 1; break;
      case 'Enter':
      case ' ':
        if (this.active >= 0) {
          ev.preventDefault();
          this.select(this.active);
        }
        return;
      default:
        return;
    }
    ev.preventDefault();
    this.setActive(next);
  }
}
