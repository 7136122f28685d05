/**
 * Core messages name the CLI's repair (`scroll reindex`, e.g. when a search met a damaged index);
 * the editor names its own command instead. Pure (no `vscode`), for the panel's request handler.
 */
export const REBUILD_INDEX_TITLE = 'Rebuild Search Index';

export function forEditor(message: string): string {
  return message.replace(/`scroll reindex`/g, `the command "Scroll: ${REBUILD_INDEX_TITLE}"`);
}
