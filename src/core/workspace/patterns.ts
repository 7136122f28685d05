/**
 * Model-supplied patterns that cannot hang: regular expressions and globs are compiled for RE2
 * (`re2js`, a pure JavaScript port of RE2), which matches in time linear in the input — no
 * backtracking, so `(a+)+$` costs what `a+$` does. RE2 has no backreferences and no lookahead;
 * such a pattern is refused with a message that names the feature and what to do instead.
 * JavaScript spellings RE2 lacks (`\uXXXX`, `\u{…}`, `(?<name>…)`, `[^]`) are translated first.
 * Globs are translated to RE2 too (VS Code glob syntax: `**`, `*`, `?`, `[…]`, `{a,b}`), so no glob
 * reaches a backtracking engine either.
 */
import { RE2JS } from 're2js';
import { ScrollError } from '../errors';

/** Longest pattern or glob accepted (RE2's own program-size limit comes later). */
export const MAX_PATTERN_LENGTH = 2_000;
const MAX_BRACE_DEPTH = 10;

/** A pattern that cannot be used; `message` says why and what to use instead. */
export class PatternError extends ScrollError {
  constructor(message: string) {
    super(message, 'BAD_PATTERN');
  }
}

export interface LineMatcher {
  /** True when the line holds a match. */
  test(line: string): boolean;
}

const SIMPLER = 'use a simpler pattern, or search for a literal string (isRegex: false)';
const ENGINE = 'the regular expression engine (RE2: linear time, so that no pattern can hang the search)';

/** A JavaScript-syntax feature RE2 cannot match, found escape- and class-aware; undefined when none. */
export function unsupportedRegexFeature(src: string): string | undefined {
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === '\\') {
      const n = src[i + 1] ?? '';
      if (!inClass && n >= '1' && n <= '9') return `a backreference (\\${n})`;
      if (!inClass && n === 'k' && src[i + 2] === '<') return 'a named backreference (\\k<…>)';
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '(' && src[i + 1] === '?' && (src[i + 2] === '=' || src[i + 2] === '!')) return 'a lookahead ((?=…) or (?!…))';
  }
  return undefined;
}

/** What re2js says about a pattern it refuses, in the model's terms. */
function describeSyntaxError(e: unknown): string {
  const err = e as { error?: string; input?: string | null; message?: string };
  const what = err.error ?? '';
  const at = err.input ? ` at \`${err.input}\`` : '';
  if (/invalid or unsupported Perl syntax/.test(what) && /^\(\?[=!]/.test(err.input ?? '')) return `the pattern uses a lookahead ((?=…) or (?!…)), which ${ENGINE} does not support; ${SIMPLER}`;
  if (/invalid escape sequence/.test(what) && /^\\[1-9]/.test(err.input ?? '')) return `the pattern uses a backreference (${err.input}), which ${ENGINE} does not support; ${SIMPLER}`;
  if (/invalid capture in lookbehind/.test(what)) return `a lookbehind may not hold a capturing group in ${ENGINE}: write (?:…) inside it, or ${SIMPLER}`;
  if (/invalid repeat count/.test(what)) return `repeat counts above 1000 are not supported by ${ENGINE}${at}; ${SIMPLER}`;
  if (/invalid escape sequence/.test(what)) return `the escape ${err.input ?? ''} is not supported by ${ENGINE}; ${SIMPLER}`;
  if (/expression too large|program too large/i.test(what + (err.message ?? ''))) return `the pattern is too large for ${ENGINE}; ${SIMPLER}`;
  return `bad regular expression: ${what || err.message || String(e)}${at}`;
}

/**
 * A line matcher for search tools. Literal patterns (the default) match as substrings; with
 * `regex`, JavaScript regular expression syntax minus backreferences and lookahead (lookbehind
 * works). Throws `PatternError` with a message for the model.
 */
export function compileTextPattern(pattern: string, opts: { regex?: boolean; ignoreCase?: boolean } = {}): LineMatcher {
  if (typeof pattern !== 'string' || !pattern) throw new PatternError('the pattern is empty');
  if (pattern.length > MAX_PATTERN_LENGTH) throw new PatternError(`the pattern is ${pattern.length} characters long (at most ${MAX_PATTERN_LENGTH})`);
  if (!opts.regex && !opts.ignoreCase) return { test: (line) => line.includes(pattern) };
  let source: string;
  if (opts.regex) {
    const feature = unsupportedRegexFeature(pattern);
    if (feature) throw new PatternError(`the pattern uses ${feature}, which ${ENGINE} does not support; ${SIMPLER}`);
    try {
      source = RE2JS.translateRegExp(pattern);
    } catch (e) {
      throw new PatternError(`bad regular expression: ${(e as Error).message}`);
    }
  } else {
    source = RE2JS.quote(pattern);
  }
  const flags = (opts.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0) | (opts.regex ? RE2JS.LOOKBEHINDS : 0);
  let re: RE2JS;
  try {
    re = RE2JS.compile(source, flags);
  } catch (e) {
    throw new PatternError(describeSyntaxError(e));
  }
  return { test: (line) => re.test(line) };
}

export interface GlobMatcher {
  /** True when the `/`-separated path relative to the workspace matches the whole glob. */
  test(rel: string): boolean;
  /** The RE2 source it was compiled to (for tests and messages). */
  readonly source: string;
}

/** Index of the `]` closing the class that opens at `start`, or -1. */
function classEnd(glob: string, start: number): number {
  let j = start + 1;
  if (glob[j] === '!' || glob[j] === '^') j++;
  if (glob[j] === ']') j++;
  for (; j < glob.length; j++) {
    if (glob[j] === '/') return -1;
    if (glob[j] === ']') return j;
  }
  return -1;
}

/** Pairs `{` with `}`; unpaired braces are literal. */
function bracePairs(glob: string): Map<number, number> {
  const pairs = new Map<number, number>();
  const open: number[] = [];
  for (let i = 0; i < glob.length; i++) {
    if (glob[i] === '[') {
      const end = classEnd(glob, i);
      if (end > 0) i = end;
    } else if (glob[i] === '{') {
      open.push(i);
      if (open.length > MAX_BRACE_DEPTH) throw new PatternError(`the glob nests {…} more than ${MAX_BRACE_DEPTH} deep`);
    } else if (glob[i] === '}' && open.length) pairs.set(open.pop()!, i);
  }
  return pairs;
}

const REGEX_META = /[\\^$.|?*+()[\]{}]/g;

/** The RE2 source of a glob (VS Code syntax), anchored at both ends. */
export function globSource(input: string): string {
  let glob = input.replace(/\\/g, '/');
  while (glob.startsWith('./')) glob = glob.slice(2);
  glob = glob.replace(/^\/+/, '');
  const pairs = bracePairs(glob);
  const closers = new Set(pairs.values());
  let depth = 0;
  let out = '';
  for (let i = 0; i < glob.length; ) {
    const c = glob[i];
    if (c === '*') {
      let j = i;
      while (glob[j] === '*') j++;
      const segmentStart = i === 0 || glob[i - 1] === '/';
      const segmentEnd = j === glob.length || glob[j] === '/';
      if (j - i >= 2 && segmentStart && segmentEnd) {
        if (glob[j] === '/') {
          out += '(?:[^/]*/)*'; // `**/`: any number of folders, none included
          i = j + 1;
        } else {
          out += '.*'; // a trailing `**`: anything below
          i = j;
        }
      } else {
        out += '[^/]*';
        i = j;
      }
      continue;
    }
    if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = classEnd(glob, i);
      if (end < 0) out += '\\[';
      else {
        let body = glob.slice(i + 1, end);
        const negated = body[0] === '!' || body[0] === '^';
        if (negated) body = body.slice(1);
        out += `[${negated ? '^/' : ''}${body.replace(/[\\\]^[]/g, '\\$&')}]`;
        i = end + 1;
        continue;
      }
    } else if (c === '{' && pairs.has(i)) {
      depth++;
      out += '(?:';
    } else if (c === '}' && depth > 0 && closers.has(i)) {
      depth--;
      out += ')';
    } else if (c === ',' && depth > 0) out += '|';
    else out += c.replace(REGEX_META, '\\$&');
    i++;
  }
  return `^(?:${out})$`;
}

/**
 * A glob matcher on RE2, so that a model-given glob cannot hang. Throws `PatternError`.
 * `ignoreCase` for case-insensitive file systems (Windows, macOS).
 */
export function compileGlob(glob: string, opts: { ignoreCase?: boolean } = {}): GlobMatcher {
  if (typeof glob !== 'string' || !glob.trim()) throw new PatternError('the glob is empty');
  if (glob.length > MAX_PATTERN_LENGTH) throw new PatternError(`the glob is ${glob.length} characters long (at most ${MAX_PATTERN_LENGTH})`);
  const source = globSource(glob.trim());
  let re: RE2JS;
  try {
    re = RE2JS.compile(source, RE2JS.DOTALL | (opts.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0));
  } catch (e) {
    throw new PatternError(`bad glob ${JSON.stringify(glob)}: ${(e as { error?: string }).error ?? (e as Error).message}`);
  }
  return { source, test: (rel) => re.test(rel) };
}
