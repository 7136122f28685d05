/** TEST DOUBLE: a loopback OpenAI-compatible chat-completions server whose answers tests script. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback OpenAI-compatible server whose next answers the test scripts. */
export type Handler = (req: IncomingMessage, body: any, res: ServerResponse) => void;

export class FakeOpenAIServer {
  server: Server;
  handlers: Handler[] = [];
  requests: Array<{ headers: IncomingMessage['headers']; body: any; url: string }> = [];
  constructor() {
    this.server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        const body = raw ? JSON.parse(raw) : null;
        this.requests.push({ headers: req.headers, body, url: req.url ?? '' });
        const h = this.handlers.shift();
        if (!h) {
          res.writeHead(500).end('no handler scripted');
          return;
        }
        h(req, body, res);
      });
    });
  }
  listen(): Promise<string> {
    return new Promise((r) => this.server.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`)));
  }
  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

/** Writes SSE events, each possibly split across several writes to exercise reassembly. */
export function sse(res: ServerResponse, events: unknown[], opts: { split?: number; done?: boolean } = {}): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  let text = events.map((e) => `data: ${typeof e === 'string' ? e : JSON.stringify(e)}\n\n`).join('');
  if (opts.done !== false) text += 'data: [DONE]\n\n';
  const split = opts.split ?? 0;
  if (!split) return void res.end(text);
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += split) parts.push(text.slice(i, i + split));
  let i = 0;
  const next = () => {
    if (i >= parts.length) return void res.end();
    res.write(parts[i++]);
    setImmediate(next);
  };
  next();
}

export const delta = (d: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ choices: [{ index: 0, delta: d, finish_reason: null }], ...extra });
