/**
 * Token rules shared by the index side and the query side, mirroring the FTS5 tokenizer
 * `porter unicode61 remove_diacritics 2 tokenchars '_'`: a token is a run of letters, digits and
 * `_`; it is folded to lower case without diacritics, then Porter-stemmed.
 * `kernel/scroll_search.py` implements the same rules (same stop words, same splitting).
 */
import { porterStem } from './porter';

/** A run of token characters (unicode61 with `_` as a token character). */
export const TOKEN_RE = /[\p{L}\p{N}_]+/gu;

/** Lower case, diacritics removed (what unicode61 with remove_diacritics does to a token). */
export function fold(token: string): string {
  const lower = token.toLowerCase();
  // Fast path: plain ASCII has nothing to strip.
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(lower)) return lower;
  return lower.normalize('NFD').replace(/\p{M}+/gu, '');
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

/**
 * English stop words: function words that carry no topic. Pruned from queries (never from the
 * index, so phrases still match). Keep identical to STOP_WORDS in kernel/scroll_search.py.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  'a', 'about', 'above', 'after', 'again', 'against', 'all', 'am', 'an', 'and', 'any', 'are', 'as', 'at',
  'be', 'because', 'been', 'before', 'being', 'below', 'between', 'both', 'but', 'by',
  'can', 'could', 'did', 'do', 'does', 'doing', 'down', 'during', 'each', 'few', 'for', 'from', 'further',
  'had', 'has', 'have', 'having', 'he', 'her', 'here', 'hers', 'herself', 'him', 'himself', 'his', 'how',
  'i', 'if', 'in', 'into', 'is', 'it', 'its', 'itself', 'just', 'me', 'might', 'more', 'most', 'must', 'my',
  'myself', 'no', 'nor', 'not', 'now', 'of', 'off', 'on', 'once', 'only', 'or', 'other', 'our', 'ours',
  'ourselves', 'out', 'over', 'own', 'same', 'shall', 'she', 'should', 'so', 'some', 'such',
  'than', 'that', 'the', 'their', 'theirs', 'them', 'themselves', 'then', 'there', 'these', 'they', 'this',
  'those', 'through', 'to', 'too', 'under', 'until', 'up', 'very', 'was', 'we', 'were', 'what', 'when',
  'where', 'which', 'while', 'who', 'whom', 'whose', 'why', 'will', 'with', 'would', 'you', 'your', 'yours',
  'yourself', 'yourselves', 's', 't', 'd', 'll', 'm', 're', 've',
]);
