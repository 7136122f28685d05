/**
 * Query side, part 1: user text → terms → FTS5 expressions. User text never reaches FTS5 syntax
 * raw: every term is a double-quoted string built only from token characters, joined by operators
 * we write ourselves. `kernel/scroll_search.py` (`parse_query`) follows the same rules.
 *
 * Rules:
 *  - text inside balanced double quotes is a phrase;
 *  - elsewhere, characters that are neither token characters nor joiners (. / \ - : @ #) separate
 *    words; a chunk of several tokens joined by joiners (`src/core/log.ts`, `foo.bar`, `e-mail`) is
 *    a phrase; a trailing possessive 's is dropped; apostrophes split words;
 *  - a compound identifier (`getUserById`, `user_id`) matches whole OR as the phrase of its parts;
 *  - a token holding CJK characters (Han, kana, Hangul: no spaces between words) matches whole OR
 *    as the phrase of its runs' character bigrams (the index holds them: indexText.ts), so any
 *    substring of a run is found; one character matches as a prefix of the bigrams; a run longer
 *    than CJK_PHRASE_MAX is searched as two-character words;
 *  - a word with English irregular forms (IRREGULAR_FORMS: `buy` / `bought`, `child` / `children`)
 *    matches any of them, as one term (the stemmer does not conflate them);
 *  - stop words are pruned (unless nothing else is left); at most MAX_TERMS terms are kept.
 */
import { CJK_PHRASE_MAX, IRREGULAR_FORMS, MAX_QUERY_CHARS, MAX_TERMS, STOP_WORDS } from './constants';
import { answerTypeOf, type AnswerType } from './answerType';
import { asksAboutUser } from './selfReference';
import { HAS_CJK, TOKEN_RE, bigrams, cjkSegments, fold, identifierParts, isCompound, stemKey } from './tokens';


export type TermType = 'word' | 'compound' | 'phrase';

export interface QueryTerm {
  type: TermType;
  /** Display form, e.g. `getuserbyid`, `src core log ts`. */
  text: string;
  /** Folded tokens of the term (one for word/compound). */
  tokens: string[];
  /** Folded identifier parts (compound only). */
  parts: string[];
  /** The FTS5 expression for this term. */
  fts: string;
  /** Stems that mark a match in snippets. */
  keys: string[];
}

/** Days (since 1970-01-01 UTC) a query names: from inclusive, to exclusive. */
export interface DateWindow {
  from: number;
  to: number;
}

export interface ParsedQuery {
  terms: QueryTerm[];
  /** The first date the query names, as a window of days (search.ts lifts events on those days). */
  window?: DateWindow;
  /** The kinds of answer the question asks for (answerType.ts): search.ts lifts events holding one. */
  answer?: AnswerType;
  /** True when the query asks about what the user said (selfReference.ts): search.ts lifts the user's messages. */
  aboutUser?: boolean;
  /** Stop words dropped. */
  stopped: string[];
  /** Set when part of the input was not searched. */
  message?: string;
}

const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;

function makeTerm(rawTokens: string[], forcePhrase: boolean): QueryTerm | null {
  if (rawTokens.length === 0) return null;
  if (rawTokens.length === 1 && !forcePhrase) {
    const raw = rawTokens[0];
    const tok = fold(raw);
    if (HAS_CJK.test(tok)) return cjkTerm(tok);
    const parts = isCompound(raw) ? identifierParts(raw) : [];
    if (parts.length > 0) {
      const keys = [stemKey(tok), ...parts.map((p) => stemKey(p))];
      const alt = parts.length > 1 ? ` OR ${quote(parts.join(' '))}` : ` OR ${quote(parts[0])}`;
      return { type: 'compound', text: tok, tokens: [tok], parts, fts: `(${quote(tok)}${alt})`, keys: unique(keys) };
    }
    return wordTerm(tok);
  }
  const tokens = rawTokens.map(fold);
  if (tokens.length === 1) {
    return { type: 'word', text: tokens[0], tokens, parts: [], fts: quote(tokens[0]), keys: [stemKey(tokens[0])] };
  }
  const keys = tokens.filter((t) => !STOP_WORDS.has(t)).map((t) => stemKey(t));
  return { type: 'phrase', text: tokens.join(' '), tokens, parts: [], fts: quote(tokens.join(' ')), keys: unique(keys) };
}

let irregular: Map<string, string[]> | undefined;

/** Stem → one form per stem of every irregular group holding that stem (the stem's own first). */
function irregularForms(): Map<string, string[]> {
  if (irregular) return irregular;
  const byStem = new Map<string, Map<string, string>>();
  for (const group of IRREGULAR_FORMS) {
    const forms = group.split(' ').filter((f) => f && !STOP_WORDS.has(f));
    for (const f of forms) {
      const stems = byStem.get(stemKey(f)) ?? new Map<string, string>();
      for (const g of forms) if (!stems.has(stemKey(g))) stems.set(stemKey(g), g);
      byStem.set(stemKey(f), stems);
    }
  }
  irregular = new Map([...byStem].map(([stem, forms]) => [stem, [...forms.values()]]));
  return irregular;
}

/** A plain word: itself, or OR'd with its irregular forms (`"buy" OR "bought"`). */
function wordTerm(tok: string): QueryTerm {
  const stem = stemKey(tok);
  const others = (irregularForms().get(stem) ?? []).filter((f) => stemKey(f) !== stem);
  if (others.length === 0) return { type: 'word', text: tok, tokens: [tok], parts: [], fts: quote(tok), keys: [stem] };
  const fts = `(${[tok, ...others].map(quote).join(' OR ')})`;
  return { type: 'word', text: tok, tokens: [tok], parts: [], fts, keys: [stem, ...others.map((f) => stemKey(f))] };
}

/** A token holding CJK characters: whole, or its runs as phrases of bigrams (see the rules above). */
function cjkTerm(tok: string): QueryTerm {
  const segments = cjkSegments(tok);
  const run = (seg: string[]) => quote(bigrams(seg).join(' '));
  let fts: string;
  if (segments.length === 1 && typeof segments[0] !== 'string') {
    const seg = segments[0];
    fts = seg.length === 1 ? `${quote(tok)}*` : seg.length === 2 ? quote(tok) : `(${quote(tok)} OR ${run(seg)})`;
  } else {
    fts = `(${quote(tok)} OR (${segments.map((seg) => (typeof seg === 'string' ? quote(seg) : run(seg))).join(' AND ')}))`;
  }
  return { type: 'word', text: tok, tokens: [tok], parts: [], fts, keys: [stemKey(tok)] };
}

/** A pure CJK token longer than CJK_PHRASE_MAX → two-character words (the last one overlapping when odd). */
function splitLongRun(token: string): string[] {
  const chars = [...token];
  if (chars.length <= CJK_PHRASE_MAX || !HAS_CJK.test(token) || cjkSegments(token).length !== 1) return [token];
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += 2) out.push(i + 1 < chars.length ? chars[i] + chars[i + 1] : chars[i - 1] + chars[i]);
  return out;
}

function unique<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}

const JOINERS = /[./\\\-:@#]/;

const TOKEN_CHAR = /[\p{L}\p{N}_]/u;

/**
 * The first `max` characters of `text`, or fewer: a cut never splits a word (`retry retry` cut
 * inside the second word keeps only the first), nor a surrogate pair. A start that is one word
 * longer than `max` is cut at `max` (it has no boundary to back off to).
 */
export function cutAtWordBoundary(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--; // a high surrogate: its pair is past the cut
  const charAt = (i: number) => String.fromCodePoint(text.codePointAt(i) ?? 0);
  if (!TOKEN_CHAR.test(charAt(end))) return text.slice(0, end);
  let i = end;
  while (i > 0) {
    const prev = text.charCodeAt(i - 1);
    const start = prev >= 0xdc00 && prev <= 0xdfff && i >= 2 ? i - 2 : i - 1;
    if (!TOKEN_CHAR.test(charAt(start))) return text.slice(0, i);
    i = start;
  }
  return text.slice(0, end);
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH = MONTHS.join('|');
const ISO_DATE = /\b(\d{4})-(\d{2})-(\d{2})\b/;
const MONTH_DAY_YEAR = new RegExp(`\\b(${MONTH})\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`, 'i');
const DAY_MONTH_YEAR = new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?(${MONTH}),?\\s+(\\d{4})\\b`, 'i');
const MONTH_YEAR = new RegExp(`\\b(${MONTH}),?\\s+(\\d{4})\\b`, 'i');

/** Day number of a calendar date; undefined when there is no such day (30 February). */
function dayOf(year: number, month: number, day: number): number | undefined {
  const d = new Date(Date.UTC(year, month, day));
  return d.getUTCFullYear() === year && d.getUTCMonth() === month && d.getUTCDate() === day ? Math.floor(d.getTime() / 86_400_000) : undefined;
}

/**
 * The first date a query names, as days: `2023-10-24`, `October 24, 2023`, `24 October 2023` (one
 * day), `March 2023` (the month). Full English month names only ("may" alone is a word).
 */
export function dateWindow(text: string): DateWindow | undefined {
  const one = (from: number | undefined) => (from === undefined ? undefined : { from, to: from + 1 });
  let m = ISO_DATE.exec(text);
  if (m) return one(dayOf(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  m = MONTH_DAY_YEAR.exec(text);
  if (m) return one(dayOf(Number(m[3]), MONTHS.indexOf(m[1].toLowerCase()), Number(m[2])));
  m = DAY_MONTH_YEAR.exec(text);
  if (m) return one(dayOf(Number(m[3]), MONTHS.indexOf(m[2].toLowerCase()), Number(m[1])));
  m = MONTH_YEAR.exec(text);
  if (m) {
    const year = Number(m[2]);
    const month = MONTHS.indexOf(m[1].toLowerCase());
    const from = dayOf(year, month, 1);
    const to = month === 11 ? dayOf(year + 1, 0, 1) : dayOf(year, month + 1, 1);
    return from === undefined || to === undefined ? undefined : { from, to };
  }
  return undefined;
}

export function parseQuery(input: unknown): ParsedQuery {
  let text = typeof input === 'string' ? input : input == null ? '' : String(input);
  let message: string | undefined;
  if (text.length > MAX_QUERY_CHARS) {
    text = cutAtWordBoundary(text, MAX_QUERY_CHARS);
    message = `query longer than ${MAX_QUERY_CHARS} characters: only its start was searched`;
  }
  const candidates: { tokens: string[]; phrase: boolean }[] = [];
  // Balanced double quotes → phrases; the rest is split into chunks.
  const segments = text.split('"');
  const closed = segments.length % 2 === 1; // an odd count of quotes leaves the last one unbalanced
  segments.forEach((seg, i) => {
    const quoted = i % 2 === 1 && (closed || i < segments.length - 1);
    if (quoted) {
      const toks = seg.match(TOKEN_RE) ?? [];
      if (toks.length) candidates.push({ tokens: toks, phrase: toks.length > 1 });
      return;
    }
    const cleaned = seg.replace(/([A-Za-z0-9_])['’]s(?![\p{L}\p{N}_])/gu, '$1').replace(/[^\p{L}\p{N}_./\\\-:@#]+/gu, ' ');
    for (const chunk of cleaned.split(' ')) {
      if (!chunk) continue;
      const toks = chunk.match(TOKEN_RE);
      if (!toks) continue;
      if (toks.length > 1 && JOINERS.test(chunk)) candidates.push({ tokens: toks, phrase: true });
      else for (const t of toks) for (const w of splitLongRun(t)) candidates.push({ tokens: [w], phrase: false });
    }
  });

  const terms: QueryTerm[] = [];
  const stopped: string[] = [];
  const seen = new Set<string>();
  const stopTerms: QueryTerm[] = [];
  let dropped = 0;
  for (const c of candidates) {
    const term = makeTerm(c.tokens, c.phrase);
    if (!term || seen.has(term.fts)) continue;
    seen.add(term.fts);
    if (term.type === 'word' && STOP_WORDS.has(term.text)) {
      stopped.push(term.text);
      stopTerms.push(term);
      continue;
    }
    if (terms.length >= MAX_TERMS) {
      dropped++;
      continue;
    }
    terms.push(term);
  }
  if (dropped > 0) {
    message = `query has ${terms.length + dropped} terms: only the first ${MAX_TERMS} were searched`;
  }
  // A query of stop words only ("what is this") is searched as written rather than not at all.
  if (terms.length === 0 && stopTerms.length > 0) {
    terms.push(...stopTerms.slice(0, MAX_TERMS));
    stopped.length = 0;
  }
  const window = dateWindow(text);
  const out: ParsedQuery = window ? { terms, stopped, message, window } : { terms, stopped, message };
  const answer = answerTypeOf(text);
  if (answer !== undefined) out.answer = answer;
  if (asksAboutUser(text)) out.aboutUser = true;
  return out;
}
