/** Search: index side (`buildIndexDocument`) and query side (`searchEvents`, `countMatches`, `snippetsFor`). See search.ts. */
export { buildIndexDocument, compoundParts, type IndexDocument } from './indexText';
export { searchEvents, countMatches, snippetsFor, type SearchDatabase } from './search';
export { parseQuery, type ParsedQuery, type QueryTerm } from './query';
export { makeSnippet, snippetPrefixes } from './snippet';
export { BM25_WEIGHTS, BROADEN_BELOW, COMMON_SHARE, MAX_TERMS, MAX_QUERY_CHARS, SNIPPET_CHARS, STOP_WORDS } from './constants';
export { porterStem } from './porter';
export { fold, stemKey, identifierParts, isCompound } from './tokens';
