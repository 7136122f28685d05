/**
 * Errors the core raises on purpose. Every one carries a message a person can act on; callers
 * (CLI, editor adapters) show `message` as is. `code` is stable for programs.
 */
export class ScrollError extends Error {
  readonly code: string;
  constructor(message: string, code = 'SCROLL_ERROR', options?: { cause?: unknown }) {
    super(message, options as ErrorOptions);
    this.name = new.target.name;
    this.code = code;
  }
}

/** Bad input from a caller: malformed JSONL, unknown seq, bad argument. Nothing was written. */
export class InvalidInputError extends ScrollError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, 'INVALID_INPUT', options);
  }
}

/** A payload file is missing or its bytes do not match its sha256 handle. */
export class PayloadError extends ScrollError {
  readonly handle: string;
  constructor(message: string, handle: string, options?: { cause?: unknown }) {
    super(message, 'PAYLOAD_ERROR', options);
    this.handle = handle;
  }
}

/** The database could not be opened or used (driver missing, locked beyond retry, I/O). */
export class DatabaseError extends ScrollError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, 'DATABASE_ERROR', options);
  }
}

/** Someone asked a long operation to stop (a model turn, an index rebuild); what it says was kept or not. */
export class CancelledError extends ScrollError {
  constructor(message = 'cancelled') {
    super(message, 'CANCELLED');
  }
}

/** A write was attempted on a log opened read-only. */
export class ReadonlyLogError extends ScrollError {
  constructor(message = 'the event log was opened read-only') {
    super(message, 'READONLY');
  }
}

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
