/**
 * TEST DOUBLE: a loopback OpenAI-compatible `/v1/embeddings` server with deterministic vectors.
 * A text's vector is the bag of its words, each word first mapped through the test's `concepts`
 * (so "automobile" and "car" can be made one concept) and hashed into DIMS dimensions; the model
 * name seeds the hash, so another model gives other vectors (and `dims` per model can differ).
 * It measures nothing about retrieval quality: it only makes fusion's behaviour checkable.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const DIMS = 256;

export class FakeEmbeddingServer {
  readonly server: Server;
  /** Every request body received, in order. */
  readonly requests: { model: string; input: string[]; authorization?: string }[] = [];
  /** 'ok', 'error' (HTTP 500), 'slow' (answers after `slowMs`), 'garbage' (not embeddings). */
  mode: 'ok' | 'error' | 'slow' | 'garbage' = 'ok';
  slowMs = 5_000;
  /** Word → concept: words of one concept get the same vector component. */
  concepts: Record<string, string> = {};
  /** Dimensions per model name (default DIMS). */
  dimsOf: Record<string, number> = {};
  private url = '';

  constructor() {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        if (req.method !== 'POST' || !req.url?.endsWith('/embeddings')) return void res.writeHead(404).end('not found');
        const body = JSON.parse(raw) as { model: string; input: string | string[] };
        const input = Array.isArray(body.input) ? body.input : [body.input];
        this.requests.push({ model: body.model, input, authorization: req.headers.authorization });
        const answer = () => {
          if (this.mode === 'error') return void res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"model not loaded"}');
          if (this.mode === 'garbage') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"list"}');
          const data = input.map((t, index) => ({ object: 'embedding', index, embedding: this.vectorOf(body.model, t) }));
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', model: body.model, data }));
        };
        if (this.mode === 'slow') setTimeout(answer, this.slowMs).unref();
        else answer();
      });
    });
  }

  vectorOf(model: string, text: string): number[] {
    const dims = this.dimsOf[model] ?? DIMS;
    const v = new Array<number>(dims).fill(0);
    for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
      const concept = this.concepts[word] ?? word;
      const h = createHash('sha256').update(`${model}\n${concept}`).digest();
      v[h[0] % dims] += h[1] & 1 ? 1 : -1;
    }
    if (!v.some((x) => x !== 0)) v[0] = 1e-3;
    return v;
  }

  /** Every text the server was sent. */
  get inputs(): string[] {
    return this.requests.flatMap((r) => r.input);
  }

  listen(): Promise<string> {
    return new Promise((r) =>
      this.server.listen(0, '127.0.0.1', () => {
        this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
        r(this.url);
      }),
    );
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}
