/**
 * The Porter stemmer exactly as SQLite's FTS5 `porter` tokenizer applies it (tokens shorter than 3
 * or longer than 64 bytes pass through; `y` counts as a vowel after a consonant). We need the same
 * stems FTS5 stores so that document frequencies can be read from `events_vocab` and snippets can
 * mark the words FTS5 matched. `kernel/scroll_search.py` has a line-for-line port; a test checks
 * both against the stems SQLite itself writes into the vocabulary.
 */

type Cond = (w: string, n: number) => boolean;
type Rule = readonly [suffix: string, replacement: string, cond: Cond];

function isVowel(c: string, yIsVowel: boolean): boolean {
  return c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u' || (yIsVowel && c === 'y');
}

/** Index just past the first vowel-consonant sequence in w[from, n), or 0 when there is none. */
function gobbleVC(w: string, from: number, n: number, prevCons: boolean): number {
  let cons = prevCons;
  let i = from;
  for (; i < n; i++) {
    cons = !isVowel(w[i], cons);
    if (!cons) break;
  }
  for (i++; i < n; i++) {
    cons = !isVowel(w[i], cons);
    if (cons) return i + 1;
  }
  return 0;
}

const mGt0: Cond = (w, n) => gobbleVC(w, 0, n, false) !== 0;
const mGt1: Cond = (w, n) => {
  const i = gobbleVC(w, 0, n, false);
  return i !== 0 && gobbleVC(w, i, n, true) !== 0;
};
const mEq1: Cond = (w, n) => {
  const i = gobbleVC(w, 0, n, false);
  return i !== 0 && gobbleVC(w, i, n, true) === 0;
};
/** *o: the stem ends consonant-vowel-consonant, the last not w, x or y. */
const oStar: Cond = (w, n) => {
  const last = w[n - 1];
  if (last === 'w' || last === 'x' || last === 'y') return false;
  let mask = 0;
  let cons = false;
  for (let i = 0; i < n; i++) {
    cons = !isVowel(w[i], cons);
    mask = ((mask << 1) + (cons ? 1 : 0)) & 0xffff;
  }
  return (mask & 7) === 5;
};
/** *v*: the stem contains a vowel (`y` counts after the first letter). */
const hasVowel: Cond = (w, n) => {
  for (let i = 0; i < n; i++) if (isVowel(w[i], i > 0)) return true;
  return false;
};
const mGt1AndSorT: Cond = (w, n) => (w[n - 1] === 's' || w[n - 1] === 't') && mGt1(w, n);

// Within each step the first suffix that matches decides (its condition may still fail).
const STEP2: readonly Rule[] = [
  ['ational', 'ate', mGt0], ['tional', 'tion', mGt0], ['enci', 'ence', mGt0], ['anci', 'ance', mGt0],
  ['izer', 'ize', mGt0], ['logi', 'log', mGt0], ['bli', 'ble', mGt0], ['alli', 'al', mGt0],
  ['entli', 'ent', mGt0], ['eli', 'e', mGt0], ['ousli', 'ous', mGt0], ['ization', 'ize', mGt0],
  ['ation', 'ate', mGt0], ['ator', 'ate', mGt0], ['alism', 'al', mGt0], ['iveness', 'ive', mGt0],
  ['fulness', 'ful', mGt0], ['ousness', 'ous', mGt0], ['aliti', 'al', mGt0], ['iviti', 'ive', mGt0],
  ['biliti', 'ble', mGt0],
];
const STEP3: readonly Rule[] = [
  ['ical', 'ic', mGt0], ['ness', '', mGt0], ['icate', 'ic', mGt0], ['iciti', 'ic', mGt0],
  ['ful', '', mGt0], ['ative', '', mGt0], ['alize', 'al', mGt0],
];
const STEP4: readonly Rule[] = [
  ['al', '', mGt1], ['ance', '', mGt1], ['ence', '', mGt1], ['er', '', mGt1], ['ic', '', mGt1],
  ['able', '', mGt1], ['ible', '', mGt1], ['ant', '', mGt1], ['ement', '', mGt1], ['ment', '', mGt1],
  ['ent', '', mGt1], ['ion', '', mGt1AndSorT], ['ou', '', mGt1], ['ism', '', mGt1], ['ate', '', mGt1],
  ['iti', '', mGt1], ['ous', '', mGt1], ['ive', '', mGt1], ['ize', '', mGt1],
];

/** Suffixes only compete when they share the last two letters, so "first in list" is SQLite's order. */
function applyRules(w: string, rules: readonly Rule[]): string {
  for (const [suffix, repl, cond] of rules) {
    if (w.length > suffix.length && w.endsWith(suffix)) {
      const n = w.length - suffix.length;
      return cond(w, n) ? w.slice(0, n) + repl : w;
    }
  }
  return w;
}

function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) { n += 4; i++; }
    else n += 3;
  }
  return n;
}

/** Stem one token that is already folded (lower case, diacritics removed). */
export function porterStem(token: string): string {
  const bytes = utf8Length(token);
  if (bytes < 3 || bytes > 64) return token;
  let w = token;

  // Step 1a
  if (w.endsWith('s')) {
    if (w[w.length - 2] === 'e') {
      if ((w.length > 4 && w.endsWith('sses')) || (w.length > 3 && w[w.length - 3] === 'i')) w = w.slice(0, -2);
      else w = w.slice(0, -1);
    } else if (w[w.length - 2] !== 's') {
      w = w.slice(0, -1);
    }
  }

  // Step 1b
  let removed = false;
  if (w.length > 3 && w.endsWith('eed')) {
    if (mGt0(w, w.length - 3)) w = w.slice(0, -1);
  } else if (w.length > 2 && w.endsWith('ed')) {
    if (hasVowel(w, w.length - 2)) { w = w.slice(0, -2); removed = true; }
  } else if (w.length > 3 && w.endsWith('ing')) {
    if (hasVowel(w, w.length - 3)) { w = w.slice(0, -3); removed = true; }
  }
  if (removed) {
    if (w.length > 2 && (w.endsWith('at') || w.endsWith('bl') || w.endsWith('iz'))) {
      w += 'e';
    } else {
      const c = w[w.length - 1];
      if (w.length >= 2 && !isVowel(c, false) && c !== 'l' && c !== 's' && c !== 'z' && c === w[w.length - 2]) {
        w = w.slice(0, -1);
      } else if (mEq1(w, w.length) && oStar(w, w.length)) {
        w += 'e';
      }
    }
  }

  // Step 1c
  if (w.endsWith('y') && hasVowel(w, w.length - 1)) w = w.slice(0, -1) + 'i';

  // Steps 2-4
  w = applyRules(w, STEP2);
  w = applyRules(w, STEP3);
  w = applyRules(w, STEP4);

  // Step 5a
  if (w.endsWith('e')) {
    const n = w.length - 1;
    if (mGt1(w, n) || (mEq1(w, n) && !oStar(w, n))) w = w.slice(0, -1);
  }
  // Step 5b
  if (w.length > 1 && w.endsWith('ll') && mGt1(w, w.length - 1)) w = w.slice(0, -1);
  return w;
}
