/**
 * The search rules' numbers and stop words, from the one data file both implementations load:
 * `kernel/search_constants.json` (it ships in `kernel/`, beside `scroll_search.py`, the Python port
 * for standalone readers). esbuild inlines the JSON into the bundles and tsc copies it to
 * `out/kernel/`, so nothing looks for the file at run time here. What each value means: the file's
 * `$comment`. Change values there, never in code.
 */
import rules from '../../../kernel/search_constants.json';

/** bm25 column weights, in FTS_COLUMNS order: body (prose), code, parts, headline. */
export const BM25_WEIGHTS: readonly number[] = Object.freeze([...rules.BM25_WEIGHTS]);
/** Broaden when the precise query finds fewer than min(k, BROADEN_BELOW) hits. */
export const BROADEN_BELOW: number = rules.BROADEN_BELOW;
/** A word in more than this share of events is pruned (it selects nothing). */
export const COMMON_SHARE: number = rules.COMMON_SHARE;
/**
 * Context: an event next to a strong match is often where the answer is (the tool result after
 * the matching call, the reply after the matching question). Each event's score adds these shares
 * of its best-scoring neighbour's score, 1 and 2 events away in the same session.
 */
export const CONTEXT_NEAR: number = rules.CONTEXT_NEAR;
export const CONTEXT_FAR: number = rules.CONTEXT_FAR;
/**
 * Session-then-turn: an event adds this share of the best candidate's score in its sitting (the
 * same session on the same day of ts, at most SITTING_WINDOW seqs away), so the turns of the
 * sitting that matches best rank above a lone match elsewhere. The window keeps a day-long session,
 * or a history imported without its own dates (every event one day), from being one sitting.
 */
export const SEGMENT_SHARE: number = rules.SEGMENT_SHARE;
export const SITTING_WINDOW: number = rules.SITTING_WINDOW;
/** An event on a day the query names ("on 24 October 2023", "in March 2023") adds this share of the best score. */
export const DATE_SHARE: number = rules.DATE_SHARE;
/** Matches fetched for context re-ranking (the head of the list; fixed, so paging is stable). */
export const MIN_CANDIDATES: number = rules.MIN_CANDIDATES;
/** Best candidates whose neighbourhood is ranked into the head. */
export const CONTEXT_OF: number = rules.CONTEXT_OF;
export const DEFAULT_K: number = rules.DEFAULT_K;
export const MAX_K: number = rules.MAX_K;
export const MAX_OFFSET: number = rules.MAX_OFFSET;
export const MAX_TERMS: number = rules.MAX_TERMS;
/** Longer queries are cut here before parsing (a 10 KB paste is still searched by its start). */
export const MAX_QUERY_CHARS: number = rules.MAX_QUERY_CHARS;
/** Snippet window, in characters (about 64 tokens). */
export const SNIPPET_CHARS: number = rules.SNIPPET_CHARS;
/** Context kept before the first match of the window. */
export const LEAD_CHARS: number = rules.LEAD_CHARS;
/** Only the first matches are tried as window starts (long outputs can match thousands of times). */
export const MAX_WINDOW_STARTS: number = rules.MAX_WINDOW_STARTS;
/** A word cut by the window end is completed up to this many characters. */
export const MAX_WORD_EXTENSION: number = rules.MAX_WORD_EXTENSION;
/** Code point ranges of Han, kana and Hangul (scripts written without spaces between words). */
export const CJK_RANGES: readonly (readonly [number, number])[] = Object.freeze(
  rules.CJK_RANGES.map((r) => Object.freeze(r.split('-').map((x) => parseInt(x, 16)) as [number, number])),
);
/** A query run of CJK characters up to this long is one phrase of its bigrams; longer ones are split. */
export const CJK_PHRASE_MAX: number = rules.CJK_PHRASE_MAX;
/**
 * Version of the index text (tokenizer rules and derived columns). Kept in scroll_meta as
 * `index_version`; a log indexed by another version is reindexed when opened for writing.
 */
export const INDEX_VERSION: number = rules.INDEX_VERSION;
/**
 * English stop words: function words that carry no topic. Pruned from queries (never from the
 * index, so phrases still match).
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(rules.STOP_WORDS);
/**
 * English irregular inflections (each entry: the forms of one verb or noun, space-separated), which
 * the Porter stemmer does not conflate: a query word of a group also matches the group's other forms.
 */
export const IRREGULAR_FORMS: readonly string[] = Object.freeze([...rules.IRREGULAR_FORMS]);
/**
 * Answer-type matching (answerType.ts): a ranked event that holds an expression of the kind the
 * question asks for ("when" → a time, "how many" → a number) is lifted by this share.
 */
export const ANSWER_TYPE_SHARE: number = rules.ANSWER_TYPE_SHARE;
/** Question forms ("how many: number"), read from the question word that starts a question. */
export const ANSWER_QUESTIONS: readonly string[] = Object.freeze([...rules.ANSWER_QUESTIONS]);
/** Each kind's cues: words, phrases and small ASCII patterns, matched whole-word, case-insensitively. */
export const ANSWER_CUES: Readonly<Record<string, { words?: readonly string[]; cased?: readonly string[] }>> = Object.freeze({ ...(rules.ANSWER_CUES as Record<string, { words?: string[]; cased?: string[] }>) });
/** Words of the first person singular ("i'm" with an ASCII apostrophe): a query holding one asks about the user. */
export const FIRST_PERSON: ReadonlySet<string> = new Set(rules.FIRST_PERSON);
/** Words of the second person: a query holding one (outside a request) asks about the assistant too. */
export const SECOND_PERSON: ReadonlySet<string> = new Set(rules.SECOND_PERSON);
/** Words that make "… you" a request ("can you", "could you"), not a question about the assistant. */
export const REQUEST_WORDS: ReadonlySet<string> = new Set(rules.REQUEST_WORDS);
/** Share by which a query about the user lifts the user's messages among the ranked events. */
export const SELF_SHARE: number = rules.SELF_SHARE;
/** Share by which a candidate whose adjacent query terms stand close together is lifted (proximity.ts). */
export const PROXIMITY_SHARE: number = rules.PROXIMITY_SHARE;
/** How close, in characters between the starts of two matched words, counts as together. */
export const PROXIMITY_WINDOW: number = rules.PROXIMITY_WINDOW;
