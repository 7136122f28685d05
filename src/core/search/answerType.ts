/**
 * Answer-type matching (question answering's "predictive annotation": Prager et al. 2000; Tellex et
 * al. 2003): the form of a question predicts the kind of expression its answer holds. "When did …"
 * is answered by a time ("yesterday", "last week", "in 2022"), "how many …" by a number, "who …" by
 * a person, "where …" by a place. A candidate that holds an expression of the predicted kind is
 * lifted (search.ts); nothing is added to the candidates.
 *
 * English only. The question forms (ANSWER_QUESTIONS: "how many: number") and each kind's cues
 * (ANSWER_CUES: words, phrases and small ASCII patterns, matched whole-word and case-insensitively)
 * are data in kernel/search_constants.json, so kernel/scroll_search.py builds the same patterns
 * (`answer_type_of`, `holds_answer_type`).
 */
import { ANSWER_CUES, ANSWER_QUESTIONS } from './constants';

/** The kinds of answer a question asks for (keys of ANSWER_CUES; "how long" asks for a number or a time). */
export type AnswerType = readonly string[];

/**
 * A question word where a question starts: the query's first word (after at most one preposition:
 * "In which city …", "For how long …") or the first word after a comma, colon or semicolon
 * ("According to John, who …"). A "when" or "where" inside a keyword query ("throw Error when")
 * asks for nothing.
 */
const WH = /(?:^[^a-z0-9]*(?:(?:in|for|after|since|by|from|to|at|on|of|with)[ \t\n\r\f\v]+)?|[,;:][ \t\n\r\f\v]*)(?:what|which|when|where|who|whom|whose|why|how)\b/i;

const QUESTION_WORDS = new Set(['what', 'which', 'when', 'where', 'who', 'whom', 'whose', 'why', 'how']);

let forms: { words: string[]; kinds: string[] }[] | undefined;

/** The question forms, longest first ("how long ago" before "how long"). */
function questionForms(): { words: string[]; kinds: string[] }[] {
  if (forms) return forms;
  forms = ANSWER_QUESTIONS.map((f) => {
    const [form, kinds] = f.split(':');
    return { words: form.trim().split(' '), kinds: kinds.trim().split(' ') };
  }).sort((a, b) => b.words.length - a.words.length);
  return forms;
}

/**
 * The kinds of answer `question` asks for, from the question word that starts it and the words
 * after it ("When did …", "In which city …", "How many …"), or undefined (what, why, how, yes/no
 * questions, keyword queries).
 */
export function answerTypeOf(question: string): AnswerType | undefined {
  const m = WH.exec(question);
  if (!m) return undefined;
  const words = question.slice(m.index).toLowerCase().split(/[^a-z]+/).filter(Boolean);
  while (words.length && !QUESTION_WORDS.has(words[0])) words.shift(); // the preposition before it
  for (const f of questionForms()) {
    if (f.words.every((w, i) => words[i] === w)) return f.kinds;
  }
  return undefined;
}

/** What a space in a cue matches: whitespace as Python's ASCII `\s` has it (JavaScript's `\s` has more). */
const CUE_SPACE = '[ \\t\\n\\r\\f\\v]+';

const cuePatterns = new Map<string, RegExp[]>();

/**
 * One kind's patterns: its `words` whole-word and case-insensitive (a space: CUE_SPACE), its
 * `cased` patterns as written (a proper name is told by its capital).
 */
function cuePatternsOf(kind: string): RegExp[] {
  let res = cuePatterns.get(kind);
  if (!res) {
    const cues = ANSWER_CUES[kind];
    res = [];
    if (cues?.words?.length) res.push(new RegExp(`\\b(?:${cues.words.map((c) => c.replace(/ /g, CUE_SPACE)).join('|')})\\b`, 'i'));
    if (cues?.cased?.length) res.push(new RegExp(cues.cased.join('|')));
    cuePatterns.set(kind, res);
  }
  return res;
}

/** True when `text` holds an expression of one of the kinds `type` (one of their cues). */
export function holdsAnswerType(text: string, type: AnswerType): boolean {
  return type.some((kind) => cuePatternsOf(kind).some((re) => re.test(text)));
}
