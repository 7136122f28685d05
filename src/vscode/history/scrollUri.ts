/**
 * The `scroll:` URI space, for the editor's documents. One implementation, in `src/shared/scrollUri.ts`
 * (the panel's host builds the same addresses with it); this module only re-exports it.
 */
export { SCROLL_SCHEME, scrollPath, scrollUriString, parseScrollPath, type ScrollTarget } from '../../shared/scrollUri';
