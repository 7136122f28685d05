/**
 * The `scroll:` URI space: event, range, segment, payload and index documents. The one builder and
 * parser of these addresses, pure and importing nothing: the editor's document provider
 * (`src/vscode/documents/contentProvider.ts`) serves them, the provider and the panel's host open tabs at
 * their titled form (`titledPathFor` in src/vscode/documents/tabTitles.ts), and the panel front end receives them.
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

/**
 * A document's tab title, in words: "seq 24 · user message", "seq 40–45", "Evicted seq 1–18",
 * "Eviction index · <session>". `info` adds what only the log knows (an event's kind, a segment's span).
 */
export function scrollTitle(t: ScrollTarget, info: { kind?: string; fromSeq?: number; toSeq?: number } = {}): string {
  switch (t.kind) {
    case 'event':
      return info.kind ? `seq ${t.seq} · ${info.kind.replace(/_/g, ' ')}` : `seq ${t.seq}`;
    case 'range':
      return `seq ${t.from}–${t.to}`;
    case 'segment':
      return info.fromSeq !== undefined && info.toSeq !== undefined
        ? `Evicted seq ${info.fromSeq}${info.toSeq !== info.fromSeq ? `–${info.toSeq}` : ''}`
        : `Evicted segment (eviction seq ${t.evictionSeq})`;
    case 'payload':
      return `payload ${t.handle.slice(0, 12)}`;
    case 'index':
      return `Eviction index · ${t.session}`;
  }
}

/**
 * The path of a titled document: the target's own path with the title as its last segment, so the
 * editor's tab reads the title (`/event/24/seq 24 · user message.md`). Payloads keep their plain path
 * (its extension picks the language). `parseScrollPath` reads both forms, so older links keep opening.
 */
export function titledScrollPath(t: ScrollTarget, title: string, payloadExtension?: string): string {
  if (t.kind === 'payload') return scrollPath(t, payloadExtension);
  const base = scrollPath(t).replace(/\.md$/, '');
  // A title is one path segment: no separators, nothing the URI would read as an escape.
  const segment = title.replace(/[/\\]/g, '∕').replace(/%/g, '％').replace(/\s+/g, ' ').slice(0, 120);
  return `${base}/${segment}.md`;
}

/** Parses the path of a `scroll:` URI (titled or not); undefined when it is not one of ours. */
export function parseScrollPath(p: string): ScrollTarget | undefined {
  const title = String.raw`(?:\.md|\/[^/]*)?$`;
  let m = new RegExp(String.raw`^\/event\/(\d+)` + title).exec(p);
  if (m) return { kind: 'event', seq: Number(m[1]) };
  m = new RegExp(String.raw`^\/range\/(\d+)-(\d+)` + title).exec(p);
  if (m) return { kind: 'range', from: Number(m[1]), to: Number(m[2]) };
  m = new RegExp(String.raw`^\/segment\/(\d+)` + title).exec(p);
  if (m) return { kind: 'segment', evictionSeq: Number(m[1]) };
  m = /^\/payload\/([0-9a-f]{16,128})(?:\.[a-z0-9]+)?$/i.exec(p);
  if (m) return { kind: 'payload', handle: m[1].toLowerCase() };
  m = /^\/index\/([^/]+)\/[^/]*$/.exec(p) ?? /^\/index\/([^/]+?)(?:\.md)?$/.exec(p);
  if (m) return { kind: 'index', session: decodeURIComponent(m[1]) };
  return undefined;
}
