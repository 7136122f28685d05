/** One event, shown in full: header, headline, content (head first, the rest on demand), meta. */
import { PAYLOAD_CHUNK_MAX, type OpenTarget, type PanelEvent } from '../../src/shared/panelProtocol';
import { badge, button } from './components';
import { formatCount, formatTime, h } from './dom';
import type { Rpc } from './rpc';

export interface EventActions {
  rpc: Rpc;
  open(target: OpenTarget): void;
  neighbours?(seq: number): void;
  showStatus(text: string, error?: boolean): void;
}

export function eventHeader(e: Pick<PanelEvent, 'seq' | 'kind' | 'role' | 'session' | 'ts' | 'name' | 'step'>): HTMLElement {
  return h('div', { class: 'event-header' },
    h('span', { class: 'seq' }, `#${e.seq}`),
    badge(e.kind, `kind kind-${e.kind.replace(/[^a-z0-9_-]/gi, '')}`),
    h('span', { class: 'role' }, e.role),
    e.name ? h('span', { class: 'name' }, e.name) : null,
    e.step !== null && e.step !== undefined ? h('span', { class: 'step' }, `step ${e.step}`) : null,
    h('span', { class: 'session', title: 'session' }, e.session),
    h('time', { datetime: e.ts }, formatTime(e.ts)),
  );
}

/** A full event card. `compact` shows at most a few lines (neighbours, range lists). */
export function eventCard(e: PanelEvent, actions: EventActions, opts: { compact?: boolean; focusable?: boolean } = {}): HTMLElement {
  const content = h('pre', { class: 'content', tabindex: 0, 'aria-label': `content of event ${e.seq}` }, e.content);
  if (opts.compact) content.classList.add('compact');
  let loaded = e.content.length;
  const more = h('div', { class: 'more' });
  const loadRest = async (): Promise<void> => {
    more.setAttribute('aria-busy', 'true');
    try {
      while (loaded < e.contentLength) {
        const chunk = await actions.rpc.request('payload', { seq: e.seq, offset: loaded, length: PAYLOAD_CHUNK_MAX });
        content.appendChild(document.createTextNode(chunk.text));
        loaded = chunk.offset + chunk.text.length;
        if (chunk.done || !chunk.text.length) break;
      }
      more.remove();
    } catch (err) {
      actions.showStatus(err instanceof Error ? err.message : String(err), true);
    } finally {
      more.removeAttribute('aria-busy');
    }
  };
  if (e.truncated) {
    more.appendChild(h('span', null, `Showing ${formatCount(e.content.length)} of ${formatCount(e.contentLength)} characters. `));
    more.appendChild(button('Load the rest', () => void loadRest(), { testId: 'load-rest' }));
  }
  const tools = h('div', { class: 'event-actions' },
    button('Open in editor', () => actions.open({ kind: 'event', seq: e.seq }), {
      ariaLabel: `Open event ${e.seq} in an editor tab`, testId: 'open-event',
    }),
    actions.neighbours
      ? button('Show neighbours', () => actions.neighbours?.(e.seq), { ariaLabel: `Show events around ${e.seq}`, testId: 'neighbours' })
      : null,
    e.kind === 'eviction'
      ? button('Open segment', () => actions.open({ kind: 'segment', evictionSeq: e.seq }), { testId: 'open-segment' })
      : null,
  );
  const facts = h('div', { class: 'event-facts' },
    `${formatCount(e.tokens)} tokens · ${formatCount(e.bytes)} bytes`,
    e.payload ? ` · payload ${e.payload.slice(0, 12)}…` : '',
    e.toolCallId ? ` · call ${e.toolCallId}` : '',
    e.parentSeq !== null ? ` · parent #${e.parentSeq}` : '',
  );
  const metaKeys = Object.keys(e.meta ?? {});
  const meta = metaKeys.length
    ? h('details', { class: 'meta' }, h('summary', null, `meta (${metaKeys.length})`), h('pre', null, JSON.stringify(e.meta, null, 2)))
    : null;
  return h('article', { class: opts.compact ? 'event compact' : 'event', 'data-seq': e.seq, 'aria-label': `event ${e.seq}, ${e.kind}` },
    eventHeader(e),
    e.headline ? h('div', { class: 'headline' }, e.headline) : null,
    opts.compact ? null : facts,
    e.previewOnly ? h('div', { class: 'preview-only', role: 'note', 'data-testid': 'preview-only' }, e.previewOnly) : null,
    content,
    more.childNodes.length ? more : null,
    tools,
    opts.compact ? null : meta,
  );
}
