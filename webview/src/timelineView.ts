/**
 * Timeline tab: one session's steps: events per step (bars) and, for agent-loop sessions, the
 * working view's tokens (line), its budget (dashed line) and evictions (vertical markers). Only
 * what the session has is drawn and named in the legend. Click a point — or move the cursor with
 * the arrow keys and press Enter — to open that step's first seq in the Expand tab.
 */
import type { Timeline, TimelinePoint } from '../../src/shared/panelProtocol';
import { newestFirst, plural, type App } from './app';
import { button } from './components';
import { formatCount, h, replaceChildren, svg } from './dom';

const HEIGHT = 260;

/** The smallest 1, 2 or 5 × 10^k at or above n (an axis maximum people can read). */
export function niceCeil(n: number): number {
  if (n <= 1) return 1;
  const p = 10 ** Math.floor(Math.log10(n));
  for (const m of [1, 2, 5, 10]) if (m * p >= n) return m * p;
  return 10 * p;
}

/** 0, the middle (when it is a whole number) and the maximum. */
export function ticks(max: number): number[] {
  return max % 2 === 0 && max > 2 ? [0, max / 2, max] : [0, max];
}

export class TimelineView {
  readonly element: HTMLElement;
  private readonly header: HTMLElement;
  private readonly chartBox: HTMLElement;
  private readonly readout: HTMLElement;
  private readonly legend: HTMLElement;
  private readonly picker: HTMLElement;
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
    this.legend = h('div', { class: 'legend', 'aria-hidden': 'true', 'data-testid': 'timeline-legend' });
    this.picker = h('div', { class: 'session-buttons', 'data-testid': 'timeline-sessions' });
    this.element = h('div', { class: 'timeline-view' }, this.header, this.picker, this.legend, this.chartBox, this.readout);
    this.chartBox.addEventListener('keydown', (ev) => this.onKey(ev));
    this.chartBox.addEventListener('click', (ev) => this.onClick(ev));
    new ResizeObserver(() => this.draw()).observe(this.chartBox);
    app.onScopeChange(() => {
      if (this.loadedFor !== null) void this.load();
    });
    app.onSessionsChange(() => {
      if (this.loadedFor === '') void this.load();
    });
  }

  private showChart(on: boolean): void {
    this.chartBox.hidden = !on;
    this.legend.hidden = !on;
    this.readout.hidden = !on;
    this.picker.hidden = on;
  }

  async load(): Promise<void> {
    const session = this.app.scope();
    this.loadedFor = session ?? '';
    if (session === null) {
      // One chart is one session's steps: in "All sessions" the reader picks which.
      this.data = null;
      this.showChart(false);
      replaceChildren(this.chartBox);
      const sessions = newestFirst(this.app.sessions());
      this.header.textContent = sessions.length
        ? 'The timeline shows one session\'s steps: choose a session.'
        : 'No session yet.';
      replaceChildren(this.picker, ...sessions.map((s) => button(`${s.session} (${plural(s.events, 'event')})`, () => this.app.setScope(s.session), {
        ariaLabel: `Timeline of session ${s.session}`, testId: 'timeline-session',
      })));
      return;
    }
    this.showChart(true);
    this.header.textContent = `Loading the timeline of ${session}…`;
    let data: Timeline;
    try {
      data = await this.app.rpc.request('timeline', { session });
    } catch (e) {
      this.header.textContent = e instanceof Error ? e.message : String(e);
      return;
    }
    if (this.app.scope() !== session) return;
    this.data = data;
    const d = data;
    const withView = d.points.some((p) => p.viewTokens !== null);
    this.header.textContent = d.points.length
      ? `Session ${session}: ${plural(d.points.length, 'point')}${d.bucket > 1 ? ` (${d.bucket} steps each)` : ''}, ${plural(d.evictions.length, 'eviction')}${withView ? '' : ' · no working-view sizes (only agent-loop sessions record them)'}`
      : `Session ${session}: no steps recorded.`;
    const saved = this.app.store.state.timelineCursor;
    this.cursor = saved !== null && saved < d.points.length ? saved : -1;
    this.renderLegend();
    this.draw();
  }

  /** What the chart draws for this session, nothing else. */
  private series() {
    const pts = this.data?.points ?? [];
    return {
      view: pts.some((p) => p.viewTokens !== null),
      budget: pts.some((p) => p.budget !== null),
      evictions: (this.data?.evictions.length ?? 0) > 0,
      events: pts.length > 0,
    };
  }

  private renderLegend(): void {
    const s = this.series();
    replaceChildren(this.legend,
      s.events ? h('span', { class: 'lg-events', 'data-series': 'events' }, this.unitLabel()) : null,
      s.view ? h('span', { class: 'lg-view', 'data-series': 'view' }, 'view tokens') : null,
      s.budget ? h('span', { class: 'lg-budget', 'data-series': 'budget' }, 'budget (tokens)') : null,
      s.evictions ? h('span', { class: 'lg-evict', 'data-series': 'evictions' }, 'eviction') : null,
    );
  }

  private unitLabel(): string {
    const b = this.data?.bucket ?? 1;
    return b > 1 ? `events per ${b} steps` : 'events per step';
  }

  private geometry() {
    const s = this.series();
    const width = Math.max(200, this.chartBox.clientWidth || 640);
    const pts = this.data?.points ?? [];
    const pad = { left: 60, right: s.view ? 52 : 16, top: 14, bottom: 40 };
    const maxTokens = niceCeil(Math.max(1, ...pts.map((p) => Math.max(p.viewTokens ?? 0, p.budget ?? 0))));
    const maxEvents = niceCeil(Math.max(1, ...pts.map((p) => p.events)));
    const innerW = Math.max(1, width - pad.left - pad.right);
    const innerH = HEIGHT - pad.top - pad.bottom;
    // One band per point: a bar fills most of its band and the line's point sits at its centre,
    // so the first bar starts at the axis, not before it.
    const band = innerW / Math.max(1, pts.length);
    const x = (i: number) => pad.left + (i + 0.5) * band;
    const base = pad.top + innerH;
    const yTokens = (tokens: number) => base - (tokens / maxTokens) * innerH;
    const yEvents = (n: number) => base - (n / maxEvents) * innerH;
    return { s, width, pts, pad, maxTokens, maxEvents, innerW, innerH, band, base, x, yTokens, yEvents };
  }

  private draw(): void {
    if (!this.data || this.chartBox.hidden) return;
    const g = this.geometry();
    const { pts, x, pad, base } = g;
    const root = svg('svg', { width: g.width, height: HEIGHT, viewBox: `0 0 ${g.width} ${HEIGHT}`, 'aria-hidden': 'true' });
    const right = g.width - pad.right;
    root.appendChild(svg('line', { class: 'axis', x1: pad.left, y1: base, x2: right, y2: base }));
    // Left axis: view tokens when the session has them, else events per step; events then go right.
    const leftTicks = g.s.view ? ticks(g.maxTokens) : ticks(g.maxEvents);
    const leftY = g.s.view ? g.yTokens : g.yEvents;
    root.appendChild(svg('line', { class: 'axis', x1: pad.left, y1: pad.top, x2: pad.left, y2: base }));
    for (const t of leftTicks) {
      root.appendChild(svg('text', { class: 'tick tick-left', x: pad.left - 6, y: leftY(t) + 4, 'text-anchor': 'end' }, formatCount(t)));
    }
    root.appendChild(svg('text', {
      class: 'axis-title', 'data-axis': 'y-left', x: 0, y: 0, 'text-anchor': 'middle',
      transform: `translate(12 ${pad.top + g.innerH / 2}) rotate(-90)`,
    }, g.s.view ? 'view tokens' : this.unitLabel()));
    if (g.s.view) {
      root.appendChild(svg('line', { class: 'axis', x1: right, y1: pad.top, x2: right, y2: base }));
      for (const t of ticks(g.maxEvents)) {
        root.appendChild(svg('text', { class: 'tick tick-right', x: right + 6, y: g.yEvents(t) + 4, 'text-anchor': 'start' }, formatCount(t)));
      }
      root.appendChild(svg('text', {
        class: 'axis-title', 'data-axis': 'y-right', x: 0, y: 0, 'text-anchor': 'middle',
        transform: `translate(${g.width - 8} ${pad.top + g.innerH / 2}) rotate(90)`,
      }, this.unitLabel()));
    }
    if (pts.length) {
      root.appendChild(svg('text', { class: 'tick tick-x', x: pad.left, y: base + 14, 'text-anchor': 'start' }, String(pts[0].step)));
      if (pts.length > 1) root.appendChild(svg('text', { class: 'tick tick-x', x: right, y: base + 14, 'text-anchor': 'end' }, String(pts[pts.length - 1].step)));
    }
    root.appendChild(svg('text', { class: 'axis-title', 'data-axis': 'x', x: pad.left + g.innerW / 2, y: HEIGHT - 6, 'text-anchor': 'middle' }, 'step'));
    const barW = Math.max(1, Math.min(g.band * 0.8, g.band - 1));
    const bars = svg('g', { class: 'bars' });
    pts.forEach((p, i) => {
      const top = g.yEvents(p.events);
      bars.appendChild(svg('rect', { x: x(i) - barW / 2, y: top, width: barW, height: base - top }));
    });
    root.appendChild(bars);
    if (g.s.evictions) {
      const evict = svg('g', { class: 'evictions' });
      for (const ev of this.data.evictions) {
        const i = this.indexForEviction(ev.step, ev.seq);
        if (i < 0) continue;
        evict.appendChild(svg('line', { x1: x(i), y1: pad.top, x2: x(i), y2: base }));
      }
      root.appendChild(evict);
    }
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
        d += `${pen ? 'L' : 'M'}${x(i).toFixed(1)},${g.yTokens(v).toFixed(1)}`;
        pen = true;
      });
      if (d) root.appendChild(svg('path', { class: cls, d }));
    };
    if (g.s.budget) line((p) => p.budget, 'budget');
    if (g.s.view) line((p) => p.viewTokens, 'view');
    if (this.cursor >= 0 && this.cursor < pts.length) {
      root.appendChild(svg('line', { class: 'cursor', x1: x(this.cursor), y1: pad.top, x2: x(this.cursor), y2: base }));
      const v = pts[this.cursor].viewTokens;
      if (v !== null) root.appendChild(svg('circle', { class: 'cursor-dot', cx: x(this.cursor), cy: g.yTokens(v), r: 4 }));
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
    const view = p.viewTokens === null ? '' : `${formatCount(p.viewTokens)} view tokens${p.budget === null ? '' : ` of ${formatCount(p.budget)}`} · `;
    this.readout.textContent = `step ${p.step}: ${view}${plural(p.events, 'event')} · first seq #${p.seq}`;
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
    const i = Math.floor((px - g.pad.left) / g.band);
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
