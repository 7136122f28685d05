/**
 * Capture: other agents' transcripts (Claude Code, Codex, Copilot Chat, Cline/Roo/Kilo, Gemini CLI) imported into the event log, each
 * record once. The editor's watcher and `scroll import` both call `importFiles`.
 */
export * from './types';
export { importFiles, importStream, inScope, rebuildCaptureState, type ImportOptions, type ImportProblem, type ImportProgress, type ImportSummary } from './importer';
export { SOURCES, claudeProjectFolder, filesUnder } from './sources';
export { claudeCodeReader, readClaudeCodeRecord } from './claudeCode';
export { codexReader, readCodexRecord, codexSessionOf } from './codex';
export { copilotChatReader, readCopilotChat } from './copilotChat';
export { CLINE_EXTENSION_IDS, clineReader, readClineTaskFile, type ClineFamilySource } from './cline';
export { geminiProjectHash, geminiReader, readGemini } from './gemini';
export { CLINE_SOURCES, COPILOT_CHAT_SOURCE, GEMINI_SOURCE, vscodeUserDataDirs, workspaceStorageFor } from './readerDiscovery';
