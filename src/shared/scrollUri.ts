/**
 * The `scroll:` URI space: event, range, segment, payload and index documents. The one builder and
 * parser of these addresses, pure and importing nothing: the editor's document provider
 * (`src/vscode/documents/contentProvider.ts`) serves them, the panel's host opens them (`scrollUriFor` in
 * panelProtocol.ts is this builder), and the panel front end receives them.
 */
export const SCROLL_SCHEME = 'scroll';

export type ScrollTarget =
  | { kind: 'event'; seq: number }
  | { kind: 'range'; from: number; to: number }
  | { kind: 'segment'; evictionSeq: number }
  | { kind: 'payload'; handle: string }
  | { kind: 'index'; session: string };

export function scrollPath(t: ScrollTarget, payloadExtension = 'txt'): string {
  switch (t.kind) {
    case 'event':
      return `/event/${t.seq}.md`;
    case 'range':
      return `/range/${t.from}-${t.to}.md`;
    case 'segment':
      return `/segment/${t.evictionSeq}.md`;
    case 'payload':
      return `/payload/${t.handle}.${payloadExtension}`;
    case 'index':
      return `/index/${encodeURIComponent(t.session)}.md`;
  }
}

/** `scroll:/event/12.md` and the like: the whole URI as a string. */
export function scrollUriString(t: ScrollTarget, payloadExtension?: string): string {
  return `${SCROLL_SCHEME}:${scrollPath(t, payloadExtension)}`;
}

/** Parses the path of a `scroll:` URI; undefined when it is not one of ours. */
export function parseScrollPath(p: string): ScrollTarget | undefined {
  let m = /^\/event\/(\d+)(?:\.md)?$/.exec(p);
  if (m) return { kind: 'event', seq: Number(m[1]) };
  m = /^\/range\/(\d+)-(\d+)(?:\.md)?$/.exec(p);
  if (m) return { kind: 'range', from: Number(m[1]), to: Number(m[2]) };
  m = /^\/segment\/(\d+)(?:\.md)?$/.exec(p);
  if (m) return { kind: 'segment', evictionSeq: Number(m[1]) };
  m = /^\/payload\/([0-9a-f]{16,128})(?:\.[a-z0-9]+)?$/i.exec(p);
  if (m) return { kind: 'payload', handle: m[1].toLowerCase() };
  m = /^\/index\/(.+?)(?:\.md)?$/.exec(p);
  if (m) return { kind: 'index', session: decodeURIComponent(m[1]) };
  return undefined;
}
