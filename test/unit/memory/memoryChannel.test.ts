import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { EventLog } from '../../../src/core/log/eventLog';
import { MAX_CALL_LINE_CHARS, MemoryChannel, MemoryHost } from '../../../src/core/memory';

interface Conn {
  socket: Socket;
  lines: string[];
  closed: Promise<void>;
  /** Resolves with the next n lines the host sends (or rejects when the connection closes first). */
  next(n: number): Promise<unknown[]>;
}

function open(address: string): Promise<Conn> {
  return new Promise((resolve, reject) => {
    const socket = connect(address);
    const lines: string[] = [];
    let buffer = '';
    let waiter: (() => void) | undefined;
    let isClosed = false;
    const closed = new Promise<void>((r) => socket.on('close', () => {
      isClosed = true;
      waiter?.();
      r();
    }));
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        lines.push(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
      }
      waiter?.();
    });
    socket.on('error', () => undefined);
    const next = (n: number) =>
      new Promise<unknown[]>((ok, fail) => {
        const check = () => {
          if (lines.length >= n) {
            waiter = undefined;
            ok(lines.splice(0, n).map((l) => JSON.parse(l)));
          } else if (isClosed) fail(new Error('connection closed'));
        };
        waiter = check;
        check();
      });
    socket.once('connect', () => resolve({ socket, lines, closed, next }));
    socket.once('error', reject);
  });
}

async function withChannel(fn: (ch: MemoryChannel, log: EventLog) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-memch-'));
  const log = EventLog.open({ path: join(dir, 'scroll.db'), session: 'S1', redact: false });
  log.appendMany([1, 2, 3].map((i) => ({ kind: 'note', role: 'user', content: `note ${i} about the retry cap` })));
  const host = new MemoryHost({ log });
  const ch = await MemoryChannel.open(host, { dir });
  try {
    await fn(ch, log);
  } finally {
    await ch.close();
    host.dispose();
    log.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

test('a socket in a fresh private folder; a random 32-byte token; close removes the folder', async () => {
  let folder = '';
  await withChannel(async (ch) => {
    assert.match(ch.token, /^[0-9a-f]{64}$/);
    if (process.platform === 'win32') {
      assert.match(ch.address, /^\\\\\.\\pipe\\scroll-[0-9a-f]+$/);
      return;
    }
    folder = dirname(ch.address);
    assert.equal(statSync(folder).mode & 0o777, 0o700);
    assert.ok(statSync(ch.address).isSocket());
    assert.equal(statSync(ch.address).mode & 0o077, 0);
  });
  if (folder) assert.equal(existsSync(folder), false);
  const other = await withTwo();
  assert.notEqual(other[0], other[1], 'every channel has its own token');
});

async function withTwo(): Promise<string[]> {
  const tokens: string[] = [];
  await withChannel(async (a) => {
    tokens.push(a.token);
    await withChannel(async (b) => {
      tokens.push(b.token);
    });
  });
  return tokens;
}

test('a wrong, missing or malformed token: the connection is closed without an answer', async () => {
  await withChannel(async (ch) => {
    const wrong = ch.token.slice(0, -1) + (ch.token.endsWith('0') ? '1' : '0');
    for (const first of [JSON.stringify({ token: wrong }), JSON.stringify({ token: ch.token.slice(0, 10) }), JSON.stringify({ token: 5 }), ch.token, '{"ms_call": 1, "method": "recent", "args": {}}', 'not json']) {
      const c = await open(ch.address);
      c.socket.write(first + '\n' + JSON.stringify({ ms_call: 1, method: 'recent', args: {} }) + '\n');
      await c.closed;
      assert.deepEqual(c.lines, [], first);
    }
    // A first line that never ends is not a token either.
    const c = await open(ch.address);
    c.socket.write('{"token": "' + 'a'.repeat(10_000));
    await c.closed;
    assert.deepEqual(c.lines, []);
  });
});

test('the right token: calls are answered in order with replyFor, errors included', async () => {
  await withChannel(async (ch, log) => {
    const c = await open(ch.address);
    // The token line arrives in pieces, and two calls come in the same write.
    c.socket.write('{"tok');
    await new Promise((r) => setTimeout(r, 20));
    c.socket.write(`en": "${ch.token}"}\n`);
    c.socket.write(
      JSON.stringify({ ms_call: 1, method: 'search', args: { query: 'retry cap', k: 2 } }) + '\n' +
        JSON.stringify({ ms_call: 2, method: 'expand', args: { seqs: [9] } }) + '\n' +
        JSON.stringify({ ms_call: 3, method: 'range', args: { a: 1, b: 3 } }) + '\n',
    );
    const [r1, r2, r3] = (await c.next(3)) as Array<Record<string, any>>;
    assert.equal(r1.ms_reply, 1);
    assert.equal(r1.result.hits.length, 2);
    assert.deepEqual(r1.result.hits, log.search('retry cap', { k: 2 }).hits);
    assert.deepEqual(r2, { ms_reply: 2, error: { type: 'KeyError', message: 'ms.expand: no event with seq 9 (max seq is 3)' } });
    assert.deepEqual(r3.result.events.map((e: { seq: number }) => e.seq), [1, 2, 3]);
    // A line that is not a call gets an error reply (no id to answer), the connection stays.
    c.socket.write('[1, 2]\n');
    assert.equal(((await c.next(1))[0] as Record<string, any>).error.type, 'ValueError');
    // The sql method goes through the read-only helper, refusals included.
    c.socket.write(JSON.stringify({ ms_call: 4, method: 'sql', args: { query: 'DELETE FROM events' } }) + '\n');
    assert.equal(((await c.next(1))[0] as Record<string, any>).error.type, 'PermissionError');
    c.socket.write(JSON.stringify({ ms_call: 5, method: 'sql', args: { query: 'SELECT count(*) FROM events', params: [] } }) + '\n');
    assert.deepEqual(((await c.next(1))[0] as Record<string, any>).result.rows, [[3]]);
    // A second, independent connection with the same token.
    const d = await open(ch.address);
    d.socket.write(JSON.stringify({ token: ch.token }) + '\n' + JSON.stringify({ ms_call: 77, method: 'recent', args: { n: 1 } }) + '\n');
    const [rd] = (await d.next(1)) as Array<Record<string, any>>;
    assert.equal(rd.ms_reply, 77);
    assert.equal(rd.result.events[0].seq, 3);
    c.socket.destroy();
    d.socket.destroy();
  });
});

test('a call line longer than 1 MB closes the connection', async () => {
  await withChannel(async (ch) => {
    const c = await open(ch.address);
    c.socket.write(JSON.stringify({ token: ch.token }) + '\n');
    c.socket.write(JSON.stringify({ ms_call: 1, method: 'search', args: { query: 'x'.repeat(MAX_CALL_LINE_CHARS + 10) } }) + '\n');
    await c.closed;
    assert.deepEqual(c.lines, []);
  });
});

test('after close: connections are dropped and no new one is accepted', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-memch-close-'));
  const log = EventLog.open({ path: join(dir, 'scroll.db'), redact: false });
  const host = new MemoryHost({ log });
  const ch = await MemoryChannel.open(host, { dir });
  try {
    const c = await open(ch.address);
    c.socket.write(JSON.stringify({ token: ch.token }) + '\n');
    await ch.close();
    await c.closed;
    await assert.rejects(open(ch.address));
    await ch.close(); // twice is fine
  } finally {
    host.dispose();
    log.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
