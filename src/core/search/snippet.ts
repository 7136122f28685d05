/**
 * Snippets: the ~64-token window of an event's text that covers the most distinct query terms,
 * matched words wrapped in « ». FTS5's snippet() needs stored content and our index is contentless,
 * so this is done here (and identically in kernel/scroll_search.py: `make_snippet`).
 */
import { TOKEN_RE, identifierParts, isCompound, stemKey } from './tokens';
import { porterStem } from './porter';
import { splitCompound } from './indexText';

export const SNIPPET_TOKENS = 64;
/** Context kept before the first match of the window. */
const LEAD_TOKENS = 8;
/** Only the first matches are tried as window starts (long tool outputs can match thousands of times). */
const MAX_WINDOW_STARTS = 200;
/** A token longer than this (base64, minified code) is shown cut. */
const MAX_TOKEN_CHARS = 40;

export function makeSnippet(content: string, keys: readonly string[], windowTokens = SNIPPET_TOKENS): string {
  const keyIndex = new Map<string, number>();
  keys.forEach((k, i) => keyIndex.set(k, i));
  const firstChars = new Set(keys.map((k) => k[0]));
  // Token boundaries in flat arrays; key matches only for the (few) matching tokens.
  const starts: number[] = [];
  const ends: number[] = [];
  const matchedKeys = new Map<number, number[]>();
  const matchedAt: number[] = [];
  const scratch: number[] = [];
  TOKEN_RE.lastIndex = 0;
  for (let m = TOKEN_RE.exec(content); m !== null; m = TOKEN_RE.exec(content)) {
    const word = m[0];
    if (keyIndex.size > 0) {
      scratch.length = 0;
      matchKeys(word, keyIndex, firstChars, scratch);
      if (scratch.length > 0) {
        matchedKeys.set(starts.length, scratch.slice());
        matchedAt.push(starts.length);
      }
    }
    starts.push(m.index);
    ends.push(m.index + word.length);
  }
  const n = starts.length;
  if (n === 0) return collapse(content).slice(0, 200);

  let bestStart = 0;
  let bestDistinct = -1;
  let bestCount = -1;
  const windowStarts = matchedAt.length > 0 ? matchedAt.slice(0, MAX_WINDOW_STARTS) : [0];
  for (const i of windowStarts) {
    const s = Math.max(0, Math.min(i - LEAD_TOKENS, n - windowTokens));
    const e = Math.min(n, s + windowTokens);
    const seen = new Set<number>();
    let count = 0;
    // Only matched tokens matter: walk the sorted match positions inside [s, e).
    for (const j of matchedAt) {
      if (j < s) continue;
      if (j >= e) break;
      count++;
      for (const k of matchedKeys.get(j)!) seen.add(k);
    }
    if (seen.size > bestDistinct || (seen.size === bestDistinct && count > bestCount)) {
      bestStart = s;
      bestDistinct = seen.size;
      bestCount = count;
    }
  }
  const end = Math.min(n, bestStart + windowTokens);
  let out = bestStart > 0 ? '…' : '';
  let pos = bestStart > 0 ? starts[bestStart] : 0;
  for (let j = bestStart; j < end; j++) {
    out += collapse(content.slice(pos, starts[j]));
    let word = content.slice(starts[j], ends[j]);
    if (word.length > MAX_TOKEN_CHARS) word = word.slice(0, MAX_TOKEN_CHARS) + '…';
    out += matchedKeys.has(j) ? `«${word}»` : word;
    pos = ends[j];
  }
  if (end < n) out += collapse(content.slice(pos, starts[end])).trimEnd() + '…';
  else out += collapse(content.slice(pos));
  return out.trim();
}

function matchKeys(word: string, keyIndex: Map<string, number>, firstChars: Set<string>, out: number[]): void {
  // Porter never changes the first letter, so most words are rejected without stemming.
  const c0 = word.charCodeAt(0);
  const first = c0 < 128 ? (c0 >= 65 && c0 <= 90 ? String.fromCharCode(c0 + 32) : word[0]) : stemKey(word)[0];
  if (firstChars.has(first)) {
    const k = keyIndex.get(stemKey(word));
    if (k !== undefined) out.push(k);
  }
  if (!mayBeCompound(word)) return;
  for (const p of partStems(word)) {
    const k = keyIndex.get(p);
    if (k !== undefined && !out.includes(k)) out.push(k);
  }
}

/** Cheap pre-check for isCompound: an `_`, or an upper-case ASCII letter after the first char. */
function mayBeCompound(word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c === 95 || (i > 0 && c >= 65 && c <= 90)) return true;
  }
  return false;
}

const NO_PARTS: readonly string[] = [];
const partStemCache = new Map<string, readonly string[]>();
/** Stems of a compound identifier's parts (memoised: code repeats the same identifiers). */
function partStems(word: string): readonly string[] {
  let stems = partStemCache.get(word);
  if (stems === undefined) {
    stems = isCompound(word) && /^[\x00-\x7f]*$/.test(word) ? splitCompound(word).map((p) => stemKey(p)) : isCompound(word) ? identifierParts(word).map((p) => porterStem(p)) : NO_PARTS;
    if (partStemCache.size > 50_000) partStemCache.clear();
    partStemCache.set(word, stems);
  }
  return stems;
}

function collapse(s: string): string {
  return s.replace(/\s+/g, ' ');
}
