/**
 * Term proximity: words of a query found close together in a text are more likely to be about the
 * query than the same words scattered (the proximity component of Rasolofo & Savoy 2003 and of
 * Metzler & Croft's sequential dependence model, 2005). bm25 ranks by each word alone; a candidate
 * in which the query's neighbouring words also stand within PROXIMITY_WINDOW characters of each
 * other scores × (1 + PROXIMITY_SHARE × the share of those pairs so found). kernel/scroll_search.py
 * implements the same rule on the same matches (the ones a snippet marks).
 */
import type { QueryTerm } from './query';
import { keyMatches, snippetPrefixes } from './snippet';
import { PROXIMITY_WINDOW } from './constants';

/** The snippet prefixes of every term, and for each prefix the term it belongs to (the first that has it). */
export interface TermPrefixes {
  prefixes: string[];
  termOf: number[];
  terms: number;
}

export function termPrefixes(terms: readonly QueryTerm[]): TermPrefixes {
  const prefixes: string[] = [];
  const termOf: number[] = [];
  terms.forEach((t, i) => {
    for (const p of snippetPrefixes(t.keys)) {
      if (prefixes.includes(p)) continue;
      prefixes.push(p);
      termOf.push(i);
    }
  });
  return { prefixes, termOf, terms: terms.length };
}

/**
 * The share (0..1) of the query's adjacent term pairs (1st and 2nd, 2nd and 3rd, …) whose words
 * start within PROXIMITY_WINDOW characters of each other somewhere in `text`; 0 for a query of one term.
 */
export function nearPairShare(text: string, tp: TermPrefixes): number {
  const pairs = tp.terms - 1;
  if (pairs < 1 || tp.prefixes.length === 0) return 0;
  const last = new Array<number>(tp.terms).fill(-Infinity); // where each term was last seen
  const near = new Array<boolean>(pairs).fill(false);
  for (const m of keyMatches(text, tp.prefixes)) {
    for (const id of m.keys) {
      const i = tp.termOf[id];
      if (i > 0 && m.start - last[i - 1] <= PROXIMITY_WINDOW) near[i - 1] = true;
      if (i < pairs && m.start - last[i + 1] <= PROXIMITY_WINDOW) near[i] = true;
      last[i] = m.start;
    }
  }
  let found = 0;
  for (const n of near) if (n) found++;
  return found / pairs;
}
