import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FakeOpenAIServer, sse, delta } from './fakeOpenAIServer';
import { OpenAICompatibleClient, SseParser } from '../../../src/core/agent/openaiClient';
import { CancelledError } from '../../../src/core/errors';
import { ModelError, ModelHttpError, ModelProtocolError, ModelTimeoutError } from '../../../src/core/agent/errors';
import type { ModelChunk } from '../../../src/core/agent/model';


async function collect(it: AsyncIterable<ModelChunk>): Promise<ModelChunk[]> {
  const out: ModelChunk[] = [];
  for await (const c of it) out.push(c);
  return out;
}

describe('OpenAICompatibleClient against a loopback server', () => {
  const fake = new FakeOpenAIServer();
  let url: string;
  before(async () => {
    url = await fake.listen();
  });
  after(() => fake.close());

  const client = (extra: Partial<ConstructorParameters<typeof OpenAICompatibleClient>[0]> = {}) =>
    new OpenAICompatibleClient({ baseUrl: url, model: 'fake-model', retries: 0, retryBaseMs: 5, ...extra });

  test('streams text as it comes and reports usage; sends model, messages, tools, key', async () => {
    fake.handlers.push((_q, _b, res) =>
      sse(res, [delta({ role: 'assistant', content: 'Hel' }), delta({ content: 'lo, ' }), delta({ content: 'world' }), { choices: [], usage: { prompt_tokens: 42, completion_tokens: 3 } }], { split: 7 }),
    );
    const c = client({ apiKeyEnv: 'FAKE_KEY', env: { FAKE_KEY: 'sk-test-123' } });
    const chunks = await collect(
      c.send(
        [
          { role: 'system', content: 'sys' },
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'scroll_exec', input: { code: 'print(1)' } }] },
          { role: 'tool', toolCallId: 'c1', name: 'scroll_exec', content: '1' },
        ],
        [{ name: 'scroll_exec', description: 'run python', inputSchema: { type: 'object', properties: { code: { type: 'string' } } } }],
        { maxOutputTokens: 99 },
      ),
    );
    const text = chunks.filter((c) => c.type === 'text').map((c) => (c as { text: string }).text);
    assert.ok(text.length >= 3, 'text arrives in pieces, not at the end');
    assert.equal(text.join(''), 'Hello, world');
    assert.deepEqual(chunks[chunks.length - 1], { type: 'usage', inputTokens: 42, outputTokens: 3 });
    const req = fake.requests[fake.requests.length - 1];
    assert.equal(req.url, '/v1/chat/completions');
    assert.equal(req.headers.authorization, 'Bearer sk-test-123');
    assert.equal(req.body.model, 'fake-model');
    assert.equal(req.body.stream, true);
    assert.equal(req.body.max_tokens, 99);
    assert.equal(req.body.tools[0].function.name, 'scroll_exec');
    assert.deepEqual(req.body.messages[2], {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'scroll_exec', arguments: '{"code":"print(1)"}' } }],
    });
    assert.deepEqual(req.body.messages[3], { role: 'tool', tool_call_id: 'c1', content: '1' });
  });

  test('assembles several tool calls streamed in interleaved fragments', async () => {
    fake.handlers.push((_q, _b, res) =>
      sse(
        res,
        [
          delta({ content: 'Let me look.' }),
          delta({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'scroll_exec', arguments: '' } }] }),
          delta({ tool_calls: [{ index: 0, function: { arguments: '{"co' } }] }),
          delta({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'read_file', arguments: '{"path":' } }] }),
          delta({ tool_calls: [{ index: 0, function: { arguments: 'de": "print(ms.search(\\"x\\"))"}' } }] }),
          delta({ tool_calls: [{ index: 1, function: { arguments: ' "a.txt"}' } }] }),
          { choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
        ],
        { split: 5 },
      ),
    );
    const chunks = await collect(client().send([{ role: 'user', content: 'go' }], []));
    const calls = chunks.filter((c) => c.type === 'tool_call').map((c) => (c as { call: unknown }).call);
    assert.deepEqual(calls, [
      { id: 'call_a', name: 'scroll_exec', input: { code: 'print(ms.search("x"))' } },
      { id: 'call_b', name: 'read_file', input: { path: 'a.txt' } },
    ]);
    assert.equal(chunks[0].type, 'text');
  });

  test('arguments that are not a JSON object become an inputError, not a crash', async () => {
    fake.handlers.push((_q, _b, res) =>
      sse(res, [delta({ tool_calls: [{ index: 0, id: 'x', function: { name: 'scroll_exec', arguments: '{"code": "print(1)' } }] })]),
    );
    const chunks = await collect(client().send([{ role: 'user', content: 'go' }], []));
    const call = (chunks.find((c) => c.type === 'tool_call') as { call: { inputError?: string; input: object } }).call;
    assert.match(call.inputError ?? '', /not valid JSON/);
    assert.deepEqual(call.input, {});
  });

  test('a JSON side request asks for response_format json_object; a non-streamed answer is accepted', async () => {
    fake.handlers.push((_q, _b, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: '{"task":"t","state":"s","next":"n"}' } }], usage: { prompt_tokens: 5, completion_tokens: 7 } }));
    });
    const chunks = await collect(client().send([{ role: 'user', content: 'title' }], [], { json: true }));
    assert.deepEqual(chunks, [
      { type: 'text', text: '{"task":"t","state":"s","next":"n"}' },
      { type: 'usage', inputTokens: 5, outputTokens: 7 },
    ]);
    assert.deepEqual(fake.requests[fake.requests.length - 1].body.response_format, { type: 'json_object' });
  });

  test('HTTP 401 and 404 give clear errors naming the status, the server message and a hint', async () => {
    fake.handlers.push((_q, _b, res) => res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'Invalid API key' } })));
    await assert.rejects(
      collect(client({ apiKeyEnv: 'K', env: { K: 'bad' } }).send([{ role: 'user', content: 'x' }], [])),
      (e: unknown) => e instanceof ModelHttpError && e.status === 401 && /HTTP 401/.test(e.message) && /Invalid API key/.test(e.message) && /\$K/.test(e.message),
    );
    fake.handlers.push((_q, _b, res) => res.writeHead(404).end('not found'));
    await assert.rejects(collect(client().send([{ role: 'user', content: 'x' }], [])), /HTTP 404.*not found.*model URL/);
  });

  test('HTTP 5xx is retried, then reported', async () => {
    fake.handlers.push((_q, _b, res) => res.writeHead(503).end('overloaded'));
    fake.handlers.push((_q, _b, res) => sse(res, [delta({ content: 'recovered' })]));
    const chunks = await collect(client({ retries: 2 }).send([{ role: 'user', content: 'x' }], []));
    assert.deepEqual(chunks, [{ type: 'text', text: 'recovered' }]);
    fake.handlers.push((_q, _b, res) => res.writeHead(500).end('boom'));
    fake.handlers.push((_q, _b, res) => res.writeHead(500).end('boom again'));
    await assert.rejects(collect(client({ retries: 1 }).send([{ role: 'user', content: 'x' }], [])), (e: unknown) => e instanceof ModelHttpError && e.status === 500 && /boom again/.test(e.message));
  });

  test('a server that rejects stream_options is asked again without it', async () => {
    fake.handlers.push((_q, _b, res) => res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'Unrecognized request argument supplied: stream_options' } })));
    fake.handlers.push((_q, body, res) => {
      assert.equal(body.stream_options, undefined);
      sse(res, [delta({ content: 'fine' })]);
    });
    const chunks = await collect(client().send([{ role: 'user', content: 'x' }], []));
    assert.deepEqual(chunks, [{ type: 'text', text: 'fine' }]);
  });

  test('an error event inside the stream is reported', async () => {
    fake.handlers.push((_q, _b, res) => sse(res, [delta({ content: 'partial' }), { error: { message: 'context length exceeded' } }]));
    await assert.rejects(collect(client().send([{ role: 'user', content: 'x' }], [])), (e: unknown) => e instanceof ModelProtocolError && /context length exceeded/.test(e.message));
  });

  test('a stream that stalls hits the idle timeout; no response hits the request timeout', async () => {
    fake.handlers.push((_q, _b, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify(delta({ content: 'slow' }))}\n\n`);
      // ...and nothing more
    });
    await assert.rejects(collect(client({ idleTimeoutMs: 150 }).send([{ role: 'user', content: 'x' }], [])), (e: unknown) => e instanceof ModelTimeoutError && /stalled for 150 ms/.test(e.message));
    fake.handlers.push(() => {
      /* never answers */
    });
    await assert.rejects(collect(client({ timeoutMs: 150 }).send([{ role: 'user', content: 'x' }], [])), (e: unknown) => e instanceof ModelTimeoutError && /no response/.test(e.message));
  });

  test('the caller can cancel mid-stream', async () => {
    fake.handlers.push((_q, _b, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify(delta({ content: 'first' }))}\n\n`);
    });
    const ac = new AbortController();
    const got: string[] = [];
    await assert.rejects(
      (async () => {
        for await (const c of client().send([{ role: 'user', content: 'x' }], [], { signal: ac.signal })) {
          if (c.type === 'text') {
            got.push(c.text);
            ac.abort();
          }
        }
      })(),
      (e: unknown) => e instanceof CancelledError,
    );
    assert.deepEqual(got, ['first']);
  });

  test('configuration errors are clear: unreachable server, missing key variable, bad URL', async () => {
    const closed = new FakeOpenAIServer();
    const deadUrl = await closed.listen();
    await closed.close();
    await assert.rejects(collect(new OpenAICompatibleClient({ baseUrl: deadUrl, model: 'm', retries: 0 }).send([{ role: 'user', content: 'x' }], [])), (e: unknown) => e instanceof ModelError && /could not reach/.test((e as Error).message));
    assert.throws(() => new OpenAICompatibleClient({ baseUrl: url, model: 'm', apiKeyEnv: 'SCROLL_NO_SUCH_VAR', env: {} }), /SCROLL_NO_SUCH_VAR is not set/);
    assert.throws(() => new OpenAICompatibleClient({ baseUrl: 'not a url', model: 'm' }), /not a valid URL/);
    assert.throws(() => new OpenAICompatibleClient({ baseUrl: 'ftp://x', model: 'm' }), /http/);
  });
});

describe('SseParser', () => {
  test('handles CRLF, split lines, comments, multi-line data and a missing final blank line', () => {
    const p = new SseParser();
    const out: string[] = [];
    for (const piece of [': keep-alive\r', '\ndata: {"a"', ':1}\r\n\r\nda', 'ta: line1\ndata: line2\n', '\nevent: x\ndata: tail']) out.push(...p.push(piece));
    out.push(...p.end());
    assert.deepEqual(out, ['{"a":1}', 'line1\nline2', 'tail']);
  });
});
