/**
 * Builds the text the FTS index holds for one event (index side of search). The event log calls
 * it on every append and on rebuild, so it must stay cheap: one scan for fences, one regex scan for
 * compound identifiers. The Python side never needs this; it only builds queries.
 *
 * Columns (see FTS_COLUMNS in log/schema.ts):
 *  - body: prose, i.e. the content with fenced code blocks cut out;
 *  - code: the inside of fenced code blocks (weighted low so code does not drown prose in bm25);
 *  - parts: the parts of each distinct compound identifier (`getUserById` → `get user by id`), so
 *    `user` finds it while the whole token stays findable in body/code;
 *  - headline: the model-written one-line note.
 */
import { identifierParts } from './tokens';

export interface IndexDocument {
  body: string;
  code: string;
  parts: string;
  headline: string;
}

const FENCE = /(```|~~~)[^\n]*\n([\s\S]*?)(?:\1|$)/g;

/**
 * A compound identifier starting at a token boundary: snake_case, camelCase, ACRONYMWord. The
 * lookbehind keeps the scan linear (no retries from the middle of a long token).
 */
const COMPOUND = /(?<![A-Za-z0-9_])[A-Za-z0-9_]*?(?:_[A-Za-z0-9]|[a-z0-9][A-Z]|[A-Z][A-Z][a-z])[A-Za-z0-9_]*/g;

/** Longer tokens (hashes, base64, minified code) are not identifiers; splitting them only adds noise. */
const MAX_IDENTIFIER_LENGTH = 64;
const MAX_PARTS = 8;

export function buildIndexDocument(content: string, headline?: string | null): IndexDocument {
  let body = content;
  let code = '';
  if (content.includes('```') || content.includes('~~~')) {
    const blocks: string[] = [];
    body = content.replace(FENCE, (_m, _fence: string, inner: string) => {
      blocks.push(inner);
      return '\n';
    });
    code = blocks.join('\n');
  }
  const head = headline ?? '';
  return { body, code, parts: compoundParts(head ? content + '\n' + head : content), headline: head };
}

/** Parts of every distinct compound identifier in the text, space-separated, one identifier per line. */
export function compoundParts(text: string): string {
  const seen = new Set<string>();
  const out: string[] = [];
  COMPOUND.lastIndex = 0;
  for (let m = COMPOUND.exec(text); m !== null; m = COMPOUND.exec(text)) {
    const token = m[0];
    if (token.length > MAX_IDENTIFIER_LENGTH || seen.has(token)) continue;
    seen.add(token);
    const parts = identifierParts(token);
    if (parts.length > 0 && parts.length <= MAX_PARTS) out.push(parts.join(' '));
  }
  return out.join('\n');
}
