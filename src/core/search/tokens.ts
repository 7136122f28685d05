/**
 * Token rules shared by the index side and the query side, mirroring the FTS5 tokenizer
 * `porter unicode61 remove_diacritics 2 tokenchars '_'`: a token is a run of letters, digits and
 * `_`; it is folded to lower case without diacritics, then Porter-stemmed.
 * `kernel/scroll_search.py` implements the same rules (same splitting; the stop words of both come
 * from kernel/search_constants.json).
 */
import { porterStem } from './porter';
import { CJK_RANGES } from './constants';

/** A run of token characters (unicode61 with `_` as a token character). */
export const TOKEN_RE = /[\p{L}\p{N}_]+/gu;

const LATIN = /\p{Script=Latin}/u;

/**
 * Lower case, diacritics removed from Latin letters: what unicode61 with remove_diacritics does to
 * a token. It strips nothing from other scripts, so neither does this (decomposing a Hangul
 * syllable into jamo, or が into か, made those words unfindable).
 */
export function fold(token: string): string {
  const lower = token.toLowerCase();
  // Fast path: plain ASCII has nothing to strip.
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(lower)) return lower;
  let out = '';
  for (const ch of lower) {
    if (ch.charCodeAt(0) < 128) {
      out += ch;
      continue;
    }
    const base = ch.normalize('NFD').replace(/\p{M}+/gu, '');
    if (base === '') continue; // a lone mark (İ lower-cases to i + a combining dot)
    out += base.length === 1 && (base.charCodeAt(0) < 128 || LATIN.test(base)) ? base : ch;
  }
  return out;
}

const CJK_CLASS = `[${CJK_RANGES.map(([a, b]) => `\\u{${a.toString(16)}}-\\u{${b.toString(16)}}`).join('')}]`;
/** True when the text holds a CJK character (Han, kana, Hangul). */
export const HAS_CJK = new RegExp(CJK_CLASS, 'u');
const CJK_OR_NOT = new RegExp(`${CJK_CLASS}+|[^${CJK_CLASS.slice(1)}+`, 'gu');

/**
 * The parts of a token that holds CJK characters, in order: CJK runs (as arrays of characters)
 * and the other pieces (`retry上限` → retry, [上, 限]).
 */
export function cjkSegments(token: string): (string | string[])[] {
  return (token.match(CJK_OR_NOT) ?? []).map((seg) => (HAS_CJK.test(seg) ? [...seg] : seg));
}

/** Character bigrams of a run, in order (a one-character run is itself). */
export function bigrams(run: readonly string[]): string[] {
  if (run.length < 2) return [...run];
  const out: string[] = [];
  for (let i = 0; i + 1 < run.length; i++) out.push(run[i] + run[i + 1]);
  return out;
}

const stemCache = new Map<string, string>();
/** fold + Porter stem, memoised (bounded) because snippets stem the same words over and over. */
export function stemKey(token: string): string {
  const folded = fold(token);
  let s = stemCache.get(folded);
  if (s === undefined) {
    s = porterStem(folded);
    if (stemCache.size > 50_000) stemCache.clear();
    stemCache.set(folded, s);
  }
  return s;
}

/**
 * Parts of a compound identifier, folded: `getUserById` → get user by id, `user_id` → user id,
 * `HTTPServerError` → http server error, `__init__` → init. Empty when the token is not compound.
 * The index side (indexText.ts) splits with the same `splitCompound`, so part phrases match.
 */
export function identifierParts(token: string): string[] {
  const out = splitCompound(token).map(fold);
  if (out.length >= 2 || (out.length === 1 && token.includes('_'))) return out;
  return [];
}

// Character classes of the ASCII identifier alphabet, by char code.
export const OTHER = 0;
const LOWER = 1;
const UPPER = 2;
const DIGIT = 3;
const UNDERSCORE = 4;
const CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  CLASS[c] = c >= 97 && c <= 122 ? LOWER : c >= 65 && c <= 90 ? UPPER : c >= 48 && c <= 57 ? DIGIT : c === 95 ? UNDERSCORE : OTHER;
}
export const cls = (c: number) => (c < 128 ? CLASS[c] : OTHER);

/**
 * The parts of an identifier, case kept: split at `_`, lower/digit→Upper and at the last capital of
 * an acronym before a lower-case letter (ASCII classes, like the Python port's regexes). A char-class
 * scan: it runs on every identifier of every append.
 */
export function splitCompound(token: string): string[] {
  const parts: string[] = [];
  let from = -1; // start of the current part, -1 between parts
  const n = token.length;
  for (let j = 0; j < n; j++) {
    const c = cls(token.charCodeAt(j));
    if (c === UNDERSCORE) {
      if (from >= 0) parts.push(token.slice(from, j));
      from = -1;
      continue;
    }
    if (from < 0) {
      from = j;
      continue;
    }
    const p = cls(token.charCodeAt(j - 1));
    if (((p === LOWER || p === DIGIT) && c === UPPER) || (p === UPPER && c === UPPER && j + 1 < n && cls(token.charCodeAt(j + 1)) === LOWER)) {
      parts.push(token.slice(from, j));
      from = j;
    }
  }
  if (from >= 0) parts.push(token.slice(from));
  return parts;
}

/**
 * Where a token turns compound: `_x`, `aB`, `ABc`. The one definition of "compound", for the query
 * side (`isCompound`) and the index side (indexText.ts scans text for it with the `g` flag).
 */
export const COMPOUND_SIGNAL = /_[A-Za-z0-9]|[a-z0-9][A-Z]|[A-Z][A-Z][a-z]/;

/** True when a token is a compound identifier worth splitting (snake_case, camelCase, ACRONYMWord). */
export function isCompound(token: string): boolean {
  return COMPOUND_SIGNAL.test(token);
}

