// @scroll end to end in the real host: the scripted model (test fixture) drives a multi-turn coding task
// in the sample workspace through the Chat view. It reads and edits a file (the edit's confirmation is
// accepted the way a user would), runs Python through scroll_exec, the working view evicts under a small
// budget, and a later turn finds an evicted fact again with ms.search. The log holds every event.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ScrollApi } from '../../../src/api';
import { statusText } from '../../../src/vscode/statusBar';
import { eventsOfSession, scrollApi, sendToScroll, waitFor, workspaceRoot } from './helpers';

interface DescribedPart { type: string; value?: string; name?: string; callId?: string; content?: DescribedPart[] }
interface DescribedMessage { role: string; parts: DescribedPart[]; text: string }
interface RecordedRequest { seq: number; messages: DescribedMessage[]; tools: Array<{ name: string }>; source: string }
interface Turn { text?: string; toolCalls?: Array<{ name: string; input: Record<string, unknown> }> }
interface ScriptedLmApi {
  vendor: string;
  setScript(script: unknown): void;
  reset(): void;
  readonly requests: RecordedRequest[];
}

const BUDGET = 3000;
const CODE_WORD = 'PELICAN-42';
const OLD_LINE = '            print("%s %s" % (currency, total))';
const NEW_LINE = '            print(f"{currency} {total:.2f}")';
const FILLER = 'ledger row '.repeat(1000); // ~11,000 characters: a large result, externalised to the payload store

/** What the scripted model answers at each step of each tagged user turn. */
const PLAN: Record<string, Array<(req: RecordedRequest) => Turn>> = {
  T1: [
    () => ({ text: 'Reading the report first.', toolCalls: [{ name: 'scroll_readFile', input: { path: 'ledger_sync/report.py' } }] }),
    () => ({ toolCalls: [{ name: 'scroll_editFile', input: { path: 'ledger_sync/report.py', oldText: OLD_LINE, newText: NEW_LINE } }] }),
    () => ({
      toolCalls: [{
        name: 'scroll_exec',
        input: { code: "import subprocess, sys\nr = subprocess.run([sys.executable, '-m', 'ledger_sync.report', 'data/invoices-2026-10.csv'], capture_output=True, text=True)\nprint(r.stdout)" },
      }],
    }),
    (req) => ({ text: `Fixed: totals print with two decimals now. Report output:\n${lastToolResult(req)}\ndone T1` }),
  ],
  FILL: [
    () => ({ toolCalls: [{ name: 'scroll_exec', input: { code: `rows = ${JSON.stringify(FILLER)}\nprint(rows)` } }] }),
    (req) => ({ text: `Printed ${lastToolResult(req).length} characters. done ${tagOf(req)}` }),
  ],
  RECALL: [
    () => ({
      text: 'That was said a while ago; searching the log.',
      toolCalls: [{ name: 'scroll_exec', input: { code: "for e in ms.expand(ms.search('release code word', k=5, kind='user_message')):\n    print(e['seq'], e['content'])" } }],
    }),
    (req) => {
      const found = /PELICAN-\d+/.exec(lastToolResult(req));
      return { text: `The release code word is ${found ? found[0] : 'unknown'}. done RECALL` };
    },
  ],
};

function tagOf(req: RecordedRequest): string {
  return currentUser(req).tag;
}

function currentUser(req: RecordedRequest): { tag: string; index: number } {
  for (let i = req.messages.length - 1; i >= 0; i--) {
    const m = req.messages[i];
    if (m.role !== 'user') continue;
    for (const p of m.parts) {
      const t = p.type === 'text' ? /^\[(T1|FILL\d+|RECALL)\]/.exec(p.value ?? '') : null;
      if (t) return { tag: t[1], index: i };
    }
  }
  throw new Error('no tagged user message in the request');
}

function lastToolResult(req: RecordedRequest): string {
  for (let i = req.messages.length - 1; i >= 0; i--) {
    const r = req.messages[i].parts.filter((p) => p.type === 'toolResult');
    if (r.length) return r.map((p) => (p.content ?? []).map((c) => c.value ?? '').join('')).join('\n');
  }
  return '';
}

function isTitleRequest(req: RecordedRequest): boolean {
  return req.messages.some((m) => m.text.includes('You write index titles'));
}

function reply(req: RecordedRequest): Turn {
  if (isTitleRequest(req)) return { text: JSON.stringify({ task: 'ledger report work', state: 'earlier steps done', next: 'continue with the user request' }) };
  const { tag, index } = currentUser(req);
  const step = req.messages.slice(index + 1).filter((m) => m.role === 'assistant').length;
  const plan = PLAN[tag.startsWith('FILL') ? 'FILL' : tag];
  if (!plan[step]) return { text: `no plan for ${tag} step ${step}` };
  return plan[step](req);
}

describe('@scroll in the Chat view (scripted model)', function () {
  this.timeout(240_000);
  let api: ScrollApi;
  let lm: ScriptedLmApi;
  let turnsDone = 0;

  before(async () => {
    api = await scrollApi();
    lm = await vscode.extensions.getExtension<ScriptedLmApi>('scroll-test.scripted-lm')!.activate();
    lm.reset();
    lm.setScript({ rules: [{ match: /[\s\S]*/, reply }] });
    await vscode.workspace.getConfiguration('scroll').update('view.maxTokens', BUDGET, vscode.ConfigurationTarget.Global);
    await waitFor('the scripted model', async () => (await vscode.lm.selectChatModels({ vendor: lm.vendor })).length > 0);
    // A chat of its own: an @scroll message sent in an earlier test file's chat would otherwise be part of this session.
    await vscode.commands.executeCommand('workbench.action.chat.newChat');
  });

  after(async () => {
    await vscode.workspace.getConfiguration('scroll').update('view.maxTokens', undefined, vscode.ConfigurationTarget.Global);
    lm.reset();
  });

  /** Sends one message through the Chat view and waits until @scroll has answered it. */
  async function send(tag: string, text: string, opts: { approveTools?: boolean } = {}): Promise<void> {
    await sendToScroll(api, lm.vendor, tag, text, opts);
    turnsDone++;
  }

  const sessionEvents = (session: string) => eventsOfSession(api, session);

  it('runs a multi-turn coding task: read, confirmed edit, Python, eviction, recall of an evicted fact', async () => {
    const file = path.join(workspaceRoot(), 'ledger_sync', 'report.py');
    assert.ok(fs.readFileSync(file, 'utf8').includes(OLD_LINE.trim()), 'the sample file has the line to fix');

    await send('T1', `Totals print without fixed decimals; fix ledger_sync/report.py. By the way, the release code word is ${CODE_WORD}.`, { approveTools: true });
    const session = api.activeSession()!;
    assert.match(session, /^chat-/);
    assert.ok(fs.readFileSync(file, 'utf8').includes(NEW_LINE.trim()), 'the confirmed edit reached the file on disk');

    // Fill the view with large outputs until the first turn has been evicted.
    const t1User = sessionEvents(session).find((e) => e.kind === 'user_message')!;
    for (let i = 1; i <= 8; i++) {
      await send(`FILL${i}`, 'print the raw ledger rows again');
      const evicted = sessionEvents(session).some((e) => e.kind === 'eviction' && Number(e.meta.from_seq) <= t1User.seq && Number(e.meta.to_seq) >= t1User.seq);
      if (evicted) break;
    }
    await send('RECALL', 'What was the release code word I mentioned?');

    const events = sessionEvents(session);
    const kinds = (k: string) => events.filter((e) => e.kind === k);
    // One session across all turns (ChatResult.metadata read back from the chat history).
    assert.equal(kinds('user_message').length, turnsDone, 'every user message is logged in one session');
    assert.equal(new Set(kinds('user_message').map((e) => e.session)).size, 1);
    // Every model call of the agent loop is a model_turn; every tool call has its result.
    const agentRequests = lm.requests.filter((r) => !isTitleRequest(r));
    assert.equal(kinds('model_turn').length, agentRequests.length, 'every model turn is logged');
    assert.equal(kinds('tool_call').length, kinds('tool_result').length);
    assert.deepEqual(kinds('tool_call').slice(0, 3).map((e) => e.name), ['scroll_readFile', 'scroll_editFile', 'scroll_exec']);
    const readResult = kinds('tool_result')[0];
    assert.ok(readResult.content.includes('def monthly_totals'), 'the file read is logged');
    assert.match(kinds('tool_result')[1].content, /^Edited ledger_sync\/report\.py/);
    // Python ran in the session kernel, cells logged in the step.
    assert.ok(kinds('kernel_exec').length >= 3 && kinds('kernel_exec').length === kinds('kernel_output').length);
    assert.match(kinds('kernel_output')[0].content, /EUR \d+\.\d\d/);
    assert.ok(kinds('tool_result').some((e) => e.payload), 'a large output went to the payload store');
    // The view stayed within its budget and evicted.
    for (const t of kinds('model_turn')) {
      assert.ok(Number(t.meta.viewTokens) <= BUDGET, `view ${t.meta.viewTokens} tokens at seq ${t.seq} over ${BUDGET}`);
      assert.equal(Number(t.meta.budget), BUDGET);
    }
    assert.ok(kinds('eviction').length >= 1, 'the view evicted');
    // The recall turn: the fact was out of the view, came back through ms.search, and the answer has it.
    const recallReqs = agentRequests.filter((r) => currentUser(r).tag === 'RECALL');
    assert.equal(recallReqs.length, 2);
    const withoutToolResults = (r: RecordedRequest) => r.messages.map((m) => m.parts.filter((p) => p.type !== 'toolResult').map((p) => p.value ?? '').join('')).join('\n');
    assert.ok(!withoutToolResults(recallReqs[0]).includes(CODE_WORD), 'the code word had left the working view');
    assert.ok(lastToolResult(recallReqs[1]).includes(CODE_WORD), `ms.search brought it back into the view; the cell printed: ${lastToolResult(recallReqs[1]).slice(0, 500)}`);
    assert.ok(kinds('model_turn').at(-1)!.content.includes(`The release code word is ${CODE_WORD}`));

    // Status bar figures follow the session.
    const figures = api.services.sessions.figuresOf(session)!;
    assert.equal(figures.budget, BUDGET);
    const status = statusText(api.services);
    assert.match(status.text, /\/3k tokens · Python (idle|busy)/);
    assert.match(status.tooltip, new RegExp(session));

    // /index lists the evicted segments; the index tab and a segment tab open.
    const indexUri = await vscode.commands.executeCommand<string>('scroll.showEvictionIndex', session);
    const indexText = vscode.window.activeTextEditor!.document.getText();
    assert.equal(vscode.Uri.parse(indexUri).path, `/index/${session}/Eviction index · ${session}.md`);
    assert.match(indexText, /evicted segment/);
    const ev = kinds('eviction')[0];
    const segment = await vscode.workspace.openTextDocument(vscode.Uri.parse(`scroll:/segment/${ev.seq}.md`));
    assert.ok(segment.getText().includes(`## seq ${ev.meta.from_seq} · `));
  });

  it('/search and /expand answer from the log without the model', async () => {
    const requests = lm.requests.length;
    const before = api.services.sessions.turnsCompleted;
    await vscode.commands.executeCommand('workbench.action.chat.open', { query: '@scroll /search release code word', modelSelector: { vendor: lm.vendor } });
    await waitFor('/search to finish', () => api.services.sessions.turnsCompleted > before, 30_000);
    await vscode.commands.executeCommand('workbench.action.chat.open', { query: '@scroll /expand 1..2', modelSelector: { vendor: lm.vendor } });
    await waitFor('/expand to finish', () => api.services.sessions.turnsCompleted > before + 1, 30_000);
    assert.equal(lm.requests.length, requests, 'slash commands do not call the model');
  });

  it('a model error ends the turn with a clear message; the failure is logged', async () => {
    const session = api.activeSession()!;
    lm.setScript({ turns: [{ error: { code: 'Blocked', message: 'quota exhausted' } }] });
    const before = api.services.sessions.turnsCompleted;
    await vscode.commands.executeCommand('workbench.action.chat.open', { query: '@scroll [ERR] hello again', modelSelector: { vendor: lm.vendor } });
    await waitFor('the failed turn to end', () => api.services.sessions.turnsCompleted > before, 60_000, 200);
    const recent = api.services.existingLog()!.recent(3, session);
    assert.equal(recent.find((e) => e.kind === 'user_message')?.content, '[ERR] hello again', 'the message is kept');
    const note = recent.find((e) => e.kind === 'note');
    assert.ok(note, 'the failure is in the log');
    assert.match(note.content, /model call failed.*(is blocked for Scroll|quota exhausted)/s);
  });

  it('a fresh agent loop (as after a window reload) continues the session from the log', async () => {
    // After a reload the participant has no loop in memory; ChatResult.metadata gives it the session id
    // and the loop is rebuilt from the log. Here: a new AgentSession on the same session and log.
    const { AgentSession } = await import('../../../src/vscode/chat/agentSession');
    const session = api.activeSession()!;
    const [model] = await vscode.lm.selectChatModels({ vendor: lm.vendor });
    lm.setScript({ rules: [{ match: /[\s\S]*/, reply: () => ({ text: 'still here' }) }] });
    const before = lm.requests.length;
    const fresh = new AgentSession(session, api.services);
    const r = await fresh.run('[AFTER] are you still there?', model, {
      toolInvocationToken: undefined,
      token: new vscode.CancellationTokenSource().token,
      onProgress: () => undefined,
    });
    assert.equal(r.text, 'still here');
    const first = lm.requests[before];
    assert.match(first.messages[0].text, /Evicted from this view/, 'the rebuilt view carries the eviction index');
    assert.ok(first.messages.some((m) => m.text.includes(`The release code word is ${CODE_WORD}`)), 'the previous turn is in the rebuilt view');
    assert.equal(api.get(r.userSeq)!.session, session, 'the new message joins the same session');
  });

  it('/new starts a new session; later requests in the chat use it (metadata read back)', async () => {
    const old = api.activeSession();
    const send = async (query: string) => {
      const before = api.services.sessions.turnsCompleted;
      await vscode.commands.executeCommand('workbench.action.chat.open', { query, modelSelector: { vendor: lm.vendor } });
      await waitFor(`"${query}" to finish`, () => api.services.sessions.turnsCompleted > before, 30_000, 200);
    };
    await send('@scroll /new');
    const fresh = api.activeSession();
    assert.ok(fresh && fresh !== old, `a new session (${old} → ${fresh})`);
    await send('@scroll /index');
    assert.equal(api.activeSession(), fresh, 'the next request found the new session in the chat history');
  });
});
