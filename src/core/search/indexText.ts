/**
 * Builds the text the FTS index holds for one event. Owned by search; the event log calls it on
 * every append and on rebuild. (Initial version — the search work refines splitting rules; the
 * Python side never needs this, it only builds queries.)
 */
export interface IndexDocument {
  body: string;
  code: string;
  parts: string;
  headline: string;
}

const FENCE = /```[^\n]*\n([\s\S]*?)(?:```|$)/g;

export function buildIndexDocument(content: string, headline?: string | null): IndexDocument {
  const code: string[] = [];
  const body = content.replace(FENCE, (_m, inner: string) => {
    code.push(inner);
    return ' ';
  });
  return { body, code: code.join('\n'), parts: identifierParts(content), headline: headline ?? '' };
}

/** `getUserById` → `get user by id`; `user_id` → `user id`. Only compound identifiers contribute. */
export function identifierParts(text: string): string {
  const out: string[] = [];
  for (const m of text.matchAll(/[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+|[a-z]+[A-Z][A-Za-z0-9]*|[A-Z]{2,}[a-z][A-Za-z0-9]*/g)) {
    out.push(m[0].replace(/_/g, ' ').replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2'));
  }
  return out.join(' ');
}
