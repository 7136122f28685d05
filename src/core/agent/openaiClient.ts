/**
 * A ModelClient for any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, llama.cpp,
 * Ollama, LM Studio...): HTTP + server-sent events, tool calls assembled from streamed fragments,
 * usage when the server reports it. The API key comes from an environment variable, never a flag.
 */
import { estimateTokens } from '../types';
import { CancelledError } from '../errors';
import { ModelError, ModelHttpError, ModelProtocolError, ModelTimeoutError } from './errors';
import type { ChatMessage, ModelChunk, ModelClient, ModelRequestOptions, ToolCall, ToolDefinition } from './model';

export interface OpenAICompatibleOptions {
  /** Base URL such as `http://127.0.0.1:8000/v1`, or the full `.../chat/completions` URL. */
  baseUrl: string;
  model: string;
  /** Name of the environment variable holding the API key (sent as a Bearer token). */
  apiKeyEnv?: string;
  /** The key itself, for hosts that keep it in their own secret storage. Wins over `apiKeyEnv`. */
  apiKey?: string;
  /** Environment to read `apiKeyEnv` from (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** The model's input limit in tokens (default 128k); the working-view budget derives from it. */
  maxInputTokens?: number;
  /** Time to wait for the response headers, ms (default 120 s). */
  timeoutMs?: number;
  /** Longest silence between two chunks of a streamed answer, ms (default 120 s). */
  idleTimeoutMs?: number;
  /** Retries on 429/5xx/network errors before anything was streamed (default 2). */
  retries?: number;
  /** First retry delay, doubled each time (default 500 ms); `Retry-After` wins when smaller than 30 s. */
  retryBaseMs?: number;
  temperature?: number;
  headers?: Record<string, string>;
  /** Injected for tests or proxies; defaults to the global fetch. */
  fetch?: typeof fetch;
}

const DEFAULT_MAX_INPUT_TOKENS = 128_000;
const RETRY_STATUSES = new Set([408, 409, 429, 500, 502, 503, 504]);
const ERROR_BODY_MAX = 2_000;

export class OpenAICompatibleClient implements ModelClient {
  readonly id: string;
  readonly maxInputTokens: number;
  readonly url: string;
  private readonly apiKey: string | undefined;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly opts: OpenAICompatibleOptions) {
    if (!opts.baseUrl) throw new ModelError('OpenAI-compatible client: a model URL is required (e.g. http://127.0.0.1:8000/v1)', 'MODEL_CONFIG');
    if (!opts.model) throw new ModelError('OpenAI-compatible client: a model name is required', 'MODEL_CONFIG');
    let parsed: URL;
    try {
      parsed = new URL(opts.baseUrl);
    } catch {
      throw new ModelError(`model URL ${JSON.stringify(opts.baseUrl)} is not a valid URL`, 'MODEL_CONFIG');
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new ModelError(`model URL ${opts.baseUrl} must be http:// or https://`, 'MODEL_CONFIG');
    }
    const base = opts.baseUrl.replace(/\/+$/, '');
    this.url = /\/chat\/completions$/.test(base) ? base : `${base}/chat/completions`;
    this.id = opts.model;
    this.maxInputTokens = opts.maxInputTokens ?? DEFAULT_MAX_INPUT_TOKENS;
    if (!Number.isFinite(this.maxInputTokens) || this.maxInputTokens <= 0) {
      throw new ModelError(`maxInputTokens must be a positive number (got ${opts.maxInputTokens})`, 'MODEL_CONFIG');
    }
    if (opts.apiKey) this.apiKey = opts.apiKey;
    else if (opts.apiKeyEnv) {
      const v = (opts.env ?? process.env)[opts.apiKeyEnv];
      if (!v) {
        throw new ModelError(
          `environment variable ${opts.apiKeyEnv} is not set; it should hold the API key for ${this.url}`,
          'MODEL_CONFIG',
        );
      }
      this.apiKey = v;
    }
    this.fetchImpl = opts.fetch ?? fetch;
  }

  async countTokens(text: string): Promise<number> {
    return estimateTokens(text);
  }

  async *send(messages: ChatMessage[], tools: ToolDefinition[], opts: ModelRequestOptions = {}): AsyncIterable<ModelChunk> {
    const body: Record<string, unknown> = {
      model: this.opts.model,
      messages: messages.map(toWireMessage),
      stream: true,
      stream_options: { include_usage: true },
    };
    if (tools.length) {
      body.tools = tools.map((t) => ({
        type: 'function',
        function: { name: t.name, description: t.description, parameters: t.inputSchema },
      }));
      // No tool_choice: "auto" is the default with tools, and some servers refuse it spelled out.
    }
    if (opts.json) body.response_format = { type: 'json_object' };
    if (opts.maxOutputTokens) body.max_tokens = opts.maxOutputTokens;
    if (this.opts.temperature !== undefined) body.temperature = this.opts.temperature;

    let posted: Awaited<ReturnType<OpenAICompatibleClient['post']>>;
    try {
      posted = await this.post(JSON.stringify(body), opts.signal);
    } catch (e) {
      // Older servers reject the usage option of streaming; usage is optional, so ask without it.
      if (!(e instanceof ModelHttpError && e.status === 400 && /stream_options/.test(e.body))) throw e;
      delete body.stream_options;
      posted = await this.post(JSON.stringify(body), opts.signal);
    }
    const { response, controller, timers } = posted;
    try {
      const type = response.headers.get('content-type') ?? '';
      if (type.includes('text/event-stream')) {
        yield* this.readStream(response, controller, timers, opts.signal);
      } else {
        // Some servers ignore `stream: true`; accept a whole completion too.
        const text = await this.readAll(response, controller, timers, opts.signal);
        yield* completionChunks(parseJson(text, 'completion'));
      }
    } finally {
      timers.clear();
      controller.abort();
    }
  }

  /** POST with retries; returns once response headers of a 2xx answer are in. */
  private async post(
    body: string,
    signal: AbortSignal | undefined,
  ): Promise<{ response: Response; controller: AbortController; timers: Timers }> {
    const retries = this.opts.retries ?? 2;
    const timeoutMs = this.opts.timeoutMs ?? 120_000;
    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted) throw new CancelledError();
      const controller = new AbortController();
      const timers = new Timers(controller, signal);
      timers.arm(timeoutMs, () => new ModelTimeoutError(`no response from ${this.url} within ${timeoutMs} ms`, timeoutMs));
      let response: Response;
      try {
        response = await this.fetchImpl(this.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'text/event-stream, application/json',
            ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}),
            ...this.opts.headers,
          },
          body,
          signal: controller.signal,
        });
      } catch (e) {
        timers.clear();
        const reason = timers.reason(e);
        if (reason instanceof CancelledError) throw reason;
        const err =
          reason instanceof ModelError
            ? reason
            : new ModelError(`could not reach the model endpoint ${this.url}: ${causeText(e)}`, 'MODEL_UNREACHABLE', { cause: e });
        if (attempt < retries && !(err instanceof ModelTimeoutError)) {
          await delay(this.backoff(attempt, null), signal);
          continue;
        }
        throw err;
      }
      if (response.ok) return { response, controller, timers };

      const text = await response.text().catch(() => '');
      timers.clear();
      if (attempt < retries && RETRY_STATUSES.has(response.status)) {
        await delay(this.backoff(attempt, response.headers.get('retry-after')), signal);
        continue;
      }
      throw this.httpError(response, text);
    }
  }

  private httpError(response: Response, text: string): ModelHttpError {
    let detail = text.slice(0, ERROR_BODY_MAX);
    try {
      const j = JSON.parse(text);
      const m = j?.error?.message ?? j?.message ?? j?.detail;
      if (typeof m === 'string' && m) detail = m;
    } catch {
      /* not JSON: keep the text */
    }
    let hint = '';
    if (response.status === 401 || response.status === 403) {
      hint = this.opts.apiKeyEnv ? ` (check the API key in $${this.opts.apiKeyEnv})` : ' (the server wants an API key: pass --api-key-env VAR)';
    } else if (response.status === 404) {
      hint = ` (check the model URL — it should be the base ending in /v1 — and the model name ${JSON.stringify(this.opts.model)})`;
    }
    const statusText = response.statusText ? ` ${response.statusText}` : '';
    return new ModelHttpError(
      `model endpoint ${this.url} answered HTTP ${response.status}${statusText}: ${detail || '(empty body)'}${hint}`,
      response.status,
      text.slice(0, ERROR_BODY_MAX),
    );
  }

  private backoff(attempt: number, retryAfter: string | null): number {
    const base = (this.opts.retryBaseMs ?? 500) * 2 ** attempt;
    const seconds = retryAfter ? Number(retryAfter) : NaN;
    if (Number.isFinite(seconds) && seconds >= 0 && seconds <= 30) return seconds * 1000;
    return base;
  }

  private async *readStream(
    response: Response,
    controller: AbortController,
    timers: Timers,
    signal: AbortSignal | undefined,
  ): AsyncIterable<ModelChunk> {
    if (!response.body) throw new ModelProtocolError(`model endpoint ${this.url} sent an empty stream`);
    const idleMs = this.opts.idleTimeoutMs ?? 120_000;
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const parser = new SseParser();
    const acc = new CompletionAccumulator();
    let done = false;
    try {
      while (!done) {
        timers.arm(idleMs, () => new ModelTimeoutError(`the model stream from ${this.url} stalled for ${idleMs} ms`, idleMs));
        let r: Awaited<ReturnType<typeof reader.read>>;
        try {
          r = await reader.read();
        } catch (e) {
          throw timers.reason(e) ?? new ModelError(`the model stream from ${this.url} broke: ${causeText(e)}`, 'MODEL_STREAM', { cause: e });
        }
        const events = r.done ? parser.end(decoder.decode()) : parser.push(decoder.decode(r.value, { stream: true }));
        for (const data of events) {
          if (data.trim() === '[DONE]') {
            done = true;
            break;
          }
          for (const chunk of acc.push(parseJson(data, 'stream event'))) yield chunk;
        }
        if (r.done) break;
      }
    } finally {
      timers.clear();
      if (signal?.aborted || !done) controller.abort();
      reader.releaseLock();
    }
    if (signal?.aborted) throw new CancelledError();
    yield* acc.finish();
  }

  private async readAll(response: Response, _c: AbortController, timers: Timers, signal: AbortSignal | undefined): Promise<string> {
    const idleMs = this.opts.idleTimeoutMs ?? 120_000;
    timers.arm(idleMs, () => new ModelTimeoutError(`the model response from ${this.url} stalled for ${idleMs} ms`, idleMs));
    try {
      return await response.text();
    } catch (e) {
      if (signal?.aborted) throw new CancelledError();
      throw timers.reason(e) ?? new ModelError(`reading the response from ${this.url} failed: ${causeText(e)}`, 'MODEL_STREAM', { cause: e });
    }
  }
}

/** Chat message in the OpenAI wire format. */
export function toWireMessage(m: ChatMessage): Record<string, unknown> {
  switch (m.role) {
    case 'system':
    case 'user':
      return { role: m.role, content: m.content };
    case 'assistant': {
      const out: Record<string, unknown> = { role: 'assistant', content: m.content || (m.toolCalls?.length ? null : '') };
      if (m.toolCalls?.length) {
        out.tool_calls = m.toolCalls.map((c) => ({
          id: c.id,
          type: 'function',
          function: { name: c.name, arguments: JSON.stringify(c.input) },
        }));
      }
      return out;
    }
    case 'tool':
      return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
  }
}

/**
 * Incremental server-sent-events parser: feed text, get the `data` of each complete event.
 * Comments (`:`), `event:`/`id:`/`retry:` fields are ignored; multi-line data is joined with `\n`.
 */
export class SseParser {
  private buffer = '';
  private data: string[] = [];

  push(text: string): string[] {
    this.buffer += text;
    const out: string[] = [];
    let nl: number;
    while ((nl = this.buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = this.buffer.slice(0, nl);
      const sepLen = this.buffer.startsWith('\r\n', nl) ? 2 : 1;
      // A lone trailing \r may be the first half of \r\n: wait for more text.
      if (this.buffer[nl] === '\r' && sepLen === 1 && nl === this.buffer.length - 1) break;
      this.buffer = this.buffer.slice(nl + sepLen);
      this.line(line, out);
    }
    return out;
  }

  end(text = ''): string[] {
    const out = this.push(text);
    if (this.buffer) {
      this.line(this.buffer, out);
      this.buffer = '';
    }
    this.line('', out);
    return out;
  }

  private line(line: string, out: string[]): void {
    if (line === '') {
      if (this.data.length) out.push(this.data.join('\n'));
      this.data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
  }
}

interface PartialCall {
  id: string;
  name: string;
  args: string;
}

/** Assembles streamed chat-completion chunks: text as it comes, tool calls and usage at the end. */
export class CompletionAccumulator {
  private readonly calls = new Map<number, PartialCall>();
  private usage: { inputTokens?: number; outputTokens?: number } | null = null;

  *push(chunk: any): Iterable<ModelChunk> {
    if (!chunk || typeof chunk !== 'object') throw new ModelProtocolError(`unexpected stream event: ${JSON.stringify(chunk)}`);
    if (chunk.error) {
      const m = typeof chunk.error === 'string' ? chunk.error : chunk.error.message ?? JSON.stringify(chunk.error);
      throw new ModelProtocolError(`the model endpoint reported an error mid-stream: ${m}`);
    }
    for (const choice of Array.isArray(chunk.choices) ? chunk.choices : []) {
      const delta = choice?.delta ?? choice?.message ?? {};
      if (typeof delta.content === 'string' && delta.content) yield { type: 'text', text: delta.content };
      const calls = Array.isArray(delta.tool_calls) ? delta.tool_calls : [];
      calls.forEach((tc: any, position: number) => {
        const index = typeof tc?.index === 'number' ? tc.index : position;
        let p = this.calls.get(index);
        if (!p) this.calls.set(index, (p = { id: '', name: '', args: '' }));
        if (typeof tc.id === 'string' && tc.id) p.id = tc.id;
        const fn = tc.function ?? {};
        // OpenAI sends the name once; some servers repeat it in every fragment.
        if (typeof fn.name === 'string' && fn.name && fn.name !== p.name) p.name += fn.name;
        if (typeof fn.arguments === 'string') p.args += fn.arguments;
        else if (fn.arguments && typeof fn.arguments === 'object') p.args += JSON.stringify(fn.arguments);
      });
    }
    if (chunk.usage && typeof chunk.usage === 'object') {
      this.usage = {
        inputTokens: numberOr(chunk.usage.prompt_tokens),
        outputTokens: numberOr(chunk.usage.completion_tokens),
      };
    }
  }

  *finish(): Iterable<ModelChunk> {
    const indices = [...this.calls.keys()].sort((a, b) => a - b);
    for (const i of indices) yield { type: 'tool_call', call: toToolCall(this.calls.get(i)!, i) };
    if (this.usage) yield { type: 'usage', ...this.usage };
  }
}

function toToolCall(p: PartialCall, index: number): ToolCall {
  const call: ToolCall = { id: p.id || `call_${index}`, name: p.name, input: {} };
  const raw = p.args.trim();
  if (!p.name) call.inputError = 'the tool call had no function name';
  if (raw) {
    try {
      const v = JSON.parse(raw);
      if (v && typeof v === 'object' && !Array.isArray(v)) call.input = v;
      else call.inputError = `arguments must be a JSON object, got ${JSON.stringify(v).slice(0, 200)}`;
    } catch (e) {
      call.inputError = `arguments are not valid JSON (${causeText(e)}): ${raw.slice(0, 200)}`;
    }
  }
  return call;
}

function* completionChunks(j: any): Iterable<ModelChunk> {
  const acc = new CompletionAccumulator();
  yield* acc.push(j);
  yield* acc.finish();
}

function parseJson(text: string, what: string): any {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ModelProtocolError(`the model endpoint sent a ${what} that is not JSON: ${text.slice(0, 200)}`, { cause: e });
  }
}

function numberOr(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function causeText(e: unknown): string {
  if (e instanceof Error) {
    const cause = (e as { cause?: unknown }).cause;
    return cause instanceof Error ? `${e.message} (${cause.message})` : e.message;
  }
  return String(e);
}

/** One abortable timer per request plus the caller's signal; remembers why the request was aborted. */
class Timers {
  private timer: NodeJS.Timeout | null = null;
  private why: Error | null = null;
  private readonly onAbort = () => {
    this.why = new CancelledError();
    this.controller.abort();
  };

  constructor(private readonly controller: AbortController, private readonly signal: AbortSignal | undefined) {
    signal?.addEventListener('abort', this.onAbort, { once: true });
    if (signal?.aborted) this.onAbort();
  }

  arm(ms: number, make: () => Error): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.why ??= make();
      this.controller.abort();
    }, ms);
  }

  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.signal?.removeEventListener('abort', this.onAbort);
  }

  /** The timeout/cancel error if the request was aborted by us, else null. */
  reason(_e: unknown): Error | null {
    return this.why;
  }
}

function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new CancelledError());
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new CancelledError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
