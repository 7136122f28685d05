/**
 * The local channel a Jupyter kernel reaches `ms` through (docs/MEMORY-PROTOCOL.md, "Transport"):
 * a Unix socket in a fresh private (0700) folder, or a named pipe on Windows. The bootstrap cell
 * gives the kernel the address and the per-session token. On each connection the first line must
 * be `{"token": "<token>"}` (compared in constant time), else the connection is destroyed; after it,
 * newline-delimited call lines, answered in order with `replyFor`.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replyFor, type MemoryHost } from './memoryHost';

/** Longest call line accepted (a call is small: a query, a few seqs, an SQL string). */
export const MAX_CALL_LINE_CHARS = 1024 * 1024;
/** Longest first line (the token); anything longer is not a token. */
const MAX_TOKEN_LINE_CHARS = 4096;
/** A connection that has not sent its token by then is dropped. */
const TOKEN_TIMEOUT_MS = 10_000;

export class MemoryChannel {
  /** Socket path (named pipe on Windows) the kernel connects to. */
  readonly address: string;
  /** 32 random bytes, hex: the first line of every connection must carry it. */
  readonly token: string;
  private readonly tokenBytes: Buffer;
  private readonly sockets = new Set<Socket>();
  private closed?: Promise<void>;

  private constructor(
    private readonly host: MemoryHost,
    private readonly server: Server,
    address: string,
    token: string,
    private readonly dir: string | undefined,
  ) {
    this.address = address;
    this.token = token;
    this.tokenBytes = Buffer.from(token, 'utf8');
  }

  static async open(host: MemoryHost, opts: { dir?: string } = {}): Promise<MemoryChannel> {
    const token = randomBytes(32).toString('hex');
    let dir: string | undefined;
    let address: string;
    if (process.platform === 'win32') {
      address = `\\\\.\\pipe\\scroll-${randomBytes(16).toString('hex')}`;
    } else {
      dir = await fsp.mkdtemp(join(opts.dir ?? tmpdir(), 'scroll-ms-'));
      await fsp.chmod(dir, 0o700);
      address = join(dir, 'ms.sock');
    }
    const server = createServer();
    const channel = new MemoryChannel(host, server, address, token, dir);
    server.on('connection', (socket) => channel.accept(socket));
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(address, () => {
          server.off('error', reject);
          resolve();
        });
      });
      if (dir) await fsp.chmod(address, 0o600);
    } catch (e) {
      server.close();
      if (dir) await fsp.rm(dir, { recursive: true, force: true });
      throw e;
    }
    server.on('error', () => undefined); // after listening: nothing to report to
    return channel;
  }

  /** Stops listening, drops every connection and removes the private folder. */
  close(): Promise<void> {
    this.closed ??= (async () => {
      const stopped = new Promise<void>((resolve) => this.server.close(() => resolve()));
      for (const s of this.sockets) s.destroy();
      this.sockets.clear();
      await stopped;
      if (this.dir) await fsp.rm(this.dir, { recursive: true, force: true });
    })();
    return this.closed;
  }

  private accept(socket: Socket): void {
    if (this.closed) {
      socket.destroy();
      return;
    }
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined); // a kernel that went away: the socket closes
    socket.setEncoding('utf8');
    let authed = false;
    let buffer = '';
    let answering: Promise<void> = Promise.resolve();
    const tokenTimer = setTimeout(() => socket.destroy(), TOKEN_TIMEOUT_MS);
    socket.on('close', () => clearTimeout(tokenTimer));
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (!authed) {
          if (!this.tokenMatches(line)) {
            socket.destroy();
            return;
          }
          authed = true;
          clearTimeout(tokenTimer);
          continue;
        }
        if (line.length > MAX_CALL_LINE_CHARS) {
          socket.destroy();
          return;
        }
        if (!line.trim()) continue;
        answering = answering.then(() => this.answer(socket, line));
      }
      if (buffer.length > (authed ? MAX_CALL_LINE_CHARS : MAX_TOKEN_LINE_CHARS)) socket.destroy();
    });
  }

  private tokenMatches(line: string): boolean {
    if (line.length > MAX_TOKEN_LINE_CHARS) return false;
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      return false;
    }
    const given = msg && typeof msg === 'object' && !Array.isArray(msg) ? (msg as { token?: unknown }).token : undefined;
    if (typeof given !== 'string') return false;
    const bytes = Buffer.from(given, 'utf8');
    return bytes.length === this.tokenBytes.length && timingSafeEqual(bytes, this.tokenBytes);
  }

  private async answer(socket: Socket, line: string): Promise<void> {
    let reply: unknown;
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      msg = undefined;
    }
    if (!msg || typeof msg !== 'object' || Array.isArray(msg)) {
      reply = { ms_reply: null, error: { type: 'ValueError', message: 'ms: a call line must be a JSON object {"ms_call", "method", "args"}' } };
    } else {
      reply = await replyFor(this.host, msg as { ms_call: number; method: string; args?: unknown });
    }
    if (socket.destroyed) return;
    let text: string;
    try {
      text = JSON.stringify(reply) + '\n';
    } catch (e) {
      // A result too large for one string (a huge range): say so instead of leaving the call hanging.
      const id = (reply as { ms_reply?: unknown }).ms_reply ?? null;
      text = JSON.stringify({ ms_reply: id, error: { type: 'RuntimeError', message: `ms: the result is too large to send (${e instanceof Error ? e.message : String(e)}); ask for fewer events` } }) + '\n';
    }
    if (!socket.write(text)) {
      await new Promise<void>((resolve) => {
        const done = () => {
          socket.off('drain', done);
          socket.off('close', done);
          resolve();
        };
        socket.on('drain', done);
        socket.on('close', done);
      });
    }
  }
}
