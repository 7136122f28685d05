// The OpenAI-compatible provider (vendor `scroll`) in the real host, against a loopback fake server
// started by the test: off until configured, then a selectable chat model whose replies (text and tool
// calls) come from the server, with the API key from SecretStorage sent as a Bearer token.
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as vscode from 'vscode';
import { scrollApi, waitFor } from './helpers';

interface SeenRequest { auth: string | undefined; body: { model: string; messages: Array<{ role: string; content: unknown; tool_calls?: unknown[] }>; tools?: Array<{ function: { name: string } }> } }

function sse(res: http.ServerResponse, chunks: unknown[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const c of chunks) res.write(`data: ${JSON.stringify(c)}\n\n`);
  res.end('data: [DONE]\n\n');
}

describe('OpenAI-compatible model provider', function () {
  this.timeout(60_000);
  let server: http.Server;
  let url: string;
  const seen: SeenRequest[] = [];

  before(async () => {
    await scrollApi();
    server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (d) => (raw += d));
      req.on('end', () => {
        const body = JSON.parse(raw);
        seen.push({ auth: req.headers.authorization, body });
        const last = body.messages[body.messages.length - 1];
        if (last.role === 'tool') {
          sse(res, [{ choices: [{ index: 0, delta: { content: `tool said: ${last.content}` } }] }]);
        } else if (String(last.content).includes('use a tool')) {
          sse(res, [
            { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'scroll_searchHistory', arguments: '{"query":' } }] } }] },
            { choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: '"ledger"}' } }] }, finish_reason: 'tool_calls' }] },
          ]);
        } else {
          sse(res, [{ choices: [{ index: 0, delta: { content: 'Hello ' } }] }, { choices: [{ index: 0, delta: { content: 'from the fake server' } }] }]);
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });

  after(async () => {
    const c = vscode.workspace.getConfiguration('scroll');
    await c.update('openai.baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await c.update('openai.model', undefined, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('scroll.setOpenAIKey', '');
    server.close();
  });

  it('is off until configured, then offers the configured model', async () => {
    assert.equal((await vscode.lm.selectChatModels({ vendor: 'scroll' })).length, 0);
    const c = vscode.workspace.getConfiguration('scroll');
    await c.update('openai.baseUrl', url, vscode.ConfigurationTarget.Global);
    await c.update('openai.model', 'fake-coder', vscode.ConfigurationTarget.Global);
    const [model] = await waitFor('the scroll model', async () => {
      const m = await vscode.lm.selectChatModels({ vendor: 'scroll' });
      return m.length ? m : undefined;
    }, 20_000, 200);
    assert.equal(model.family, 'fake-coder');
    assert.equal(model.maxInputTokens, 32768);
  });

  it('streams text and tool calls from the server, with the key from SecretStorage', async () => {
    await vscode.commands.executeCommand('scroll.setOpenAIKey', 'sk-test-123');
    const [model] = await vscode.lm.selectChatModels({ vendor: 'scroll' });
    const token = new vscode.CancellationTokenSource().token;
    let text = '';
    for await (const t of (await model.sendRequest([vscode.LanguageModelChatMessage.User('hi')], {}, token)).text) text += t;
    assert.equal(text, 'Hello from the fake server');
    assert.equal(seen.at(-1)!.auth, 'Bearer sk-test-123');
    assert.equal(seen.at(-1)!.body.model, 'fake-coder');

    const tools: vscode.LanguageModelChatTool[] = [{ name: 'scroll_searchHistory', description: 'search', inputSchema: { type: 'object', properties: { query: { type: 'string' } } } }];
    const calls: vscode.LanguageModelToolCallPart[] = [];
    for await (const p of (await model.sendRequest([vscode.LanguageModelChatMessage.User('please use a tool')], { tools }, token)).stream) {
      if (p instanceof vscode.LanguageModelToolCallPart) calls.push(p);
    }
    assert.equal(calls.length, 1);
    assert.equal(calls[0].name, 'scroll_searchHistory');
    assert.deepEqual(calls[0].input, { query: 'ledger' });
    assert.deepEqual(seen.at(-1)!.body.tools!.map((t) => t.function.name), ['scroll_searchHistory']);

    // The tool result goes back as a `tool` message answering the call.
    const followUp = [
      vscode.LanguageModelChatMessage.User('please use a tool'),
      vscode.LanguageModelChatMessage.Assistant([new vscode.LanguageModelToolCallPart('call_1', 'scroll_searchHistory', { query: 'ledger' })]),
      vscode.LanguageModelChatMessage.User([new vscode.LanguageModelToolResultPart('call_1', [new vscode.LanguageModelTextPart('3 hits')])]),
    ];
    let answer = '';
    for await (const t of (await model.sendRequest(followUp, { tools }, token)).text) answer += t;
    assert.equal(answer, 'tool said: 3 hits');
    const msgs = seen.at(-1)!.body.messages;
    assert.equal(msgs[1].role, 'assistant');
    assert.equal(msgs[2].role, 'tool');
  });
});
