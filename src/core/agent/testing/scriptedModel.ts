/**
 * TEST DOUBLE. A ModelClient that plays back a script instead of calling a model, and records
 * every request it received so tests can assert what the model would have seen. Used by the agent
 * loop's tests and by the editor adapter's tests; never by product code.
 */
import { estimateTokens } from '../../types';
import type { ChatMessage, ModelChunk, ModelClient, ModelRequestOptions, ToolCall, ToolDefinition } from '../model';

export interface ScriptedTurn {
  /** Answer text (streamed in `chunkSize` pieces). */
  text?: string;
  /** Tool calls to make; ids default to `call_<request>_<i>`. */
  toolCalls?: Array<{ name: string; input?: Record<string, unknown>; id?: string; inputError?: string }>;
  /** Throw this instead of answering (after streaming `text`, if any). */
  error?: Error;
  usage?: { inputTokens?: number; outputTokens?: number };
}

export interface ScriptedRequest {
  /** 0-based number of this request among all requests the client received. */
  index: number;
  messages: ChatMessage[];
  tools: ToolDefinition[];
  opts: ModelRequestOptions;
}

export type ScriptStep = ScriptedTurn | ((req: ScriptedRequest) => ScriptedTurn);

export interface ScriptedModelOptions {
  id?: string;
  maxInputTokens?: number;
  /** Characters per streamed text chunk (default: whole text at once). */
  chunkSize?: number;
  /**
   * Answers side requests made with `json: true` (eviction titles). Default: no answer, the
   * request fails and the caller falls back — pass a function to script titles.
   */
  onJson?: (req: ScriptedRequest) => string;
  /** Keep only the last N requests in `requests` (long sessions). Default: all. */
  keepRequests?: number;
}

export class ScriptedModelClient implements ModelClient {
  readonly id: string;
  readonly maxInputTokens: number;
  readonly requests: ScriptedRequest[] = [];
  /** Number of main (non-JSON) requests served. */
  turns = 0;
  jsonRequests = 0;
  private readonly queue: ScriptStep[];
  private count = 0;

  constructor(
    script: ScriptStep[] | ((req: ScriptedRequest) => ScriptedTurn),
    private readonly opts: ScriptedModelOptions = {},
  ) {
    this.queue = typeof script === 'function' ? [] : [...script];
    this.generator = typeof script === 'function' ? script : null;
    this.id = opts.id ?? 'scripted';
    this.maxInputTokens = opts.maxInputTokens ?? 8_000;
  }

  private readonly generator: ((req: ScriptedRequest) => ScriptedTurn) | null;

  /** Appends more turns to a list script. */
  push(...steps: ScriptStep[]): void {
    this.queue.push(...steps);
  }

  get remaining(): number {
    return this.queue.length;
  }

  async countTokens(text: string): Promise<number> {
    return estimateTokens(text);
  }

  async *send(messages: ChatMessage[], tools: ToolDefinition[], opts: ModelRequestOptions = {}): AsyncIterable<ModelChunk> {
    // The loop renders fresh message arrays per call; keeping the reference is safe and cheap.
    const req: ScriptedRequest = { index: this.count++, messages, tools, opts };
    this.requests.push(req);
    if (this.opts.keepRequests && this.requests.length > this.opts.keepRequests) this.requests.shift();
    if (opts.signal?.aborted) throw new Error('scripted model: request was cancelled');

    if (opts.json) {
      this.jsonRequests++;
      if (!this.opts.onJson) throw new Error('scripted model: no JSON side-request answer scripted');
      yield { type: 'text', text: this.opts.onJson(req) };
      return;
    }

    this.turns++;
    let turn: ScriptedTurn;
    if (this.generator) turn = this.generator(req);
    else {
      const step = this.queue.shift();
      if (!step) throw new Error(`scripted model: script exhausted at request ${req.index}`);
      turn = typeof step === 'function' ? step(req) : step;
    }
    if (turn.text) {
      const size = this.opts.chunkSize && this.opts.chunkSize > 0 ? this.opts.chunkSize : turn.text.length;
      for (let i = 0; i < turn.text.length; i += size) yield { type: 'text', text: turn.text.slice(i, i + size) };
    }
    if (turn.error) throw turn.error;
    const calls: ToolCall[] = [];
    (turn.toolCalls ?? []).forEach((c, i) => {
      const call: ToolCall = { id: c.id ?? `call_${req.index}_${i}`, name: c.name, input: c.input ?? {} };
      if (c.inputError) call.inputError = c.inputError;
      calls.push(call);
    });
    for (const call of calls) yield { type: 'tool_call', call };
    if (turn.usage) yield { type: 'usage', ...turn.usage };
  }
}

/** Everything a request showed the model, as one string (for "did the fact reach the model" checks). */
export function requestText(req: ScriptedRequest): string {
  return req.messages
    .map((m) => {
      if (m.role === 'assistant') return `${m.content}\n${(m.toolCalls ?? []).map((c) => JSON.stringify(c.input)).join('\n')}`;
      return m.content;
    })
    .join('\n');
}

/** Estimated tokens of a request, counted independently of the working view's own measure. */
export function requestTokens(req: ScriptedRequest): number {
  return estimateTokens(requestText(req));
}
