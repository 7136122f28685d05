// In the real host: the "Scroll memory" MCP server definition starts a server that answers tools/list
// with the editor's own runtime; @scroll offers a tool of another extension (test/fixtures/toolbox-tool,
// allowed by tag through scroll.chat.tools), the scripted model calls it, its confirmation is accepted,
// and the call and its result are in the log; after an edit that breaks a JSON file, the problems the
// JSON language server reports reach the model in the tool result.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ScrollApi } from '../../../src/api';
import { eventsOfSession, scrollApi, scrollId, sendToScroll, sleep, waitFor, workspaceRoot } from './helpers';

interface DescribedPart { type: string; value?: string; content?: DescribedPart[] }
interface RecordedRequest { messages: { role: string; parts: DescribedPart[]; text: string }[]; tools: Array<{ name: string }> }
interface ScriptedLmApi {
  vendor: string;
  setScript(script: unknown): void;
  reset(): void;
  readonly requests: RecordedRequest[];
}

const DIAG_FILE = 'toolbox-diag.json';

function lastToolResult(req: RecordedRequest): string {
  for (let i = req.messages.length - 1; i >= 0; i--) {
    const r = req.messages[i].parts.filter((p) => p.type === 'toolResult');
    if (r.length) return r.map((p) => (p.content ?? []).map((c) => c.value ?? '').join('')).join('\n');
  }
  return '';
}

function turnOf(req: RecordedRequest): { tag: string; step: number } {
  for (let i = req.messages.length - 1; i >= 0; i--) {
    const m = req.messages[i];
    const t = m.role === 'user' ? /\[(TB\w+)\]/.exec(m.text) : null;
    if (t) return { tag: t[1], step: req.messages.slice(i + 1).filter((x) => x.role === 'assistant').length };
  }
  return { tag: '', step: 0 };
}

function reply(req: RecordedRequest) {
  if (req.messages.some((m) => m.text.includes('You write index titles'))) return { text: JSON.stringify({ task: 'toolbox', state: 'done', next: 'none' }) };
  const { tag, step } = turnOf(req);
  if (tag === 'TBTOOL' && step === 0) return { toolCalls: [{ name: 'fixture_lookupForecast', input: { city: 'Lisbon' } }] };
  if (tag === 'TBDIAG' && step === 0) return { toolCalls: [{ name: 'scroll_editFile', input: { path: DIAG_FILE, oldText: '"b": 2', newText: '"b": 2 "c": 3' } }] };
  return { text: `done ${tag}: ${lastToolResult(req).slice(0, 2000)}` };
}

describe('the editor toolbox and the MCP server definition', function () {
  this.timeout(240_000);
  let api: ScrollApi;
  let lm: ScriptedLmApi;

  before(async () => {
    api = await scrollApi();
    lm = await vscode.extensions.getExtension<ScriptedLmApi>('scroll-test.scripted-lm')!.activate();
    lm.reset();
    lm.setScript({ rules: [{ match: /[\s\S]*/, reply }] });
    await vscode.workspace.getConfiguration('scroll').update('chat.tools', ['scroll-fixture'], vscode.ConfigurationTarget.Global);
    await waitFor('the scripted model', async () => (await vscode.lm.selectChatModels({ vendor: lm.vendor })).length > 0);
  });

  after(async () => {
    await vscode.workspace.getConfiguration('scroll').update('chat.tools', undefined, vscode.ConfigurationTarget.Global);
    lm.reset();
  });

  // What a user does when a tool's confirmation appears: press Allow.
  const send = (tag: string, text: string) => sendToScroll(api, lm.vendor, tag, text, { approveTools: true });
  const sessionEvents = (session: string) => eventsOfSession(api, session);

  it('the MCP server definition runs with the editor runtime and answers tools/list', async () => {
    const launch = api.mcpServer();
    assert.ok(launch, 'a definition for the workspace');
    assert.equal(launch.label, 'Scroll memory');
    assert.equal(launch.command, process.execPath);
    assert.equal(launch.env.ELECTRON_RUN_AS_NODE, '1');
    assert.ok(!launch.args.includes('--read-only'), 'trusted: not read-only');
    const manifest = vscode.extensions.getExtension(scrollId)!.packageJSON;
    assert.deepEqual(manifest.contributes.mcpServerDefinitionProviders.map((p: { id: string }) => p.id), ['scroll.memory']);
    const transport = new StdioClientTransport({ command: launch.command, args: launch.args, env: { ...(process.env as Record<string, string>), ...launch.env }, cwd: launch.cwd, stderr: 'pipe' });
    const client = new Client({ name: 'host-test', version: '1' });
    await client.connect(transport);
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      assert.deepEqual(tools, ['history_index'], 'the tools Scroll already offers as language-model tools are left out');
      const r = (await client.callTool({ name: 'history_index', arguments: {} })) as { content: { text: string }[]; isError?: boolean };
      assert.ok(!r.isError, r.content[0].text);
      assert.ok(Array.isArray(JSON.parse(r.content[0].text).sessions));
      const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
      assert.ok(templates.includes('scroll:/event/{seq}.md'));
    } finally {
      await client.close();
    }
  });

  it("@scroll offers another extension's tool, calls it after its confirmation, and logs call and result", async () => {
    const fixture = await vscode.extensions.getExtension<{ invocations: unknown[] }>('scroll-test.toolbox-tool')!.activate();
    const calls = fixture.invocations.length;
    const requests = lm.requests.length;
    await send('TBTOOL', 'What is the forecast for Lisbon?');
    const mine = lm.requests.slice(requests).filter((r) => turnOf(r).tag === 'TBTOOL');
    const offered = mine[0].tools.map((t) => t.name);
    assert.ok(offered.includes('fixture_lookupForecast'), `offered: ${offered.join(', ')}`);
    assert.ok(!offered.some((n) => /history_index|search_history|read_events|run_python/.test(n)), "Scroll's own MCP tools are not offered back");
    assert.equal(fixture.invocations.length, calls + 1, 'the fixture tool ran once (its confirmation was accepted)');
    assert.match(lastToolResult(mine[1]), /Forecast for Lisbon: FIXTURE-SUNNY-6/);
    const events = sessionEvents(api.activeSession()!);
    const call = events.filter((e) => e.kind === 'tool_call' && e.name === 'fixture_lookupForecast').at(-1)!;
    assert.ok(call, 'the call is logged');
    // By the call's seq: the scripted model reuses call ids, so an earlier test's result in this session can share one.
    const result = events.find((e) => e.kind === 'tool_result' && e.parentSeq === call.seq)!;
    assert.equal(result.content, 'Forecast for Lisbon: FIXTURE-SUNNY-6', 'the full result is logged');
  });

  it('after an edit that breaks a JSON file, the model sees the problems the language server reports', async () => {
    const file = path.join(workspaceRoot(), DIAG_FILE);
    fs.writeFileSync(file, '{\n  "a": 1,\n  "b": 2\n}\n');
    // Open it once so the JSON language server is running before the edit.
    await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    await sleep(2000);
    const requests = lm.requests.length;
    await send('TBDIAG', `Add "c": 3 to ${DIAG_FILE}.`);
    assert.match(fs.readFileSync(file, 'utf8'), /"b": 2 "c": 3/, 'the confirmed edit reached the file');
    const mine = lm.requests.slice(requests).filter((r) => turnOf(r).tag === 'TBDIAG');
    const seen = lastToolResult(mine[1]);
    assert.match(seen, /\[problems the editor reports in the edited files now\]\ntoolbox-diag\.json:3:\d+ error: /, seen);
  });
});
