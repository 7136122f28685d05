/**
 * The path a `scroll:` tab opens with, titled by what it shows ("seq 24 · user message",
 * "Evicted seq 1–18", "Eviction index · <session>"). Pure (no `vscode`): the document provider and
 * the panel's request handler both open tabs with it.
 */
import type { LogEvent } from '../../core/types';
import { scrollTitle, titledScrollPath, type ScrollTarget } from '../../shared/scrollUri';
import { blockOfEvictionEvent } from './evictionBlocks';

/** `get` reads the event a title names (a log's `get`); without it, or when it fails, the plain title. */
export function titledPathFor(t: ScrollTarget, get?: (seq: number) => LogEvent | undefined): string {
  let info: { kind?: string; fromSeq?: number; toSeq?: number } = {};
  try {
    if (get && t.kind === 'event') info = { kind: get(t.seq)?.kind };
    if (get && t.kind === 'segment') {
      const e = get(t.evictionSeq);
      const b = e && blockOfEvictionEvent(e);
      if (b) info = { fromSeq: b.fromSeq, toSeq: b.toSeq };
    }
  } catch {
    /* no title detail: the plain title still says what it is */
  }
  return titledScrollPath(t, scrollTitle(t, info));
}
