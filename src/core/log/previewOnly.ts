/**
 * An event whose payload file cannot be read (missing or damaged) is still shown: its stored
 * preview (the row keeps the first PREVIEW_CHARS characters) with the reason (`ReadOptions.
 * keepPreview`), never a failed page, tab, export or chat turn because of one file. Every place
 * that shows events says so beside the event, in these words.
 */
import type { ReadEvent } from './eventLog';

/** Why `e` is only its preview, as one sentence of text; undefined when its content is whole. */
export function previewOnlyNote(e: Pick<ReadEvent, 'payloadError' | 'content' | 'bytes'>): string | undefined {
  if (e.payloadError === undefined) return undefined;
  return `Only the first ${e.content.length} characters of this event (${e.bytes} bytes) can be shown: ` +
    `its payload file cannot be read (${e.payloadError}). "scroll check" or "Scroll: Check History Integrity" lists every such event.`;
}

/**
 * `e` for a reader that sees content only (a model's working view): a preview gets the note
 * appended to its content, in brackets, so the model knows the rest is missing. `e` is not changed.
 */
export function withPreviewNote<E extends Pick<ReadEvent, 'payloadError' | 'content' | 'bytes'>>(e: E): E {
  const note = previewOnlyNote(e);
  return note === undefined ? e : { ...e, content: `${e.content}\n\n[${note}]` };
}

/** The seqs of the events of `events` that are only their preview (for one summary line). */
export function previewOnlySeqs(events: Iterable<Pick<ReadEvent, 'payloadError' | 'seq'>>): number[] {
  const out: number[] = [];
  for (const e of events) if (e.payloadError !== undefined) out.push(e.seq);
  return out;
}
