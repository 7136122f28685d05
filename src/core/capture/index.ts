/**
 * Capture: other agents' transcripts (Claude Code, Codex, …) imported into the event log, each
 * record once. The editor's watcher and `scroll import` both call `importFiles`.
 */
export * from './types';
export { importFiles, importStream, inScope, rebuildCaptureState, type ImportOptions, type ImportProblem, type ImportProgress, type ImportSummary } from './importer';
export { SOURCES, claudeProjectFolder, filesUnder } from './sources';
export { claudeCodeReader, readClaudeCodeRecord } from './claudeCode';
export { codexReader, readCodexRecord, codexSessionOf } from './codex';
