import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../src/core/log/eventLog';
import { SubprocessKernel } from '../../../src/core/kernel/subprocessKernel';
import { MemoryHost } from '../../../src/core/memory/memoryHost';
import { LoggedKernel } from '../../../src/core/kernel/loggedKernel';
import { AgentLoop, type AgentLog, type AgentProgress } from '../../../src/core/agent/agentLoop';
import { indexLineBound } from '../../../src/core/agent/evictionIndex';
import { ScriptedModelClient, requestText, requestTokens, type ScriptedRequest, type ScriptedTurn } from '../../../src/core/agent/testing/scriptedModel';
import type { AgentTool } from '../../../src/core/agent/tools';
import type { LogEvent } from '../../../src/core/types';

/** Test tool: returns a deterministic checklist note of a few hundred to ~1,500 characters. */
const FakeChecklistTool: AgentTool = {
  definition: {
    name: 'check_item',
    description: 'Check one checklist item and report on it.',
    inputSchema: { type: 'object', properties: { item: { type: 'integer' } }, required: ['item'] },
  },
  async invoke(input) {
    const n = Number(input.item);
    const lines = [`item ${n}: checked module_${n % 37} against rule R${n % 11}`];
    for (let i = 0; i < 4 + (n % 25); i++) lines.push(`  detail ${i}: value ${(n * 7919 + i * 104729) % 100003} within tolerance`);
    return lines.join('\n');
  },
};

/** The same log without SQL access: AgentLoop.open then replays the whole session. */
function withoutSql(log: EventLog): AgentLog {
  return {
    append: (e) => log.append(e),
    maxSeq: () => log.maxSeq(),
    range: (a, b) => log.range(a, b),
    iterateSession: (s, n) => log.iterateSession(s, n),
  };
}

function sessionEvents(log: EventLog, session: string): LogEvent[] {
  return [...log.iterateSession(session)];
}

const FACT = 'violet-hippo-7731';

describe('AgentLoop: a 500+ step scripted session with a small budget', () => {
  let dir: string;
  let log: EventLog;
  let kernel: SubprocessKernel;
  const session = 's-long';

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'scroll-agent-test-'));
    log = EventLog.open({ workspace: dir, session, redact: false });
    kernel = new SubprocessKernel({ memory: new MemoryHost({ log, session }), session, cwd: dir });
    await kernel.start();
  });
  after(async () => {
    await kernel.dispose();
    log.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('bounded view, every event logged, bounded index, and an evicted fact recovered through ms.search', async () => {
    const STEPS = 520;
    const BUDGET = 6000;
    let turn = 0;
    let execCalls = 0;
    let toolCallsMade = 0;
    let factSeenInRequest: number | null = null;
    const requestsWithoutFact: number[] = [];
    const script = (req: ScriptedRequest): ScriptedTurn => {
      turn++;
      const text = requestText(req);
      if (turn === 1) return { text: 'Noted.' };
      if (turn === STEPS + 2) {
        // The retrieval cell ran in the previous step: its printed output must be in this context.
        if (text.includes(FACT)) factSeenInRequest = req.index;
        return { text: `The staging deploy passphrase is ${FACT}.` };
      }
      if (!text.includes(FACT)) requestsWithoutFact.push(turn);
      if (turn === STEPS + 1) {
        execCalls++;
        toolCallsMade++;
        return {
          text: 'The passphrase left my view long ago; searching the log.',
          toolCalls: [
            {
              name: 'scroll_exec',
              input: {
                code: [
                  'hits = ms.search("deploy passphrase staging", k=5, kind="user_message")',
                  'ev = ms.expand(hits[0])[0]',
                  'print(len(hits), ev.seq, ev.content[:200])',
                ].join('\n'),
              },
            },
          ],
        };
      }
      const item = turn - 1;
      if (item % 10 === 0) {
        execCalls++;
        toolCallsMade += 2;
        const code = item % 50 === 0 ? `big_${item} = "x" * 3000\nprint(big_${item})` : `total = globals().get("total", 0) + ${item}\nprint("total", total)`;
        return { text: `Item ${item}: computing.`, toolCalls: [{ name: 'scroll_exec', input: { code } }, { name: 'check_item', input: { item } }] };
      }
      toolCallsMade++;
      return { toolCalls: [{ name: 'check_item', input: { item } }] };
    };
    let titleCalls = 0;
    const model = new ScriptedModelClient(script, {
      maxInputTokens: 32_000,
      keepRequests: 50,
      onJson: () => {
        titleCalls++;
        if (titleCalls % 5 === 0) return 'not json at all'; // exercises the deterministic fallback
        return JSON.stringify({ task: `checklist pass ${titleCalls}`, state: 'items checked', next: 'next items' });
      },
    });
    const progress: AgentProgress[] = [];
    const overBudget: string[] = [];
    const loop = AgentLoop.open({
      log,
      session,
      model,
      kernel: new LoggedKernel(kernel, log),
      tools: [FakeChecklistTool],
      maxViewTokens: BUDGET,
      view: { indexCap: 4 },
      onProgress: (p) => {
        if (p.type === 'step' && p.viewTokens > p.budget) overBudget.push(`step ${p.step}: ${p.viewTokens}`);
        if (p.type !== 'text') progress.push(p);
      },
    });
    const origSend = model.send.bind(model);
    model.send = (messages, tools, opts) => {
      if (!opts?.json) {
        const t = requestTokens({ index: -1, messages, tools, opts: opts ?? {} });
        if (t > BUDGET) overBudget.push(`independent count ${t}`);
      }
      return origSend(messages, tools, opts);
    };

    const first = await loop.run(`Remember this: the deploy passphrase for staging is ${FACT}. Just acknowledge.`);
    assert.equal(first.text, 'Noted.');
    const second = await loop.run(`Now go through the checklist, items 1 to ${STEPS - 1}, then tell me the staging deploy passphrase.`, { maxSteps: STEPS + 10 });
    assert.equal(second.stopped, 'answer');
    assert.equal(second.text, `The staging deploy passphrase is ${FACT}.`);
    assert.ok(first.steps + second.steps >= 500, `only ${first.steps + second.steps} steps`);

    // The view never exceeded the budget (the loop's measure and an independent count).
    assert.deepEqual(overBudget, []);
    const events = sessionEvents(log, session);
    const turns = events.filter((e) => e.kind === 'model_turn');
    assert.equal(turns.length, first.steps + second.steps);
    for (const t of turns) assert.ok((t.meta.viewTokens as number) <= (t.meta.budget as number), `step ${t.step}`);
    assert.ok(turns.some((t) => (t.meta.viewTokens as number) > BUDGET * 0.5), 'the budget was actually under pressure');

    // Every event is in the log: counts match what happened.
    const count = (k: string) => events.filter((e) => e.kind === k).length;
    assert.equal(count('user_message'), 2);
    assert.equal(count('model_turn'), model.turns);
    assert.equal(count('tool_call'), toolCallsMade);
    assert.equal(count('tool_result'), toolCallsMade);
    assert.equal(count('kernel_exec'), execCalls);
    assert.equal(count('kernel_output'), execCalls);
    const evictions = progress.filter((p) => p.type === 'eviction');
    assert.equal(count('eviction'), evictions.length);
    assert.ok(evictions.length >= 20, `${evictions.length} evictions`);
    assert.equal(events.filter((e) => e.kind === 'eviction' && e.meta.title_source === 'fallback').length > 0, true);
    assert.equal(events.filter((e) => e.kind === 'eviction' && e.meta.title_source === 'model').length > 0, true);
    // Results are filed under their calls.
    for (const r of events.filter((e) => e.kind === 'tool_result')) {
      const call = events.find((e) => e.seq === r.parentSeq);
      assert.equal(call?.kind, 'tool_call');
      assert.equal(call?.toolCallId, r.toolCallId);
    }

    // The index stays within its bound and tiles the evicted spans.
    const idx = loop.view.index;
    assert.equal(idx.segments, evictions.length);
    assert.ok(idx.size <= indexLineBound(idx.segments, 4), `${idx.size} lines for ${idx.segments} segments`);
    assert.ok(idx.blocks().some((b) => b.level >= 2), 'merging happened over several levels');
    const lastEviction = events.filter((e) => e.kind === 'eviction').pop()!;
    assert.deepEqual(lastEviction.meta.index, idx.snapshot());

    // The fact was out of view for a long stretch, then came back through ms.search in the kernel.
    const factTurn = events.find((e) => e.kind === 'user_message' && e.content.includes(FACT))!;
    const covering = events.find((e) => e.kind === 'eviction' && (e.meta.from_seq as number) <= factTurn.seq && (e.meta.to_seq as number) >= factTurn.seq);
    assert.ok(covering, 'the first message was evicted');
    assert.ok(requestsWithoutFact.length >= 400, `fact absent from only ${requestsWithoutFact.length} requests`);
    const retrieval = events.filter((e) => e.kind === 'tool_result' && e.name === 'scroll_exec').pop()!;
    assert.match(retrieval.content, new RegExp(`^\\d+ ${factTurn.seq} Remember this: the deploy passphrase for staging is ${FACT}`));
    assert.notEqual(factSeenInRequest, null, 'the retrieved fact reached the next model context');

    // Rebuilt from the log — replaying only what follows the eviction boundary, or the whole
    // session — the view and index equal the live ones.
    const live = loop.view.fingerprint();
    const fast = AgentLoop.open({ log, session, model, kernel, tools: [FakeChecklistTool], maxViewTokens: BUDGET, view: { indexCap: 4 } });
    const full = AgentLoop.open({ log: withoutSql(log), session, model, kernel, tools: [FakeChecklistTool], maxViewTokens: BUDGET, view: { indexCap: 4 } });
    assert.equal(fast.view.fingerprint(), live);
    assert.equal(full.view.fingerprint(), live);
    assert.ok(fast.view.eventsApplied < full.view.eventsApplied / 10, `fast rebuild applied ${fast.view.eventsApplied} of ${full.view.eventsApplied} events`);

    // Old tool outputs shrink to stubs naming the seq of the full copy; kernel variables are in the digest.
    const lastReq = model.requests[model.requests.length - 1];
    const sys = lastReq.messages[0].content;
    assert.match(sys, /## Kernel variables/);
    assert.match(sys, /- total: int/);
    assert.match(sys, /- hits: Hits|- hits: list/);
    assert.match(sys, /## Evicted from this view/);
    const toolMsgs = lastReq.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    assert.ok(toolMsgs.some((c) => /shrunk from the view: .* full copy at seq \d+/.test(c)), 'some outputs are stubs');
  });
});

describe('AgentLoop: restart in the middle', () => {
  /** Deterministic model "brain" that survives the restart (the model is outside the process). */
  function brain() {
    let turn = 0;
    return (req: ScriptedRequest): ScriptedTurn => {
      turn++;
      void req;
      if (turn % 7 === 0) {
        return {
          text: `Items up to ${turn} look fine; continuing.`,
          toolCalls: [
            { id: `t${turn}a`, name: 'check_item', input: { item: turn } },
            { id: `t${turn}b`, name: 'check_item', input: { item: turn + 1000 } },
          ],
        };
      }
      return { toolCalls: [{ id: `t${turn}`, name: 'check_item', input: { item: turn } }] };
    };
  }
  const titles = () => {
    let n = 0;
    return () => JSON.stringify({ task: `segment ${++n}`, state: 'checked', next: 'more' });
  };

  function run(dir: string, restartAfterFirst: boolean) {
    return (async () => {
      const session = 's-restart';
      const path = join(dir, 'scroll.db');
      const think = brain();
      const title = titles();
      const make = (log: EventLog) =>
        AgentLoop.open({
          log,
          session,
          model: new ScriptedModelClient(think, { maxInputTokens: 32_000, onJson: title }),
          tools: [FakeChecklistTool],
          maxViewTokens: 4000,
          view: { indexCap: 3 },
        });
      let log = EventLog.open({ path, session, redact: false });
      let loop = make(log);
      await loop.run('first request: check items', { maxSteps: 150 });
      let fingerprintAtRestart: { before: string; after: string } | null = null;
      if (restartAfterFirst) {
        const before = loop.view.fingerprint();
        const tokensBefore = await loop.view.measure(loop.toolDefinitions);
        log.close();
        log = EventLog.open({ path, session, redact: false });
        loop = make(log);
        fingerprintAtRestart = { before, after: loop.view.fingerprint() };
        assert.equal(await loop.view.measure(loop.toolDefinitions), tokensBefore);
      }
      await loop.run('second request: check more items', { maxSteps: 150 });
      const fingerprint = loop.view.fingerprint();
      const events = sessionEvents(log, session).map((e) => ({ seq: e.seq, kind: e.kind, content: e.content, meta: e.meta, step: e.step, toolCallId: e.toolCallId, parentSeq: e.parentSeq }));
      // And instances opened on the final log agree too, with and without SQL access.
      const reopened = make(log).view.fingerprint();
      assert.equal(
        AgentLoop.open({ log: withoutSql(log), session, model: new ScriptedModelClient([]), tools: [FakeChecklistTool], maxViewTokens: 4000, view: { indexCap: 3 } }).view.fingerprint(),
        reopened,
      );
      log.close();
      return { fingerprint, events, fingerprintAtRestart, reopened };
    })();
  }

  test('view and index rebuilt from the log are identical, and the session continues exactly as without a restart', async () => {
    const a = mkdtempSync(join(tmpdir(), 'scroll-agent-restart-a-'));
    const b = mkdtempSync(join(tmpdir(), 'scroll-agent-restart-b-'));
    try {
      const plain = await run(a, false);
      const restarted = await run(b, true);
      assert.ok(restarted.fingerprintAtRestart);
      assert.equal(restarted.fingerprintAtRestart.after, restarted.fingerprintAtRestart.before);
      assert.ok(JSON.parse(restarted.fingerprintAtRestart.before).index.length > 0, 'evictions happened before the restart');
      assert.equal(restarted.fingerprint, plain.fingerprint);
      assert.deepEqual(restarted.events, plain.events);
      assert.equal(restarted.reopened, restarted.fingerprint);
      assert.equal(plain.reopened, plain.fingerprint);
      assert.ok(plain.events.filter((e) => e.kind === 'eviction').length >= 10);
    } finally {
      rmSync(a, { recursive: true, force: true });
      rmSync(b, { recursive: true, force: true });
    }
  });
});
