/** The Scroll core in one import (no `vscode` anywhere below this folder). */
export * from './types';
export * from './errors';
export { openDatabase, isBusyError, isCorruptionError, type Database, type Statement, type DriverChoice, type DriverName } from './db';
export { EventLog, type EventLogOptions } from './log/eventLog';
export { PREVIEW_CHARS } from './log/eventPreparer';
export { verifyLog, tableProblems, type LogVerification } from './log/verify';
export { PayloadStore, sha256Hex } from './log/payloadStore';
export { Redactor, BUILTIN_RULES, type RedactionOptions, type RedactionRule } from './log/redaction';
export { SCHEMA_VERSION, MIGRATIONS, FTS_COLUMNS } from './log/schema';
