/**
 * Timeline tab: per session, working-view tokens per step (line), the budget (dashed line),
 * evictions (vertical markers) and events per step (bars). Click a point — or move the cursor with
 * the arrow keys and press Enter — to open that step's first seq in the Expand tab.
 */
import type { Timeline, TimelinePoint } from '../../src/shared/panelProtocol';
import type { App } from './app';
import { formatCount, h, replaceChildren, svg } from './dom';

const HEIGHT = 260;
const PAD = { left: 56, right: 16, top: 14, bottom: 28 };

export class TimelineView {
  readonly element: HTMLElement;
  private readonly header: HTMLElement;
  private readonly chartBox: HTMLElement;
  private readonly readout: HTMLElement;
  private data: Timeline | null = null;
  private cursor = -1;
  private loadedFor: string | null = null;

  constructor(private readonly app: App) {
    this.header = h('div', { class: 'status', role: 'status', 'data-testid': 'timeline-status' });
    this.chartBox = h('div', {
      class: 'chart',
      tabindex: 0,
      role: 'application',
      'aria-roledescription': 'chart',
      'aria-label': 'Timeline: left and right arrows move between steps, Enter opens the step',
      'data-testid': 'timeline-chart',
    });
    this.readout = h('div', { class: 'readout', 'aria-live': 'polite', 'data-testid': 'timeline-readout' });
    const legend = h('div', { class: 'legend', 'aria-hidden': 'true' },
      h('span', { class: 'lg-view' }, 'view tokens'),
      h('span', { class: 'lg-budget' }, 'budget'),
      h('span', { class: 'lg-evict' }, 'eviction'),
      h('span', { class: 'lg-events' }, 'events per step'),
    );
    this.element = h('div', { class: 'timeline-view' }, this.header, legend, this.chartBox, this.readout);
    this.chartBox.addEventListener('keydown', (ev) => this.onKey(ev));
    this.chartBox.addEventListener('click', (ev) => this.onClick(ev));
    new ResizeObserver(() => this.draw()).observe(this.chartBox);
    app.onScopeChange(() => {
      if (this.loadedFor !== null) void this.load();
    });
  }

  async load(): Promise<void> {
    const session = this.app.sessionForViews();
    if (!session) {
      this.header.textContent = 'No session yet.';
      replaceChildren(this.chartBox);
      return;
    }
    this.loadedFor = session;
    this.header.textContent = `Loading the timeline of ${session}…`;
    try {
      this.data = await this.app.rpc.request('timeline', { session });
    } catch (e) {
      this.header.textContent = e instanceof Error ? e.message : String(e);
      return;
    }
    const d = this.data;
    const withView = d.points.filter((p) => p.viewTokens !== null).length;
    this.header.textContent = d.points.length
      ? `Session ${session}: ${formatCount(d.points.length)} point${d.points.length === 1 ? '' : 's'}${d.bucket > 1 ? ` (${d.bucket} steps each)` : ''}, ${d.evictions.length} eviction${d.evictions.length === 1 ? '' : 's'}${withView ? '' : ' — no view sizes recorded (only agent-loop sessions have them)'}`
      : `Session ${session}: no steps recorded.`;
    const saved = this.app.store.state.timelineCursor;
    this.cursor = saved !== null && saved < d.points.length ? saved : -1;
    this.draw();
  }

  private geometry() {
    const width = Math.max(320, this.chartBox.clientWidth || 640);
    const pts = this.data?.points ?? [];
    const maxTokens = Math.max(1, ...pts.map((p) => Math.max(p.viewTokens ?? 0, p.budget ?? 0)));
    const maxEvents = Math.max(1, ...pts.map((p) => p.events));
    const innerW = width - PAD.left - PAD.right;
    const innerH = HEIGHT - PAD.top - PAD.bottom;
    const x = (i: number) => PAD.left + (pts.length <= 1 ? innerW / 2 : (i / (pts.length - 1)) * innerW);
    const y = (tokens: number) => PAD.top + innerH - (tokens / maxTokens) * innerH;
    return { width, pts, maxTokens, maxEvents, innerW, innerH, x, y };
  }

  private draw(): void {
    if (!this.data) return;
    const g = this.geometry();
    const { pts, x, y } = g;
    const root = svg('svg', { width: g.width, height: HEIGHT, viewBox: `0 0 ${g.width} ${HEIGHT}`, 'aria-hidden': 'true' });
    const base = PAD.top + g.innerH;
    // Axes and the top tick.
    root.appendChild(svg('line', { class: 'axis', x1: PAD.left, y1: base, x2: g.width - PAD.right, y2: base }));
    root.appendChild(svg('line', { class: 'axis', x1: PAD.left, y1: PAD.top, x2: PAD.left, y2: base }));
    root.appendChild(svg('text', { class: 'tick', x: PAD.left - 6, y: PAD.top + 4, 'text-anchor': 'end' }, formatCount(g.maxTokens)));
    root.appendChild(svg('text', { class: 'tick', x: PAD.left - 6, y: base, 'text-anchor': 'end' }, '0'));
    if (pts.length) {
      root.appendChild(svg('text', { class: 'tick', x: PAD.left, y: HEIGHT - 8 }, `step ${pts[0].step}`));
      root.appendChild(svg('text', { class: 'tick', x: g.width - PAD.right, y: HEIGHT - 8, 'text-anchor': 'end' }, `step ${pts[pts.length - 1].step}`));
    }
    // Events per step: bars in the bottom quarter.
    const barW = Math.max(1, g.innerW / Math.max(1, pts.length) - 1);
    const barsH = g.innerH / 4;
    const bars = svg('g', { class: 'bars' });
    pts.forEach((p, i) => {
      const hgt = (p.events / g.maxEvents) * barsH;
      bars.appendChild(svg('rect', { x: x(i) - barW / 2, y: base - hgt, width: barW, height: hgt }));
    });
    root.appendChild(bars);
    // Eviction markers at the step they happened (nearest point by step).
    const evict = svg('g', { class: 'evictions' });
    for (const ev of this.data.evictions) {
      const i = this.indexForEviction(ev.step, ev.seq);
      if (i < 0) continue;
      evict.appendChild(svg('line', { x1: x(i), y1: PAD.top, x2: x(i), y2: base }));
    }
    root.appendChild(evict);
    // Budget and view lines (points without a value break the line).
    const line = (value: (p: TimelinePoint) => number | null, cls: string) => {
      let d = '';
      let pen = false;
      pts.forEach((p, i) => {
        const v = value(p);
        if (v === null) {
          pen = false;
          return;
        }
        d += `${pen ? 'L' : 'M'}${x(i).toFixed(1)},${y(v).toFixed(1)}`;
        pen = true;
      });
      if (d) root.appendChild(svg('path', { class: cls, d }));
    };
    line((p) => p.budget, 'budget');
    line((p) => p.viewTokens, 'view');
    if (this.cursor >= 0 && this.cursor < pts.length) {
      root.appendChild(svg('line', { class: 'cursor', x1: x(this.cursor), y1: PAD.top, x2: x(this.cursor), y2: base }));
      const v = pts[this.cursor].viewTokens;
      if (v !== null) root.appendChild(svg('circle', { class: 'cursor-dot', cx: x(this.cursor), cy: y(v), r: 4 }));
    }
    replaceChildren(this.chartBox, root);
    this.updateReadout();
  }

  private indexForEviction(step: number | null, seq: number): number {
    const pts = this.data?.points ?? [];
    if (!pts.length) return -1;
    let best = 0;
    for (let i = 0; i < pts.length; i++) {
      const hit = step !== null ? pts[i].step <= step : pts[i].seq <= seq;
      if (hit) best = i;
      else break;
    }
    return best;
  }

  private updateReadout(): void {
    const p = this.data?.points[this.cursor];
    if (!p) {
      this.readout.textContent = this.data?.points.length ? 'Click a point or use the arrow keys; Enter opens that step.' : '';
      return;
    }
    this.readout.textContent = `step ${p.step}: ${p.viewTokens === null ? 'no view size' : `${formatCount(p.viewTokens)} view tokens`}${p.budget === null ? '' : ` of ${formatCount(p.budget)}`} · ${p.events} event${p.events === 1 ? '' : 's'} · first seq #${p.seq}`;
  }

  private setCursor(i: number): void {
    const n = this.data?.points.length ?? 0;
    if (!n) return;
    this.cursor = Math.max(0, Math.min(n - 1, i));
    this.app.store.update({ timelineCursor: this.cursor });
    this.draw();
  }

  private jump(): void {
    const p = this.data?.points[this.cursor];
    if (p) this.app.showSeq(p.seq);
  }

  private onClick(ev: MouseEvent): void {
    if (!this.data?.points.length) return;
    const g = this.geometry();
    const rect = this.chartBox.getBoundingClientRect();
    const px = ev.clientX - rect.left;
    const n = g.pts.length;
    const i = n <= 1 ? 0 : Math.round(((px - PAD.left) / g.innerW) * (n - 1));
    this.setCursor(i);
    this.jump();
  }

  private onKey(ev: KeyboardEvent): void {
    const n = this.data?.points.length ?? 0;
    const big = Math.max(1, Math.round(n / 20));
    switch (ev.key) {
      case 'ArrowRight': this.setCursor(this.cursor + 1); break;
      case 'ArrowLeft': this.setCursor(this.cursor < 0 ? 0 : this.cursor - 1); break;
      case 'PageDown': this.setCursor(this.cursor + big); break;
      case 'PageUp': this.setCursor(this.cursor - big); break;
      case 'Home': this.setCursor(0); break;
      case 'End': this.setCursor(n - 1); break;
      case 'Enter': this.jump(); break;
      default: return;
    }
    ev.preventDefault();
  }
}
