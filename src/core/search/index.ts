/** Search: index side (`buildIndexDocument`) and query side (`searchEvents`, `countMatches`, `snippetsFor`). See search.ts. */
export { buildIndexDocument, compoundParts, type IndexDocument } from './indexText';
export { searchEvents, countMatches, snippetsFor, BM25_WEIGHTS, BROADEN_BELOW, COMMON_SHARE, type SearchDatabase } from './search';
export { parseQuery, MAX_TERMS, MAX_QUERY_CHARS, type ParsedQuery, type QueryTerm } from './query';
export { makeSnippet, snippetPrefixes, SNIPPET_CHARS } from './snippet';
export { porterStem } from './porter';
export { STOP_WORDS, fold, stemKey, identifierParts, isCompound } from './tokens';
