/**
 * A client for an OpenAI-compatible `POST /v1/embeddings` endpoint (Ollama, llama.cpp's server,
 * vLLM, LM Studio, OpenAI): texts in, one unit-length vector per text out. Used only by the opt-in
 * hybrid search (hybrid.ts); the endpoint sees every text sent to it, which is the whole (redacted)
 * history once the vectors are filled. Written on the global fetch: one JSON request and reply,
 * validated here (see docs/ARCHITECTURE.md, "Hybrid search", for why not a library).
 */
import { ScrollError } from '../errors';

export interface EmbeddingClientOptions {
  /** Base URL such as `http://127.0.0.1:11434/v1`, or the full `…/embeddings` URL. */
  endpoint: string;
  /** The model name the server knows (`nomic-embed-text`, `bge-m3`, …); vectors are stored under it. */
  model: string;
  /** Sent as a Bearer token when set. Hosts read it from their secret store or an environment variable. */
  apiKey?: string;
  /** Time for one request, ms (default 30 s); a query embedding gets its own, shorter deadline from its caller. */
  timeoutMs?: number;
  /** Longest text sent, in characters (default 4,000): embedding models read a few hundred tokens at most. */
  maxInputChars?: number;
  /** Injected for tests or proxies; defaults to the global fetch. */
  fetch?: typeof fetch;
}

/** The endpoint is unreachable, slow, refused the request or answered something that is not embeddings. */
export class EmbeddingError extends ScrollError {
  constructor(message: string, code = 'EMBEDDING_ERROR') {
    super(message, code);
  }
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_INPUT_CHARS = 4_000;
const ERROR_BODY_MAX = 300;

/** The URL of the embeddings call for a configured endpoint (a base URL or the full one). */
export function embeddingsUrl(endpoint: string): string {
  let parsed: URL;
  try {
    parsed = new URL(endpoint);
  } catch {
    throw new EmbeddingError(`embeddings endpoint ${JSON.stringify(endpoint)} is not a valid URL (e.g. http://127.0.0.1:11434/v1)`, 'EMBEDDING_CONFIG');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new EmbeddingError(`embeddings endpoint ${endpoint} must be http:// or https://`, 'EMBEDDING_CONFIG');
  }
  const base = endpoint.replace(/\/+$/, '');
  return /\/embeddings$/.test(base) ? base : `${base}/embeddings`;
}

export class EmbeddingClient {
  readonly url: string;
  readonly model: string;
  private readonly apiKey?: string;
  private readonly timeoutMs: number;
  private readonly maxInputChars: number;
  private readonly fetchImpl: typeof fetch;

  constructor(opts: EmbeddingClientOptions) {
    if (!opts.model || !opts.model.trim()) throw new EmbeddingError('embeddings: a model name is required (e.g. nomic-embed-text)', 'EMBEDDING_CONFIG');
    this.url = embeddingsUrl(opts.endpoint);
    this.model = opts.model.trim();
    this.apiKey = opts.apiKey || undefined;
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxInputChars = Math.max(1, opts.maxInputChars ?? DEFAULT_MAX_INPUT_CHARS);
    this.fetchImpl = opts.fetch ?? fetch;
  }

  /** The text as it is sent: cut to `maxInputChars` at a character boundary, never empty. */
  inputOf(text: string): string {
    let t = text.length > this.maxInputChars ? text.slice(0, this.maxInputChars) : text;
    if (/[\uD800-\uDBFF]$/.test(t)) t = t.slice(0, -1);
    return t.trim() ? t : ' ';
  }

  /** One vector per text, in order, each scaled to unit length. */
  async embed(texts: readonly string[], opts: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    let res: Response;
    let body: string;
    try {
      res = await this.fetchImpl(this.url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: this.model, input: texts.map((t) => this.inputOf(t)), encoding_format: 'float' }),
        signal,
      });
      body = await res.text();
    } catch (e) {
      if (opts.signal?.aborted) throw new EmbeddingError('embeddings: cancelled', 'EMBEDDING_CANCELLED');
      if (timeout.aborted) throw new EmbeddingError(`embeddings endpoint ${this.url} did not answer within ${timeoutMs} ms`, 'EMBEDDING_TIMEOUT');
      throw new EmbeddingError(`embeddings endpoint ${this.url} could not be reached: ${causeOf(e)}`, 'EMBEDDING_UNREACHABLE');
    }
    if (!res.ok) {
      throw new EmbeddingError(`embeddings endpoint ${this.url} answered HTTP ${res.status}: ${body.slice(0, ERROR_BODY_MAX).replace(/\s+/g, ' ').trim()}`, 'EMBEDDING_HTTP');
    }
    return this.parse(body, texts.length);
  }

  private parse(body: string, expected: number): Float32Array[] {
    const bad = (why: string) => new EmbeddingError(`embeddings endpoint ${this.url} answered something that is not embeddings: ${why}`, 'EMBEDDING_PROTOCOL');
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw bad('not JSON');
    }
    const data = (json as { data?: unknown })?.data;
    if (!Array.isArray(data)) throw bad('no "data" list');
    if (data.length !== expected) throw bad(`${data.length} vectors for ${expected} texts`);
    const out: Float32Array[] = new Array(expected);
    let dims = -1;
    data.forEach((item: { index?: unknown; embedding?: unknown }, i) => {
      const at = typeof item?.index === 'number' ? item.index : i;
      if (!Number.isInteger(at) || at < 0 || at >= expected || out[at]) throw bad(`index ${String(item?.index)}`);
      const e = item?.embedding;
      if (!Array.isArray(e) || e.length === 0) throw bad(`"embedding" of item ${at} is not a list of numbers (was encoding_format float honoured?)`);
      if (dims >= 0 && e.length !== dims) throw bad(`vectors of ${dims} and ${e.length} dimensions`);
      dims = e.length;
      out[at] = unitVector(e, () => bad(`item ${at} holds a value that is not a finite number, or is all zeros`));
    });
    return out;
  }
}

/** The vector scaled to length 1 (cosine similarity is then a dot product). */
export function unitVector(values: ArrayLike<unknown>, onBad: () => Error): Float32Array {
  const v = new Float32Array(values.length);
  let sum = 0;
  for (let i = 0; i < values.length; i++) {
    const x = values[i];
    if (typeof x !== 'number' || !Number.isFinite(x)) throw onBad();
    v[i] = x;
    sum += x * x;
  }
  if (!(sum > 0)) throw onBad();
  const inv = 1 / Math.sqrt(sum);
  for (let i = 0; i < v.length; i++) v[i] *= inv;
  return v;
}

function causeOf(e: unknown): string {
  const cause = (e as { cause?: { code?: string; message?: string } })?.cause;
  if (cause?.code) return cause.code;
  if (cause?.message) return cause.message;
  return e instanceof Error ? e.message : String(e);
}
