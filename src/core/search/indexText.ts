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
import { DIGIT, LOWER, OTHER, UNDERSCORE, UPPER, cls, splitCompound } from './tokens';

export interface IndexDocument {
  body: string;
  code: string;
  parts: string;
  headline: string;
}

const FENCE = /(```|~~~)[^\n]*\n([\s\S]*?)(?:\1|$)/g;

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

/**
 * Parts of every distinct compound identifier in the text (snake_case, camelCase, ACRONYMWord),
 * space-separated, one identifier per line, lower case. One pass over char codes: this runs on
 * every append. Parts come from `splitCompound`, as on the query side (`identifierParts`); a test
 * checks both sides agree on which tokens are compound.
 */
export function compoundParts(text: string): string {
  const doc = ++docStamp;
  const out: string[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (cls(text.charCodeAt(i)) === OTHER) {
      i++;
      continue;
    }
    const start = i;
    let compound = false;
    let prev = OTHER;
    let prev2 = OTHER;
    for (; i < n; i++) {
      const c = cls(text.charCodeAt(i));
      if (c === OTHER) break;
      if (!compound) {
        if (prev === UNDERSCORE && c !== UNDERSCORE) compound = true;
        else if ((prev === LOWER || prev === DIGIT) && c === UPPER) compound = true;
        else if (prev2 === UPPER && prev === UPPER && c === LOWER) compound = true;
      }
      prev2 = prev;
      prev = c;
    }
    if (!compound || i - start > MAX_IDENTIFIER_LENGTH) continue;
    const token = text.slice(start, i);
    // One lookup per identifier: the memo also says whether this document listed it already.
    let seen = splitCache.get(token);
    if (seen === undefined) {
      if (splitCache.size >= 100_000) splitCache.clear();
      seen = { parts: splitIdentifier(token), doc };
      splitCache.set(token, seen);
    } else if (seen.doc === doc) continue;
    else seen.doc = doc;
    if (seen.parts !== null) out.push(seen.parts);
  }
  return out.join('\n');
}

/**
 * Identifiers recur across events (Zipf), so their split form is memoised, with the number of the
 * last document that listed them (each document lists an identifier's parts once).
 */
const splitCache = new Map<string, { parts: string | null; doc: number }>();
let docStamp = 0;

/** `getHTTPServer_v2` → `get http server v2` (null when over MAX_PARTS parts). */
function splitIdentifier(token: string): string | null {
  const parts = splitCompound(token);
  return parts.length > MAX_PARTS ? null : parts.join(' ').toLowerCase();
}
