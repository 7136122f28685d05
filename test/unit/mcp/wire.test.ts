// The wire format of `scroll mcp`, checked by a client written here (not the SDK): newline-
// delimited JSON-RPC 2.0 over the child's stdin/stdout; nothing but protocol messages on stdout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../src/core/log/eventLog';

const CLI = join(__dirname, '..', '..', '..', 'src', 'cli', 'main.js');
const SCRATCH = existsSync('/var/tmp') ? '/var/tmp' : tmpdir();

class RawClient {
  private buffer = '';
  private readonly waiting = new Map<number, (msg: Record<string, unknown>) => void>();
  readonly lines: string[] = [];
  readonly child: ChildProcessWithoutNullStreams;

  constructor(args: string[]) {
    this.child = spawn(process.execPath, [CLI, 'mcp', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => {
      this.buffer += chunk;
      let nl;
      while ((nl = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        this.lines.push(line);
        const msg = JSON.parse(line) as Record<string, unknown>;
        const done = this.waiting.get(msg.id as number);
        if (done) {
          this.waiting.delete(msg.id as number);
          done(msg);
        }
      }
    });
  }

  send(raw: string): void {
    this.child.stdin.write(raw + '\n');
  }

  request(id: number, method: string, params?: unknown): Promise<Record<string, unknown>> {
    const reply = new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no reply to ${method} (id ${id}) in 20 s; stdout so far: ${this.lines.join('\n')}`)), 20_000);
      this.waiting.set(id, (m) => {
        clearTimeout(timer);
        resolve(m);
      });
    });
    this.send(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }));
    return reply;
  }

  end(): Promise<number | null> {
    return new Promise((resolve) => {
      this.child.once('exit', (code) => resolve(code));
      this.child.stdin.end();
    });
  }
}

test('newline-delimited JSON-RPC 2.0: initialize, tools/list, tools/call; bad lines do not stop it; exits when stdin closes', async () => {
  const root = mkdtempSync(join(SCRATCH, 'scroll-mcp-wire-'));
  try {
    const ws = join(root, 'ws');
    const log = EventLog.open({ workspace: ws, session: 'wire' });
    log.append({ kind: 'user_message', role: 'user', content: 'the flux capacitor needs 1.21 gigawatts' });
    log.close();

    const c = new RawClient(['--workspace', ws, '--sandbox', 'off']);
    const init = await c.request(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-wire', version: '0.1' } });
    assert.equal(init.jsonrpc, '2.0');
    assert.equal(init.id, 1);
    const result = init.result as { protocolVersion: string; serverInfo: { name: string; version: string }; capabilities: Record<string, unknown> };
    assert.equal(result.protocolVersion, '2025-06-18');
    assert.equal(result.serverInfo.name, 'scroll-memory');
    assert.match(result.serverInfo.version, /^\d+\.\d+\.\d+/);
    assert.ok(result.capabilities.tools && result.capabilities.resources);
    c.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));

    const list = await c.request(2, 'tools/list', {});
    const tools = (list.result as { tools: { name: string; inputSchema: { type: string } }[] }).tools;
    assert.deepEqual(tools.map((t) => t.name).sort(), ['history_index', 'read_events', 'search_history']);
    assert.ok(tools.every((t) => t.inputSchema.type === 'object'));

    const found = await c.request(3, 'tools/call', { name: 'search_history', arguments: { query: 'gigawatts' } });
    const content = (found.result as { content: { type: string; text: string }[]; isError?: boolean }).content;
    assert.equal(content[0].type, 'text');
    assert.deepEqual(JSON.parse(content[0].text).hits.map((h: { seq: number }) => h.seq), [1]);

    // A line that is not JSON, a method the server does not have, a bad call: each answered or skipped, then it still serves.
    c.send('this is not json');
    const unknown = await c.request(4, 'no/such/method', {});
    assert.equal((unknown.error as { code: number }).code, -32601);
    const bad = await c.request(5, 'tools/call', { name: 'read_events', arguments: { seq: 42 } });
    assert.equal((bad.result as { isError: boolean }).isError, true);
    assert.match((bad.result as { content: { text: string }[] }).content[0].text, /no event with seq 42 \(the log holds 1\.\.1\)/);
    const again = await c.request(6, 'tools/call', { name: 'read_events', arguments: { seq: 1 } });
    assert.equal(JSON.parse((again.result as { content: { text: string }[] }).content[0].text).events[0].content, 'the flux capacitor needs 1.21 gigawatts');

    assert.equal(await c.end(), 0, 'exits 0 when the client closes stdin');
    for (const line of c.lines) assert.equal((JSON.parse(line) as { jsonrpc: string }).jsonrpc, '2.0', `stdout holds only JSON-RPC: ${line.slice(0, 80)}`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
