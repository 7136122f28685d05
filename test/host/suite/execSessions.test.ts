// Two @scroll sessions running Python at the same time: each cell runs in its own session's kernel and
// is logged in its own session. (Before the kernel was handed to the agent loop, scroll_exec went
// through vscode.lm.invokeTool and picked "the first pending exec without output": session B's cell
// ran in session A's kernel, was logged under A, and B's model was told the cell had been skipped.)
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ScrollApi } from '../../../src/api';
import type { AgentSession } from '../../../src/vscode/chat/agentSession';
import { scrollApi, waitFor } from './helpers';

interface RecordedRequest { messages: Array<{ role: string; text: string; parts: Array<{ type: string; value?: string; content?: Array<{ value?: string }> }> }> }
interface ScriptedLm { vendor: string; setScript(s: unknown): void; reset(): void }

const SLOW_CELL = "import time\nwho = 'A'\ntime.sleep(2.5)\nprint('RACE-A ran as', who)";
const FAST_CELL = "print('RACE-B ran; who is', globals().get('who'))";

/** The tag of the request's user message ([RACE-A] or [RACE-B]) and whether a tool result came back. */
function reply(req: RecordedRequest) {
  const user = req.messages.filter((m) => m.role === 'user' && /\[RACE-[AB]\]/.test(m.text)).at(-1);
  const tag = /\[RACE-([AB])\]/.exec(user?.text ?? '')?.[1];
  const answered = req.messages.some((m) => m.parts.some((p) => p.type === 'toolResult'));
  if (!tag) return { text: 'no tag' };
  if (answered) return { text: `done ${tag}` };
  return { toolCalls: [{ name: 'scroll_exec', input: { code: tag === 'A' ? SLOW_CELL : FAST_CELL } }] };
}

describe('two @scroll sessions run Python at once', function () {
  this.timeout(180_000);
  let api: ScrollApi;
  let lm: ScriptedLm;
  const sessions = [`race-a-${Date.now()}`, `race-b-${Date.now()}`];

  before(async () => {
    api = await scrollApi();
    lm = await vscode.extensions.getExtension<ScriptedLm>('scroll-test.scripted-lm')!.activate();
    lm.reset();
    lm.setScript({ rules: [{ match: /[\s\S]*/, reply }] });
  });

  after(async () => {
    lm.reset();
    for (const s of sessions) await api.services.kernels.stop(s);
  });

  it("each session's cell runs in its own kernel and is logged in its own session", async () => {
    const { AgentSession: Session } = await import('../../../src/vscode/chat/agentSession');
    const [model] = await vscode.lm.selectChatModels({ vendor: lm.vendor });
    assert.ok(model, 'the scripted model');
    const log = api.services.logs.log();
    const start = log.maxSeq();
    const hooks = () => ({ toolInvocationToken: undefined, token: new vscode.CancellationTokenSource().token, onProgress: () => undefined });
    const [a, b]: AgentSession[] = sessions.map((s) => new Session(s, api.services));

    const runA = a.run('[RACE-A] run the slow cell', model, hooks());
    // B's cell is sent while A's is still running.
    await waitFor("A's cell to start", () => log.range(start + 1, log.maxSeq()).some((e) => e.kind === 'kernel_exec' && e.content.includes('RACE-A')), 60_000, 50);
    const runB = b.run('[RACE-B] run the fast cell', model, hooks());
    const [ra, rb] = await Promise.all([runA, runB]);
    assert.equal(ra.text, 'done A');
    assert.equal(rb.text, 'done B');

    const events = log.range(start + 1, log.maxSeq());
    const of = (session: string, kind: string) => events.filter((e) => e.session === session && e.kind === kind);
    const [sa, sb] = sessions;
    assert.deepEqual(of(sa, 'kernel_exec').map((e) => e.content), [SLOW_CELL], "A's log has A's cell only");
    assert.deepEqual(of(sb, 'kernel_exec').map((e) => e.content), [FAST_CELL], "B's log has B's cell only");
    const resultA = of(sa, 'tool_result').find((e) => e.name === 'scroll_exec');
    const resultB = of(sb, 'tool_result').find((e) => e.name === 'scroll_exec');
    assert.match(resultA?.content ?? '', /^RACE-A ran as A$/m, `A's result: ${resultA?.content}`);
    // B's kernel is not A's: A's variable is not there.
    assert.match(resultB?.content ?? '', /^RACE-B ran; who is None$/m, `B's result: ${resultB?.content}`);
    assert.equal(resultB?.meta.isError, false);
  });
});
