/**
 * Builds the text the FTS index holds for one event (index side of search). The event log calls
 * it on every append and on rebuild, so it must stay cheap: one scan for fences, one regex scan for
 * compound identifiers. The Python side never needs this; it only builds queries.
 *
 * Columns (see FTS_COLUMNS in log/schema.ts):
 *  - body: prose, i.e. the content with fenced code blocks cut out;
 *  - code: the inside of fenced code blocks (weighted low so code does not drown prose in bm25);
 *  - parts: the parts of each distinct compound identifier (`getUserById` → `get user by id`), so
 *    `user` finds it while the whole token stays findable in body/code; and for each token holding
 *    CJK characters (written without spaces, so a whole run is one token), its runs' character
 *    bigrams and each run's last character (`재시도를` → `재시 시도 도를 를`) plus the other pieces
 *    of a mixed token, so a query finds any substring of a run as a phrase of bigrams (query.ts);
 *  - headline: the model-written one-line note.
 */
import { COMPOUND_SIGNAL, HAS_CJK, OTHER, TOKEN_RE, bigrams, cjkSegments, cls, splitCompound } from './tokens';

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
  const all = head ? content + '\n' + head : content;
  const compound = compoundParts(all);
  const cjk = HAS_CJK.test(all) ? cjkGrams(all) : '';
  return { body, code, parts: cjk ? (compound ? compound + '\n' + cjk : cjk) : compound, headline: head };
}

/**
 * For every token holding CJK characters, one line: its runs as bigrams and last character, its
 * other pieces as they are (`retry上限` → `retry 上限 限`). Only text with CJK pays for this.
 */
export function cjkGrams(text: string): string {
  const lines: string[] = [];
  for (const token of text.match(TOKEN_RE) ?? []) {
    if (!HAS_CJK.test(token)) continue;
    const out: string[] = [];
    const segments = cjkSegments(token);
    for (const seg of segments) {
      if (typeof seg === 'string') {
        out.push(seg);
        continue;
      }
      out.push(...bigrams(seg));
      if (seg.length > 1) out.push(seg[seg.length - 1]);
    }
    lines.push(out.join(' '));
  }
  return lines.join('\n');
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
    // (a Map keyed by a fresh slice hashed and compared every occurrence dominated this function).
    let h = 0x811c9dc5;
    for (let j = start; j < end; j++) h = Math.imul(h ^ text.charCodeAt(j), 0x01000193);
    let slot = h & SLOT_MASK;
    let id = -1;
    for (let s = slots[2 * slot + 1]; s !== 0; s = slots[2 * (slot = (slot + 1) & SLOT_MASK) + 1]) {
      const k = s - 1;
      if (slots[2 * slot] === h && keyLength[k] === len && sameAt(keyStart[k], len, text, start)) {
        id = k;
        break;
      }
    }
    if (id < 0) {
      if (memoSize >= MAX_MEMO) {
        forgetSplits();
        slot = h & SLOT_MASK;
      }
      id = memoSize++;
      splitParts[id] = splitIdentifier(remember(id, text, start, len));
      slots[2 * slot] = h;
      slots[2 * slot + 1] = id + 1;
    } else if (listedIn[id] === doc) continue;
    // The memo also says whether this document listed the identifier already.
    listedIn[id] = doc;
    const parts = splitParts[id];
    if (parts !== null) out.push(parts);
  }
  return out.join('\n');
}

const COMPOUND_SCAN = new RegExp(COMPOUND_SIGNAL.source, 'g');

/**
 * True when `text` holds the remembered identifier at `from` (of length `len`) at `at`. Reads the
 * byte pool: remembered identifiers kept as strings were mostly slices of their document, and
 * comparing against them (an indirection and a cache miss per key) was half of this function.
 */
function sameAt(from: number, len: number, text: string, at: number): boolean {
  for (let i = 0; i < len; i++) if (keyChars[from + i] !== text.charCodeAt(at + i)) return false;
  return true;
}

/**
 * Identifiers recur across events (Zipf), so their split form is memoised: an id per identifier
 * (found by an FNV-1a hash of the token's characters read in place), its characters, its parts,
 * and the number of the last document that listed it (each document lists an identifier's parts
 * once). Typed arrays instead of an object or a string per entry: fewer cache misses on a path that
 * runs for every identifier of every append, and no entry keeps a slice of its document alive.
 * Identifiers are ASCII (token characters are [A-Za-z0-9_]), so a byte per character.
 */
const MAX_MEMO = 100_000;
/**
 * Open addressing, linear probing, at most 100k of 262k slots used. A slot is two numbers side by
 * side, the identifier's hash and its id + 1 (0 = empty), so a probe reads one cache line.
 */
const SLOT_MASK = (1 << 18) - 1;
const slots = new Int32Array(2 * (SLOT_MASK + 1));
const keyStart = new Int32Array(MAX_MEMO);
const keyLength = new Uint8Array(MAX_MEMO); // at most MAX_IDENTIFIER_LENGTH
/** Characters of every remembered identifier, back to back; grows up to MAX_MEMO * MAX_IDENTIFIER_LENGTH. */
let keyChars = new Uint8Array(1 << 20);
let keyCharsUsed = 0;
const splitParts: (string | null)[] = [];
const listedIn = new Int32Array(MAX_MEMO);
let memoSize = 0;
let docStamp = 0;

/** Copies an identifier into the pool as entry `id`; returns it as a string of its own (not a slice of `text`). */
function remember(id: number, text: string, at: number, len: number): string {
  if (keyCharsUsed + len > keyChars.length) {
    const grown = new Uint8Array(keyChars.length * 2);
    grown.set(keyChars.subarray(0, keyCharsUsed));
    keyChars = grown;
  }
  const from = keyCharsUsed;
  for (let i = 0; i < len; i++) keyChars[from + i] = text.charCodeAt(at + i);
  keyCharsUsed += len;
  keyStart[id] = from;
  keyLength[id] = len;
  return String.fromCharCode.apply(null, keyChars.subarray(from, from + len) as unknown as number[]);
}

function forgetSplits(): void {
  slots.fill(0);
  splitParts.length = 0;
  listedIn.fill(0);
  memoSize = 0;
  keyCharsUsed = 0;
}

/** `getHTTPServer_v2` → `get http server v2` (null when over MAX_PARTS parts). */
function splitIdentifier(token: string): string | null {
  const parts = splitCompound(token);
  return parts.length > MAX_PARTS ? null : parts.join(' ').toLowerCase();
}
