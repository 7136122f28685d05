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
import { COMPOUND_SIGNAL, OTHER, cls, splitCompound } from './tokens';

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
 * space-separated, one identifier per line, lower case. This runs on every append, over every
 * character: the regex `isCompound` uses finds where a token turns compound (V8 scans it in compiled
 * code instead of classifying every character in a JS loop); only the tokens it lands in are then
 * delimited by hand. Tokens are runs of ASCII letters, digits and `_` (any other character
 * separates). Parts come from `splitCompound`, as on the query side (`identifierParts`).
 */
export function compoundParts(text: string): string {
  const doc = ++docStamp;
  const out: string[] = [];
  const n = text.length;
  const signal = COMPOUND_SCAN;
  signal.lastIndex = 0;
  // test() on a global regex moves lastIndex past the match without allocating a match object.
  while (signal.test(text)) {
    // Every character of a match is a token character, so the token contains lastIndex - 1.
    let start = signal.lastIndex - 1;
    while (start > 0 && cls(text.charCodeAt(start - 1)) !== OTHER) start--;
    let end = signal.lastIndex;
    while (end < n && cls(text.charCodeAt(end)) !== OTHER) end++;
    signal.lastIndex = end;
    const len = end - start;
    if (len > MAX_IDENTIFIER_LENGTH) continue;
    // One lookup per identifier, in place: no string is cut out of the text unless it is new
    // (a Map keyed by a fresh slice hashed and compared every occurrence: 60 % of this function).
    let h = 0x811c9dc5;
    for (let j = start; j < end; j++) h = Math.imul(h ^ text.charCodeAt(j), 0x01000193);
    let slot = h & SLOT_MASK;
    let id = -1;
    for (let s = slots[slot]; s !== 0; s = slots[(slot = (slot + 1) & SLOT_MASK)]) {
      const k = s - 1;
      if (keyHash[k] === h && sameAt(splitKeys[k], len, text, start)) {
        id = k;
        break;
      }
    }
    if (id < 0) {
      if (splitKeys.length >= MAX_MEMO) {
        forgetSplits();
        slot = h & SLOT_MASK;
      }
      const token = text.slice(start, end);
      id = splitKeys.length;
      splitKeys.push(token);
      splitParts.push(splitIdentifier(token));
      keyHash[id] = h;
      slots[slot] = id + 1;
    } else if (listedIn[id] === doc) continue;
    // The memo also says whether this document listed the identifier already.
    listedIn[id] = doc;
    const parts = splitParts[id];
    if (parts !== null) out.push(parts);
  }
  return out.join('\n');
}

const COMPOUND_SCAN = new RegExp(COMPOUND_SIGNAL.source, 'g');

/** True when `text` holds `key` (of length `len`) at `at`. A loop: `startsWith(key, at)` cost 5× more here. */
function sameAt(key: string, len: number, text: string, at: number): boolean {
  if (key.length !== len) return false;
  for (let i = 0; i < len; i++) if (key.charCodeAt(i) !== text.charCodeAt(at + i)) return false;
  return true;
}

/**
 * Identifiers recur across events (Zipf), so their split form is memoised: an id per identifier
 * (found by an FNV-1a hash of the token's characters read in place), its text, its parts, and the
 * number of the last document that listed it (each document lists an identifier's parts once).
 * Typed arrays and plain arrays instead of an object per entry: fewer cache misses on a path that
 * runs for every identifier of every append.
 */
const MAX_MEMO = 100_000;
/** Open addressing, linear probing: id + 1 per slot (0 = empty), at most 100k of 262k slots used. */
const SLOT_MASK = (1 << 18) - 1;
const slots = new Int32Array(SLOT_MASK + 1);
const splitKeys: string[] = [];
const keyHash = new Int32Array(MAX_MEMO);
const splitParts: (string | null)[] = [];
const listedIn = new Int32Array(MAX_MEMO);
let docStamp = 0;

function forgetSplits(): void {
  slots.fill(0);
  splitKeys.length = 0;
  splitParts.length = 0;
  listedIn.fill(0);
}

/** `getHTTPServer_v2` → `get http server v2` (null when over MAX_PARTS parts). */
function splitIdentifier(token: string): string | null {
  const parts = splitCompound(token);
  return parts.length > MAX_PARTS ? null : parts.join(' ').toLowerCase();
}
