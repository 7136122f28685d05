/**
 * Snippets: a window of about 64 tokens (SNIPPET_CHARS characters) of an event's text that covers
 * the most distinct query terms, the matched words wrapped in « ». FTS5's snippet() needs stored
 * content and our index is contentless, so this is done here, and identically in
 * kernel/scroll_search.py (`make_snippet`).
 *
 * It must stay cheap (ten hits of up to 8 KB each per search), so the text is never tokenized as a
 * whole: one native regex finds where a query stem starts a word or an identifier part, and only
 * the chosen window is rendered. A word is marked when it (or one of its identifier
 * parts) starts with the stem of a query term, minus a trailing `i`/`e` that Porter may have
 * written (`happi` marks happy, `connect` marks connections); stems of one or two letters must be
 * the whole word or part (`id` marks `userId`, not `idea`). A CJK key (no spaces between words)
 * marks its own characters wherever they occur (`重试上限` inside `重试上限是五次`). Text with
 * letters outside ASCII is matched on a diacritic-free copy when folding keeps its length, else it
 * is shown unmarked.
 */

import { LEAD_CHARS, MAX_WINDOW_STARTS, MAX_WORD_EXTENSION, SNIPPET_CHARS } from './constants';
import { HAS_CJK } from './tokens';


const isWordCode = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
const isLower = (c: number) => c >= 97 && c <= 122;
const isUpper = (c: number) => c >= 65 && c <= 90;
const isDigit = (c: number) => c >= 48 && c <= 57;
const NON_ASCII_WORD = /[\p{L}\p{N}]/u;

function isWordAt(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  return c < 128 ? isWordCode(c) : NON_ASCII_WORD.test(s[i]);
}

/** A word or identifier part starts at i: after a non-word char, after `_`, or at a case boundary. */
function startsPart(s: string, i: number): boolean {
  if (i === 0 || !isWordAt(s, i - 1)) return true;
  const p = s.charCodeAt(i - 1);
  if (p === 95) return true;
  const c = s.charCodeAt(i);
  if ((isLower(p) || isDigit(p)) && isUpper(c)) return true;
  return isUpper(p) && isUpper(c) && i + 1 < s.length && isLower(s.charCodeAt(i + 1));
}

/** The part that starts at i ends here (for one- and two-letter stems, which must be whole). */
function endsPart(s: string, i: number): boolean {
  if (i >= s.length) return true;
  const c = s.charCodeAt(i);
  if (c === 95 || !isWordAt(s, i)) return true;
  return isUpper(c) && !isUpper(s.charCodeAt(i - 1));
}

/**
 * Search prefixes for the keys: the stem minus a trailing i/e Porter may have written (a
 * three-letter stem ending in i also with y instead: `dai` → `dai`, `day`); a key
 * holding CJK (Han, kana, Hangul) as it is. Other non-ASCII keys are left out (case folding outside
 * ASCII differs between the two implementations), and so are keys with characters beyond the BMP
 * (JavaScript counts them as two units).
 */
export function snippetPrefixes(keys: readonly string[]): string[] {
  const out: string[] = [];
  for (const k of keys) {
    let p = k;
    // eslint-disable-next-line no-control-regex
    const ascii = /^[\x00-\x7f]*$/.test(p);
    if (ascii && p.length > 3 && (p.endsWith('i') || p.endsWith('e'))) p = p.slice(0, -1);
    if (p && (ascii || (HAS_CJK.test(p) && !SURROGATE.test(p))) && !out.includes(p)) out.push(p);
    // Porter writes a short word's final y as i (day → dai, buy → bui), a prefix of neither word.
    const y = ascii && p.length === 3 && p.endsWith('i') ? p.slice(0, 2) + 'y' : '';
    if (y && !out.includes(y)) out.push(y);
  }
  return out;
}

const LATIN_LETTER = /\p{Script=Latin}/u;

/** Lower-case, diacritic-free copy with the same length, or null when folding changes the length. */
function foldedCopy(s: string): string | null {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch.charCodeAt(0) < 128) {
      out += ch;
      continue;
    }
    const f = ch.normalize('NFD').replace(/\p{M}+/gu, '');
    if (f.length === 0) return null;
    // As fold(): only Latin letters lose their marks (a Hangul syllable stays one character).
    out += f.length === 1 && (f.charCodeAt(0) < 128 || LATIN_LETTER.test(f)) ? f : ch;
  }
  return out;
}

export interface Match {
  start: number;
  end: number;
  keys: Set<number>;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const regexCache = new Map<string, RegExp>();
/**
 * One regex for all prefixes (longest first, ASCII letters in either case via the `i` flag; no
 * lookbehind, so the engine can skip ahead on the first letter); `startsPart` then decides. Cached:
 * every hit of a search uses the same one. kernel/scroll_search.py builds the same pattern and
 * compiles it with re.ASCII | re.IGNORECASE (case folding within ASCII, as `i` without `u` here).
 */
export function prefixPattern(prefixes: readonly string[]): string {
  const alts = [...prefixes].sort((a, b) => b.length - a.length || (a < b ? -1 : 1)).map(escapeRe);
  return alts.join('|');
}
function prefixRegex(prefixes: readonly string[]): RegExp {
  const source = prefixPattern(prefixes);
  let rx = regexCache.get(source);
  if (!rx) {
    if (regexCache.size > 100) regexCache.clear();
    rx = new RegExp(source, 'gi');
    regexCache.set(source, rx);
  }
  rx.lastIndex = 0;
  return rx;
}

/**
 * The words (whole words around a matching part) that a prefix starts, left to right, exactly as a
 * global regex of the prefixes visits them: leftmost position, longest prefix there, past an
 * accepted one, one step past a rejected one. `indexOf` mode (ASCII text only: lower-casing outside
 * ASCII can turn a letter into an ASCII one, K→k) needs no regex compiled for each new query's
 * terms; a test checks both modes agree.
 */
export function findMatches(text: string, prefixes: readonly string[], mode: 'indexOf' | 'regex'): Match[] {
  const matches: Match[] = [];
  const ids = new Map(prefixes.map((p, i) => [p, i]));
  const cjk = new Set(prefixes.filter((p) => HAS_CJK.test(p)));
  /** A match that overlaps the ones before it (a word around CJK keys) absorbs them: one mark. */
  const add = (start: number, end: number, p: string) => {
    const keys = new Set([ids.get(p)!]);
    while (matches.length && start < matches[matches.length - 1].end) {
      const prev = matches.pop()!;
      start = Math.min(start, prev.start);
      end = Math.max(end, prev.end);
      for (const k of prev.keys) keys.add(k);
    }
    matches.push({ start, end, keys });
  };
  const visit = (at: number, p: string): number => {
    // CJK is written without spaces: a CJK key matches anywhere in a run, and only it is marked.
    if (cjk.size && cjk.has(p)) {
      add(at, at + p.length, p);
      return at + p.length;
    }
    if (!startsPart(text, at) || (p.length <= 2 && !endsPart(text, at + p.length))) return at + 1; // every position is tried
    let start = at;
    while (start > 0 && isWordAt(text, start - 1)) start--;
    let end = at + p.length;
    while (end < text.length && isWordAt(text, end)) end++;
    add(start, end, p);
    return at + p.length;
  };
  if (mode === 'indexOf') {
    let next = 0;
    for (const [at, p] of prefixOccurrences(text.toLowerCase(), prefixes)) if (at >= next) next = visit(at, p);
  } else {
    const rx = prefixRegex(prefixes);
    for (let m = rx.exec(text); m !== null; m = rx.exec(text)) rx.lastIndex = visit(m.index, m[0].toLowerCase());
  }
  return matches;
}

/** Every position where a prefix occurs in `lower`, with the longest prefix there, by position. */
function prefixOccurrences(lower: string, prefixes: readonly string[]): [number, string][] {
  const at = new Map<number, string>();
  for (const p of prefixes) {
    for (let i = lower.indexOf(p); i >= 0; i = lower.indexOf(p, i + 1)) {
      const q = at.get(i);
      if (q === undefined || p.length > q.length || (p.length === q.length && p < q)) at.set(i, p);
    }
  }
  return [...at].sort((a, b) => a[0] - b[0]);
}

/**
 * Whitespace collapsed in snippets: the characters both JavaScript's `\s` and Python's `str.isspace`
 * call whitespace (their own lists differ: U+FEFF, U+001C–U+001F, U+0085), so both sides agree.
 */
const SNIPPET_WS = /[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/g;
const SURROGATE = /[\ud800-\udfff]/;
/** Stand-ins for astral characters (one UTF-16 unit each): a letter that folds to itself, and a non-word. */
const ASTRAL_WORD = '\u00aa';
const ASTRAL_OTHER = '\ue000';
const ASTRAL_LETTER = /^[\p{L}\p{N}]$/u;

export function makeSnippet(content: string, keys: readonly string[]): string {
  if (!SURROGATE.test(content)) return snippetOf(content, keys, (a, b) => content.slice(a, b));
  const { units, offsets } = codePointUnits(content);
  return snippetOf(units, keys, (a, b) => content.slice(offsets[a], offsets[b]));
}

/**
 * Python indexes text by code point, JavaScript by UTF-16 unit, so an emoji counts 1 there and 2
 * here. Windows and distances are measured on a copy in which each astral character is one unit of
 * the same kind (word or not); `offsets` maps a unit back to the original.
 */
function codePointUnits(content: string): { units: string; offsets: number[] } {
  let units = '';
  const offsets: number[] = [];
  for (let i = 0; i < content.length; ) {
    offsets.push(i);
    const c = content.codePointAt(i)!;
    if (c > 0xffff) {
      units += ASTRAL_LETTER.test(String.fromCodePoint(c)) ? ASTRAL_WORD : ASTRAL_OTHER;
      i += 2;
    } else {
      units += content[i];
      i++;
    }
  }
  offsets.push(content.length);
  return { units, offsets };
}

/** The matches of `prefixes` in text of one unit per character, as its snippet marks them. */
function matchesOf(content: string, prefixes: readonly string[]): Match[] {
  // eslint-disable-next-line no-control-regex
  const ascii = /^[\x00-\x7f]*$/.test(content);
  const text = ascii ? content : foldedCopy(content);
  return prefixes.length > 0 && text !== null ? findMatches(text, prefixes, ascii ? 'indexOf' : 'regex') : [];
}

/**
 * The matches of `prefixes` (snippetPrefixes) in `content` that its snippet would mark, at offsets
 * counted in code points (as kernel/scroll_search.py counts them); each match's `keys` are indexes
 * into `prefixes`.
 */
export function keyMatches(content: string, prefixes: readonly string[]): Match[] {
  return matchesOf(SURROGATE.test(content) ? codePointUnits(content).units : content, prefixes);
}

/** The snippet of `content` (one unit per character); `slice` cuts the text shown. */
function snippetOf(content: string, keys: readonly string[], slice: (from: number, to: number) => string): string {
  const matches = matchesOf(content, snippetPrefixes(keys));

  let ws = 0;
  if (matches.length > 0) {
    let best = -1;
    let bestCount = -1;
    for (let i = 0; i < matches.length && i < MAX_WINDOW_STARTS; i++) {
      const s = Math.max(0, matches[i].start - LEAD_CHARS);
      const e = s + SNIPPET_CHARS;
      const seen = new Set<number>();
      let count = 0;
      for (let j = i; j < matches.length && matches[j].start < e; j++) {
        count++;
        for (const k of matches[j].keys) seen.add(k);
      }
      for (let j = i - 1; j >= 0 && matches[j].start >= s; j--) {
        count++;
        for (const k of matches[j].keys) seen.add(k);
      }
      if (seen.size > best || (seen.size === best && count > bestCount)) {
        best = seen.size;
        bestCount = count;
        ws = s;
      }
    }
  }
  // Snap to word boundaries: never start inside a word, finish the word at the end.
  let start = ws;
  while (start > 0 && start < content.length && isWordAt(content, start - 1) && isWordAt(content, start)) start++;
  let end = Math.min(content.length, ws + SNIPPET_CHARS);
  const limit = Math.min(content.length, end + MAX_WORD_EXTENSION);
  while (end < limit && end > 0 && isWordAt(content, end - 1) && isWordAt(content, end)) end++;

  let out = '';
  let pos = start;
  for (const m of matches) {
    if (m.end <= start || m.start < start) continue;
    if (m.start >= end) break;
    const stop = Math.min(m.end, end);
    out += slice(pos, m.start) + '«' + slice(m.start, stop) + '»';
    pos = stop;
  }
  out += slice(pos, end);
  out = out.replace(SNIPPET_WS, ' ').replace(/^ | $/g, '');
  return (start > 0 ? '…' : '') + out + (end < content.length ? '…' : '');
}
