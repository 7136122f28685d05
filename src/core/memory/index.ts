/** The host side of `ms` (docs/MEMORY-PROTOCOL.md): one MemoryHost per kernel session, its transports, read-only SQL. */
export { MemoryHost, replyFor, MAX_RANGE_EVENTS, type MemoryHostOptions, type WireEvent } from './memoryHost';
export { MemoryCallError, ReadOnlySql, type MemoryErrorType, type ReadOnlySqlOptions, type SqlResult } from './readOnlySql';
export { MemoryChannel, MAX_CALL_LINE_CHARS } from './memoryChannel';
