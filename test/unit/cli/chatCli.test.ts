import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { main } from '../../../src/cli/main';
import type { CliIO } from '../../../src/cli/command';
import { EventLog } from '../../../src/core/log/eventLog';
import { FakeOpenAIServer, sse, delta } from '../agent/fakeOpenAIServer';

function memoryIO(cwd: string, stdin = '', env: NodeJS.ProcessEnv = {}): CliIO & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    stdout: (t: string) => void (io.out += t),
    stderr: (t: string) => void (io.err += t),
    stdin: Readable.from([stdin]),
    cwd,
    env,
  };
  return io;
}

const toolCall = (id: string, name: string, args: unknown) =>
  delta({ tool_calls: [{ index: 0, id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] });

describe('scroll chat (against a loopback OpenAI-compatible server)', () => {
  const fake = new FakeOpenAIServer();
  let url: string;
  let dir: string;
  before(async () => {
    url = await fake.listen();
    dir = mkdtempSync(join(tmpdir(), 'scroll-chat-test-'));
    writeFileSync(join(dir, 'notes.txt'), 'the build uses esbuild\nport 6543\n');
  });
  after(async () => {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('runs tools (kernel and workspace), prints the answer, logs everything to the database', async () => {
    fake.handlers.push((_q, _b, res) => sse(res, [delta({ content: 'Checking.' }), toolCall('c1', 'scroll_exec', { code: 'x = 6 * 7\nprint(x)' })]));
    fake.handlers.push((_q, body, res) => {
      // The kernel's printed output came back as the tool result.
      const tool = body.messages.find((m: { role: string }) => m.role === 'tool');
      assert.equal(tool.content, '42');
      // A name from before the tool table (as an old log holds it) still means the tool it was.
      sse(res, [toolCall('c2', 'search_text', { pattern: 'port' })]);
    });
    fake.handlers.push((_q, body, res) => {
      const last = body.messages[body.messages.length - 1];
      assert.match(last.content, /notes\.txt:2: port 6543/);
      assert.deepEqual(body.tools.map((t: { function: { name: string } }) => t.function.name), ['scroll_exec', 'scroll_readFile', 'scroll_listFiles', 'scroll_searchText']);
      sse(res, [delta({ content: 'The answer is 42 ' }), delta({ content: 'and the port is 6543.' })]);
    });
    const io = memoryIO(dir, '', { MY_KEY: 'secret-key' });
    const code = await main(['chat', '--model-url', url, '--model', 'fake', '--api-key-env', 'MY_KEY', '--session', 'cli-1', '--message', 'What is 6*7 and the port?'], io);
    assert.equal(code, 0, io.err);
    assert.equal(io.out, 'The answer is 42 and the port is 6543.\n');
    assert.match(io.err, /session cli-1/);
    assert.equal(fake.requests[fake.requests.length - 1].headers.authorization, 'Bearer secret-key');

    const log = EventLog.open({ path: join(dir, '.scroll', 'scroll.db'), readonly: true });
    try {
      const kinds = [...log.iterateSession('cli-1')].map((e) => e.kind);
      assert.deepEqual(kinds, ['user_message', 'model_turn', 'tool_call', 'kernel_exec', 'kernel_output', 'tool_result', 'model_turn', 'tool_call', 'tool_result', 'model_turn']);
    } finally {
      log.close();
    }
  });

  test('reads messages from stdin lines, continues the session, answers as JSON', async () => {
    fake.handlers.push((_q, body, res) => {
      // The earlier exchange of this session is in the view.
      assert.ok(body.messages.some((m: { content?: string }) => m.content === 'What is 6*7 and the port?'));
      sse(res, [delta({ content: 'one' })]);
    });
    fake.handlers.push((_q, _b, res) => sse(res, [delta({ content: 'two' })]));
    const io = memoryIO(dir, 'first line\n\nsecond line\n');
    const code = await main(['chat', '--model-url', url, '--model', 'fake', '--session', 'cli-1', '--no-kernel', '--json'], io);
    assert.equal(code, 0, io.err);
    const lines = io.out.trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((l) => [l.message, l.answer, l.stopped]), [['first line', 'one', 'answer'], ['second line', 'two', 'answer']]);
  });

  test('write and run tools are offered only when allowed', async () => {
    fake.handlers.push((_q, body, res) => {
      assert.deepEqual(body.tools.map((t: { function: { name: string } }) => t.function.name), ['scroll_readFile', 'scroll_listFiles', 'scroll_searchText', 'scroll_editFile', 'scroll_runCommand']);
      sse(res, [toolCall('w1', 'scroll_editFile', { path: 'out.txt', newText: 'hello' })]);
    });
    fake.handlers.push((_q, _b, res) => sse(res, [toolCall('r1', 'scroll_runCommand', { command: 'cat out.txt' })]));
    fake.handlers.push((_q, body, res) => {
      assert.match(body.messages[body.messages.length - 1].content, /exit code 0, \d+ ms\n--- stdout ---\nhello/);
      sse(res, [delta({ content: 'done' })]);
    });
    const io = memoryIO(dir);
    const code = await main(['chat', '--model-url', url, '--model', 'fake', '--no-kernel', '--allow-write', '--allow-run', '--message', 'write it'], io);
    assert.equal(code, 0, io.err);
    assert.equal(io.out, 'done\n');
  });

  test('without a sandbox scroll_exec is refused unless --allow-unsandboxed-kernel; the start says which', async () => {
    const toolsOf = (body: { tools: { function: { name: string } }[] }) => body.tools.map((t) => t.function.name);
    let offered: string[] = [];
    fake.handlers.push((_q, body, res) => {
      offered = toolsOf(body);
      sse(res, [delta({ content: 'no kernel' })]);
    });
    let io = memoryIO(dir, '', { SCROLL_BWRAP_PATH: '/nonexistent/bwrap' });
    assert.equal(await main(['chat', '--model-url', url, '--model', 'fake', '--message', 'hi'], io), 0, io.err);
    assert.match(io.err, /no scroll_exec: the Python kernel would run unsandboxed \(not sandboxed: .*\/nonexistent\/bwrap.*\); start with --allow-unsandboxed-kernel/);
    assert.ok(!offered.includes('scroll_exec'), offered.join());

    fake.handlers.push((_q, body, res) => {
      offered = toolsOf(body);
      sse(res, [delta({ content: 'kernel' })]);
    });
    io = memoryIO(dir, '', { SCROLL_BWRAP_PATH: '/nonexistent/bwrap' });
    assert.equal(await main(['chat', '--model-url', url, '--model', 'fake', '--allow-unsandboxed-kernel', '--message', 'hi'], io), 0, io.err);
    assert.match(io.err, /Python kernel UNSANDBOXED \(--allow-unsandboxed-kernel\)/);
    assert.ok(offered.includes('scroll_exec'), offered.join());

    io = memoryIO(dir, '', { SCROLL_BWRAP_PATH: '/nonexistent/bwrap' });
    fake.handlers.push((_q, _b, res) => sse(res, [delta({ content: 'refused' })]));
    assert.equal(await main(['chat', '--model-url', url, '--model', 'fake', '--sandbox', 'require', '--allow-unsandboxed-kernel', '--message', 'hi'], io), 0, io.err);
    assert.match(io.err, /no scroll_exec: .*bubblewrap/);

    io = memoryIO(dir);
    assert.equal(await main(['chat', '--model-url', url, '--model', 'fake', '--sandbox', 'sometimes', '--message', 'hi'], io), 2);
    assert.match(io.err, /--sandbox must be auto, require or off/);

    // With bubblewrap (CI installs it) the kernel is sandboxed and says so.
    fake.handlers.push((_q, _b, res) => sse(res, [delta({ content: 'sandboxed' })]));
    io = memoryIO(dir);
    assert.equal(await main(['chat', '--model-url', url, '--model', 'fake', '--message', 'hi'], io), 0, io.err);
    assert.match(io.err, /Python kernel sandboxed \(bubblewrap/);
  });

  test('bad usage and server errors are clear; the user message is still logged', async () => {
    let io = memoryIO(dir);
    assert.equal(await main(['chat', '--model', 'fake', '--message', 'x'], io), 2);
    assert.match(io.err, /--model-url is required/);
    io = memoryIO(dir);
    assert.equal(await main(['chat', '--model-url', url, '--model', 'fake', '--api-key-env', 'NOPE_NOT_SET', '--message', 'x'], io), 1);
    assert.match(io.err, /NOPE_NOT_SET is not set/);
    io = memoryIO(dir);
    assert.equal(await main(['chat', '--model-url', url, '--model', 'fake', '--max-view-tokens', 'abc', '--message', 'x'], io), 2);

    fake.handlers.push((_q, _b, res) => res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'model "fake" does not exist' } })));
    io = memoryIO(dir);
    assert.equal(await main(['chat', '--model-url', url, '--model', 'fake', '--no-kernel', '--session', 'cli-err', '--message', 'will fail'], io), 1);
    assert.match(io.err, /HTTP 400.*model "fake" does not exist/);
    const log = EventLog.open({ path: join(dir, '.scroll', 'scroll.db'), readonly: true });
    try {
      const evs = [...log.iterateSession('cli-err')];
      assert.deepEqual(evs.map((e) => e.kind), ['user_message', 'note']);
      assert.equal(evs[0].content, 'will fail');
      assert.match(evs[1].content, /model call failed/);
    } finally {
      log.close();
    }
  });
});
