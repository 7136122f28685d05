/**
 * What "Scroll: Search History" shows for a hit and for its source filter. Pure (no `vscode`): the
 * command (commands.ts) turns these into quick pick items. The quick pick renders `$(name)` in
 * labels, descriptions and details as icons, so logged text goes through `quickPickText` first.
 */
import type { SearchHit } from '../core/types';
import { sourceDisplay } from '../shared/sourceDisplay';

/** Logged text as the quick pick shows it: a `$(name)` in it stays those characters, not an icon. */
export function quickPickText(text: string): string {
  // The quick pick's own escape: a backslash before `$(` (an existing one is kept by escaping the icon after it).
  return text.replace(/\$\([A-Za-z0-9-]+(?:~[A-Za-z]+)?\)/g, '\\$&');
}

export interface HitItemText {
  seq: number;
  label: string;
  description: string;
  detail: string;
  /** Codicon id of the hit's source when it was captured from another agent's transcript. */
  codicon?: string;
}

/** A hit as one quick pick item; `source` is the event's meta.source when it was captured. */
export function hitItemText(h: SearchHit, source?: string): HitItemText {
  const snippet = (h.snippet || h.headline || '').replace(/\s+/g, ' ').replace(/[«»]/g, '').trim();
  const from = source ? sourceDisplay(source) : undefined;
  const item: HitItemText = {
    seq: h.seq,
    label: quickPickText(`seq ${h.seq} · ${h.kind}`),
    description: quickPickText(`${from ? `${from.label} · ` : ''}${h.session} · ${h.ts.slice(0, 16).replace('T', ' ')}${h.match === 'similar' ? ' · similar meaning' : h.broadened ? ' · broadened' : ''}`),
    detail: quickPickText(snippet),
  };
  if (from) item.codicon = from.codicon;
  return item;
}

export interface SourceChoice {
  /** The source to filter on; undefined = every event. */
  source: string | undefined;
  label: string;
  description: string;
  codicon?: string;
}

/** The choices of the source filter: every event, then each captured source with its session count. */
export function sourceChoices(sessionSources: ReadonlyMap<string, string>, current: string | undefined): SourceChoice[] {
  const counts = new Map<string, number>();
  for (const s of sessionSources.values()) counts.set(s, (counts.get(s) ?? 0) + 1);
  const mark = (s: string | undefined) => (s === current ? ' · current filter' : '');
  return [
    { source: undefined, label: 'All sources', description: `Scroll's own sessions and every captured one${mark(undefined)}` },
    ...[...counts].sort(([a], [b]) => a.localeCompare(b)).map(([s, n]) => ({
      source: s,
      label: quickPickText(sourceDisplay(s).label),
      description: quickPickText(`${s} · ${n} captured session${n === 1 ? '' : 's'}${mark(s)}`),
      codicon: sourceDisplay(s).codicon,
    })),
  ];
}
