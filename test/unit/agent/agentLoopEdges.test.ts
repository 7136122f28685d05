import { test, describe, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../src/core/log/eventLog';
import { AgentLoop } from '../../../src/core/agent/agentLoop';
import { CancelledError } from '../../../src/core/errors';
import { ViewBudgetError } from '../../../src/core/agent/errors';
import { ScriptedModelClient, requestText, type ScriptedTurn } from '../../../src/core/agent/testing/scriptedModel';
import type { AgentTool } from '../../../src/core/agent/tools';
import type { Kernel } from '../../../src/core/kernel/kernel';

const FakeEchoTool: AgentTool = {
  definition: { name: 'echo', description: 'echo', inputSchema: { type: 'object' } },
  async invoke(input) {
    return String(input.text ?? '');
  },
};

const FakeDangerousTool: AgentTool = {
  needsConfirmation: true,
  definition: { name: 'danger', description: 'needs confirmation', inputSchema: { type: 'object' } },
  async invoke() {
    return 'ran';
  },
};

describe('AgentLoop edges', () => {
  let dir: string;
  let log: EventLog;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'scroll-agent-edges-'));
    log = EventLog.open({ workspace: dir, session: 'e' });
  });
  afterEach(() => {
    log.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const kinds = () => [...log.iterateSession('e')].map((e) => `${e.kind}${e.name ? `:${e.name}` : ''}`);

  test('cancel during a tool: every call of the turn gets a result, the next message works', async () => {
    const ac = new AbortController();
    const FakeSlowTool: AgentTool = {
      definition: { name: 'slow', description: 'slow', inputSchema: { type: 'object' } },
      invoke: (_i, ctx) =>
        new Promise((_resolve, reject) => {
          ac.abort();
          ctx.signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
          if (ctx.signal?.aborted) reject(new Error('aborted'));
        }),
    };
    const model = new ScriptedModelClient([
      { toolCalls: [{ id: 'a', name: 'slow' }, { id: 'b', name: 'echo', input: { text: 'never' } }] },
      (req) => {
        const tools = req.messages.filter((m) => m.role === 'tool').map((m) => m.content);
        assert.deepEqual(tools, ['cancelled by the user', 'not run: cancelled by the user']);
        return { text: 'fine' };
      },
    ]);
    const loop = AgentLoop.open({ log, session: 'e', model, tools: [FakeSlowTool, FakeEchoTool] });
    await assert.rejects(loop.run('go', { signal: ac.signal }), CancelledError);
    assert.deepEqual(kinds(), ['user_message', 'model_turn:scripted', 'tool_call:slow', 'tool_result:slow', 'tool_call:echo', 'tool_result:echo']);
    assert.equal((await loop.run('again')).text, 'fine');
  });

  test('a model failure is logged as a note and reported; nothing is lost', async () => {
    const model = new ScriptedModelClient([{ text: 'partial', error: new Error('server went away') }, { text: 'ok now' }]);
    const loop = AgentLoop.open({ log, session: 'e', model });
    await assert.rejects(loop.run('first'), /server went away/);
    assert.deepEqual(kinds(), ['user_message', 'note']);
    const note = [...log.iterateSession('e')][1];
    assert.match(note.content, /model call failed at step 1: server went away/);
    assert.equal(note.meta.partialText, 'partial');
    assert.equal((await loop.run('second')).text, 'ok now');
  });

  test('confirmation, unknown tools and bad arguments become tool results the model can read', async () => {
    const asked: string[] = [];
    const model = new ScriptedModelClient([
      { toolCalls: [{ id: '1', name: 'danger' }, { id: '2', name: 'nope' }, { id: '3', name: 'echo', inputError: 'arguments are not valid JSON' }, { id: '4', name: 'echo', input: { text: 'hi' } }] },
      (req): ScriptedTurn => {
        const tools = req.messages.filter((m) => m.role === 'tool').map((m) => m.content);
        assert.match(tools[0], /the user did not allow danger to run/);
        assert.match(tools[1], /there is no tool named "nope"; available: echo, danger/);
        assert.match(tools[2], /tool call rejected: arguments are not valid JSON/);
        assert.equal(tools[3], 'hi');
        return { text: 'done' };
      },
      { toolCalls: [{ id: '5', name: 'danger' }] },
      { text: 'ran it' },
    ]);
    let allow = false;
    const loop = AgentLoop.open({
      log, session: 'e', model, tools: [FakeEchoTool, FakeDangerousTool],
      confirm: async ({ call }) => {
        asked.push(call.name);
        return allow;
      },
    });
    assert.equal((await loop.run('try things')).text, 'done');
    allow = true;
    assert.equal((await loop.run('now allowed')).text, 'ran it');
    assert.deepEqual(asked, ['danger', 'danger']);
    const results = [...log.iterateSession('e')].filter((e) => e.kind === 'tool_result');
    assert.equal(results[results.length - 1].content, 'ran');
    assert.equal(results[0].meta.isError, true);
  });

  test('large results and secrets: the view shows what the log holds (preview + payload handle, redacted), also after a restart', async () => {
    const big = Array.from({ length: 3000 }, (_, i) => `row ${i}: ${'v'.repeat(20)}`).join('\n');
    const secret = 'AKIAIOSFODNN7EXAMPLE';
    const model = new ScriptedModelClient([
      { toolCalls: [{ id: 'big', name: 'echo', input: { text: big } }, { id: 'sec', name: 'echo', input: { text: `key ${secret}` } }] },
      (req) => {
        const text = requestText(req);
        assert.ok(!text.includes(secret), 'the secret never reaches the model');
        assert.match(text, /preview only: [\d,]+ characters in all\. The full copy is seq \d+, payload [0-9a-f]{12}…/);
        return { text: 'seen' };
      },
    ]);
    const loop = AgentLoop.open({ log, session: 'e', model, tools: [FakeEchoTool], maxViewTokens: 6000 });
    await loop.run('show me');
    const result = [...log.iterateSession('e')].find((e) => e.kind === 'tool_result' && e.toolCallId === 'big')!;
    assert.ok(result.payload, 'the log externalized the large result');
    assert.equal(result.content, big, 'the log keeps it whole');
    const again = AgentLoop.open({ log, session: 'e', model, tools: [FakeEchoTool], maxViewTokens: 6000 });
    assert.equal(again.view.fingerprint(), loop.view.fingerprint());
  });

  test('a session whose payload file is gone still resumes: the model sees that event\'s preview and why the rest is missing', async () => {
    const big = Array.from({ length: 3000 }, (_, i) => `row ${i}: ${'v'.repeat(20)}`).join('\n');
    const model = new ScriptedModelClient([
      { toolCalls: [{ id: 'big', name: 'echo', input: { text: big } }] },
      { text: 'seen' },
      (req) => {
        assert.match(requestText(req), /Only the first 512 characters of this event \(\d+ bytes\) can be shown: its payload file cannot be read/);
        return { text: 'resumed' };
      },
    ]);
    const loop = AgentLoop.open({ log, session: 'e', model, tools: [FakeEchoTool] });
    await loop.run('show me');
    const result = [...log.iterateSession('e')].find((e) => e.kind === 'tool_result')!;
    unlinkSync(log.payloads.pathFor(result.payload!));
    // Rebuilt by a plain replay of the log's ranges (a log that offers nothing else), then by the session's own reads.
    const rangesOnly = { append: log.append.bind(log), maxSeq: log.maxSeq.bind(log), range: log.range.bind(log) };
    assert.match(AgentLoop.open({ log: rangesOnly, session: 'e', model, tools: [FakeEchoTool] }).view.render().map((m) => m.content).join('\n'), /payload file cannot be read/);
    const again = AgentLoop.open({ log, session: 'e', model, tools: [FakeEchoTool] });
    assert.equal((await again.run('go on')).text, 'resumed');
  });

  test('a budget too small for the system prompt is a clear error, logged as a note', async () => {
    const model = new ScriptedModelClient([{ text: 'never' }]);
    const loop = AgentLoop.open({ log, session: 'e', model, maxViewTokens: 300 });
    await assert.rejects(loop.run('hello'), (e: unknown) => e instanceof ViewBudgetError && /budget is 300/.test((e as Error).message));
    assert.deepEqual(kinds(), ['user_message', 'note']);
    assert.equal(model.turns, 0);
  });

  test('with a kernel that does not log itself, scroll_exec logs the cell and its output under the call', async () => {
    const FakeKernel: Kernel = {
      backend: 'subprocess',
      status: 'idle',
      onStatus: () => ({ dispose() {} }),
      async execute(code) {
        return { stdout: `ran ${code.length} chars\n`, stderr: '', error: null, durationMs: 1, variables: [{ name: 'df', type: 'list', size: '3 items' }] };
      },
      async restart() {},
      async dispose() {},
    };
    const model = new ScriptedModelClient([
      { toolCalls: [{ id: 'k', name: 'scroll_exec', input: { code: 'df = [1, 2, 3]' } }] },
      (req) => {
        assert.match(req.messages[0].content, /## Kernel variables[\s\S]*- df: list, 3 items \(since seq \d+\)/);
        assert.equal(req.messages[req.messages.length - 1].content, 'ran 14 chars');
        return { text: 'ok' };
      },
    ]);
    const loop = AgentLoop.open({ log, session: 'e', model, kernel: FakeKernel });
    await loop.run('compute');
    const evs = [...log.iterateSession('e')];
    assert.deepEqual(evs.map((e) => e.kind), ['user_message', 'model_turn', 'tool_call', 'kernel_exec', 'kernel_output', 'tool_result', 'model_turn']);
    const [call, exec, output, result] = evs.slice(2, 6);
    assert.equal(exec.parentSeq, call.seq);
    assert.equal(exec.content, 'df = [1, 2, 3]');
    assert.equal(output.parentSeq, exec.seq);
    assert.equal(result.parentSeq, call.seq);
    assert.deepEqual(result.meta.variables, [{ name: 'df', type: 'list', size: '3 items' }]);
    assert.equal(exec.step, 1);
  });

  test('one message at a time per loop; empty messages are refused', async () => {
    const model = new ScriptedModelClient([{ text: 'x' }]);
    const loop = AgentLoop.open({ log, session: 'e', model });
    await assert.rejects(loop.run('   '), /empty/);
    const first = loop.run('a');
    await assert.rejects(loop.run('b'), /already handling a message/);
    await first;
  });
});
