/**
 * Snippets: the ~64-token window of an event's text that covers the most distinct query terms,
 * matched words wrapped in « ». FTS5's snippet() needs stored content and our index is contentless,
 * so this is done here (and identically in kernel/scroll_search.py: `make_snippet`).
 */
import { TOKEN_RE, identifierParts, isCompound, stemKey } from './tokens';
import { porterStem } from './porter';

export const SNIPPET_TOKENS = 64;
/** Context kept before the first match of the window. */
const LEAD_TOKENS = 8;
/** Only the first matches are tried as window starts (long tool outputs can match thousands of times). */
const MAX_WINDOW_STARTS = 200;
/** A token longer than this (base64, minified code) is shown cut. */
const MAX_TOKEN_CHARS = 40;

interface Tok {
  start: number;
  end: number;
  keys: number[]; // indexes of the query keys this token matches
}

export function makeSnippet(content: string, keys: readonly string[], windowTokens = SNIPPET_TOKENS): string {
  const keyIndex = new Map<string, number>();
  keys.forEach((k, i) => keyIndex.set(k, i));
  const firstChars = new Set(keys.map((k) => k[0]));
  const toks: Tok[] = [];
  const matchedAt: number[] = [];
  TOKEN_RE.lastIndex = 0;
  for (let m = TOKEN_RE.exec(content); m !== null; m = TOKEN_RE.exec(content)) {
    const word = m[0];
    const tok: Tok = { start: m.index, end: m.index + word.length, keys: [] };
    if (keyIndex.size > 0) matchKeys(word, keyIndex, firstChars, tok.keys);
    if (tok.keys.length > 0) matchedAt.push(toks.length);
    toks.push(tok);
  }
  if (toks.length === 0) return collapse(content).slice(0, 200);

  let bestStart = 0;
  let bestDistinct = -1;
  let bestCount = -1;
  const starts = matchedAt.length > 0 ? matchedAt.slice(0, MAX_WINDOW_STARTS) : [0];
  for (const i of starts) {
    const s = Math.max(0, Math.min(i - LEAD_TOKENS, toks.length - windowTokens));
    const e = Math.min(toks.length, s + windowTokens);
    const seen = new Set<number>();
    let count = 0;
    for (let j = s; j < e; j++) {
      const ks = toks[j].keys;
      if (ks.length === 0) continue;
      count++;
      for (const k of ks) seen.add(k);
    }
    if (seen.size > bestDistinct || (seen.size === bestDistinct && count > bestCount)) {
      bestStart = s;
      bestDistinct = seen.size;
      bestCount = count;
    }
  }
  const end = Math.min(toks.length, bestStart + windowTokens);
  let out = bestStart > 0 ? '…' : '';
  let pos = bestStart > 0 ? toks[bestStart].start : 0;
  for (let j = bestStart; j < end; j++) {
    const t = toks[j];
    out += collapse(content.slice(pos, t.start));
    let word = content.slice(t.start, t.end);
    if (word.length > MAX_TOKEN_CHARS) word = word.slice(0, MAX_TOKEN_CHARS) + '…';
    out += t.keys.length > 0 ? `«${word}»` : word;
    pos = t.end;
  }
  if (end < toks.length) out += collapse(content.slice(pos, toks[end].start)).trimEnd() + '…';
  else out += collapse(content.slice(pos));
  return out.trim();
}

function matchKeys(word: string, keyIndex: Map<string, number>, firstChars: Set<string>, out: number[]): void {
  // Porter never changes the first letter, so most words are rejected without stemming.
  const first = word.charCodeAt(0) < 128 ? word[0].toLowerCase() : stemKey(word)[0];
  if (firstChars.has(first)) {
    const k = keyIndex.get(stemKey(word));
    if (k !== undefined) out.push(k);
  }
  if (isCompound(word)) {
    for (const p of identifierParts(word)) {
      const k = keyIndex.get(porterStem(p));
      if (k !== undefined && !out.includes(k)) out.push(k);
    }
  }
}

function collapse(s: string): string {
  return s.replace(/\s+/g, ' ');
}
