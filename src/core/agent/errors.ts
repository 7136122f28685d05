/** Errors of the agent loop and its model clients. Messages are meant to be shown as is. */
import { CancelledError, ScrollError } from '../errors';

/** The model endpoint failed: HTTP error, bad stream, unreachable server. */
export class ModelError extends ScrollError {
  constructor(message: string, code = 'MODEL_ERROR', options?: { cause?: unknown }) {
    super(message, code, options);
  }
}

/** The endpoint answered with an HTTP error status. `body` is the (truncated) response text. */
export class ModelHttpError extends ModelError {
  constructor(
    message: string,
    readonly status: number,
    readonly body: string,
  ) {
    super(message, 'MODEL_HTTP_ERROR');
  }
}

/** No response (or no next chunk of a streamed response) within the timeout. */
export class ModelTimeoutError extends ModelError {
  constructor(message: string, readonly timeoutMs: number) {
    super(message, 'MODEL_TIMEOUT');
  }
}

/** The response could not be understood (not SSE, bad JSON, an error event inside the stream). */
export class ModelProtocolError extends ModelError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, 'MODEL_PROTOCOL_ERROR', options);
  }
}

/** The pinned part of the view (system prompt, tools, current request) does not fit the budget. */
export class ViewBudgetError extends ScrollError {
  constructor(message: string) {
    super(message, 'VIEW_BUDGET');
  }
}


export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new CancelledError();
}
