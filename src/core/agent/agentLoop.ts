/**
 * The Scroll agent loop: user message → (view → model → tool calls → results)* → answer.
 *
 * Everything is appended to the log before the next model call: the user message, each model turn,
 * each tool call and result, kernel cells and their output, and each eviction sweep. The working
 * view and the eviction index are derived from those events only, so `AgentLoop.open` on the same
 * log after a restart rebuilds them identically.
 *
 * The meta of the events written here (model_turn, eviction, tool_result) is one contract with
 * its readers — the kernel's ms.index(), the panel, the editor and this loop's own rebuild:
 * `ModelTurnMeta`, `EvictionMeta` and `ToolResultMeta` in src/core/log/eventMeta.ts, each with its
 * one writer and one reader. What the loop writes for the model to read (tool errors, the eviction
 * event, its notes) is in src/prompts/loop.md.
 */
import { fill, SYSTEM_PROMPT, template } from '../../prompts';
import type { Kernel } from '../kernel/kernel';
import {
  parseMeta,
  readEvictionMeta,
  writeEvictionMeta,
  writeModelTurnMeta,
  writeToolResultMeta,
  type IndexSnapshotEntry,
} from '../log/eventMeta';
import { evictions as evictionRows } from '../log/historyQueries';
import type { ReadEvent, ReadOptions } from '../log/eventLog';
import { withPreviewNote } from '../log/previewOnly';
import type { LogEvent, NewEvent } from '../types';
import { CancelledError } from '../errors';
import { throwIfAborted } from './errors';
import type { IndexTitle } from './evictionIndex';
import type { ChatMessage, ModelClient, ToolCall, ToolDefinition } from './model';
import { fallbackTitle, modelTitle } from './titles';
import { scrollExecTool, type AgentTool, type ToolOutput } from './tools';
import { canonicalCall } from './toolTable';
import { WorkingView, type EvictionPlan, type WorkingViewOptions } from './workingView';

/** What the loop needs from the event log (EventLog satisfies it). */
export interface AgentLog {
  append(e: NewEvent): LogEvent;
  maxSeq(): number;
  /** With `keepPreview`, an event whose payload file cannot be read comes as its preview (`payloadError`). */
  range(from: number, to: number, opts?: ReadOptions): ReadEvent[];
  /** Events of one session in seq order; used for rebuilding when present. */
  iterateSession?(session: string, batch?: number, opts?: ReadOptions): Iterable<ReadEvent>;
  /** The log's SQLite handle (read queries on `events`): lets a rebuild skip the evicted past. */
  readonly database?: { prepare(sql: string): { all(...p: unknown[]): unknown[]; get(...p: unknown[]): unknown } };
}

export type AgentProgress =
  | { type: 'step'; step: number; viewTokens: number; budget: number; messages: number; /** time to build the view (eviction planning + measuring + rendering, titles excluded) */ viewMs: number }
  | { type: 'text'; step: number; text: string }
  | { type: 'tool_call'; step: number; call: ToolCall; seq: number }
  | { type: 'tool_result'; step: number; call: ToolCall; seq: number; content: string; isError: boolean }
  | { type: 'eviction'; step: number; seq: number; fromSeq: number; toSeq: number; events: number; title: IndexTitle; titleSource: 'model' | 'fallback' }
  | { type: 'answer'; step: number; seq: number; text: string };

export interface ConfirmRequest {
  call: ToolCall;
  tool: AgentTool;
  step: number;
}

export interface AgentLoopOptions {
  log: AgentLog;
  session: string;
  model: ModelClient;
  /** Session kernel: `scroll_exec` is offered when present. */
  kernel?: Kernel | null;
  /** The kernel logs its own kernel_exec/kernel_output events (else scroll_exec does). */
  kernelLogsCells?: boolean;
  execTimeoutMs?: number;
  /** Host tools, offered after scroll_exec. */
  tools?: AgentTool[];
  systemPrompt?: string;
  /** View budget in tokens; default: the model's input limit minus room for the answer. */
  maxViewTokens?: number;
  view?: Partial<Omit<WorkingViewOptions, 'session' | 'systemPrompt' | 'budget'>>;
  /** Model for eviction titles: default the main model; null = always the deterministic title. */
  titleModel?: ModelClient | null;
  /** Model calls per user message before the loop stops and reports (default 40). */
  maxSteps?: number;
  /** Asked before running a tool with `needsConfirmation`; no callback = refuse such tools. */
  confirm?: (req: ConfirmRequest) => Promise<boolean>;
  onProgress?: (p: AgentProgress) => void;
}

export interface RunOptions {
  signal?: AbortSignal;
  onProgress?: (p: AgentProgress) => void;
  /** Overrides the loop's maxSteps for this message. */
  maxSteps?: number;
}

export interface AgentRunResult {
  /** The final answer (or the last text when the loop stopped early). */
  text: string;
  stopped: 'answer' | 'max_steps';
  /** Model calls made for this message. */
  steps: number;
  toolCalls: number;
  userSeq: number;
  /** Seq of the last model_turn. */
  lastSeq: number;
  evictions: number;
}

/** Room left for the answer when the budget derives from the model's input limit. */
export function defaultBudget(maxInputTokens: number): number {
  return Math.max(256, maxInputTokens - Math.min(8_192, Math.floor(maxInputTokens / 4)));
}

const TITLE_FAILURES_BEFORE_GIVING_UP = 3;

const T = {
  eviction: template('loop', 'eviction'),
  inputRejected: template('loop', 'input-rejected'),
  noSuchTool: template('loop', 'no-such-tool'),
  notAllowed: template('loop', 'not-allowed'),
  notAllowedNoConfirm: template('loop', 'not-allowed-no-confirm'),
  toolFailed: template('loop', 'tool-failed'),
  cancelled: template('loop', 'cancelled'),
  notRunCancelled: template('loop', 'not-run-cancelled'),
  noModelCall: template('loop', 'no-model-call'),
  modelCallFailed: template('loop', 'model-call-failed'),
  maxSteps: template('loop', 'max-steps'),
};

export class AgentLoop {
  readonly view: WorkingView;
  readonly session: string;
  private readonly log: AgentLog;
  private readonly model: ModelClient;
  private readonly tools: AgentTool[];
  private readonly toolDefs: ToolDefinition[];
  private titleFailures = 0;
  private evictedTotal = 0;
  private running = false;

  private constructor(private readonly opts: AgentLoopOptions) {
    this.log = opts.log;
    this.session = opts.session;
    this.model = opts.model;
    const budget = Math.min(opts.maxViewTokens ?? defaultBudget(opts.model.maxInputTokens), opts.model.maxInputTokens);
    this.view = new WorkingView({
      ...opts.view,
      session: opts.session,
      systemPrompt: opts.systemPrompt ?? SYSTEM_PROMPT(),
      budget,
      countTokens: opts.view?.countTokens ?? ((t) => opts.model.countTokens(t)),
    });
    const tools: AgentTool[] = [];
    if (opts.kernel) tools.push(scrollExecTool(opts.kernel, { timeoutMs: opts.execTimeoutMs, kernelLogsCells: opts.kernelLogsCells }));
    for (const t of opts.tools ?? []) {
      if (tools.some((x) => x.definition.name === t.definition.name)) throw new Error(`two tools are named ${t.definition.name}`);
      tools.push(t);
    }
    this.tools = tools;
    this.toolDefs = tools.map((t) => t.definition);
  }

  /** A loop on `session` of `log`, its view and index rebuilt from the session's events. */
  static open(opts: AgentLoopOptions): AgentLoop {
    const loop = new AgentLoop(opts);
    loop.rebuild();
    return loop;
  }

  get toolDefinitions(): ToolDefinition[] {
    return this.toolDefs;
  }

  get budget(): number {
    return this.view.budget;
  }

  /**
   * Rebuilds view and index from the session's events. With SQL access only the events after the
   * last eviction boundary are replayed (plus the eviction events and a few facts about the evicted
   * past), so a restart costs the size of the view, not of the session; otherwise a full replay.
   * Both give the same state (tested against each other and against the live view).
   */
  private rebuild(full = false): void {
    if (!full && this.log.database && this.rebuildFromBoundary(this.log.database)) return;
    // One unreadable payload file must not stop the session: the view gets that event's preview, marked.
    const events = this.log.iterateSession ? this.log.iterateSession(this.session, 2_000, { keepPreview: true }) : scanSession(this.log, this.session, 1);
    for (const read of events) {
      const e = withPreviewNote(read);
      this.view.apply(e);
      if (e.kind === 'eviction' && e.session === this.session) this.evictedTotal += readEvictionMeta(e.meta)?.events ?? 0;
    }
  }

  private rebuildFromBoundary(db: NonNullable<AgentLog['database']>): boolean {
    // An eviction event acts on the view through its seq and meta only: one query reads them all.
    const evictions = evictionRows({ database: db }, this.session);
    if (!evictions.length) return false;
    let boundary = 0;
    for (const e of evictions) {
      const block = readEvictionMeta(e.meta);
      if (block) boundary = Math.max(boundary, block.toSeq);
      this.evictedTotal += block?.events ?? 0;
    }
    const lastStep = db.prepare("SELECT max(step) AS m FROM events WHERE kind = 'model_turn' AND session = ? AND seq <= ?").get(this.session, boundary) as { m: number | null };
    const userRow = db.prepare("SELECT max(seq) AS m FROM events WHERE kind = 'user_message' AND session = ? AND seq <= ?").get(this.session, boundary) as { m: number | null };
    const variableResults = (
      db.prepare(`SELECT seq, meta FROM events WHERE kind = 'tool_result' AND session = ? AND seq <= ? AND meta LIKE '%"variables"%' ORDER BY seq`).all(this.session, boundary) as Array<{ seq: number; meta: string }>
    ).map((r) => ({ seq: Number(r.seq), meta: parseMeta(r.meta) }));
    const pinnedRead = userRow?.m ? this.log.range(Number(userRow.m), Number(userRow.m), { keepPreview: true })[0] : undefined;
    const pinned = pinnedRead ? withPreviewNote(pinnedRead) : null;
    this.view.seedEvicted({ evictions, lastStep: Number(lastStep?.m ?? 0), variableResults, pinned });
    for (const e of scanSession(this.log, this.session, boundary + 1)) {
      if (e.kind !== 'eviction') this.view.apply(withPreviewNote(e)); // all evictions are in already
    }
    return true;
  }

  private append(e: NewEvent): LogEvent {
    const ev = this.log.append({ ...e, session: this.session });
    this.view.apply(ev);
    return ev;
  }

  /** Handles one user message to the end: answer, or stop after maxSteps model calls. */
  async run(message: string, ro: RunOptions = {}): Promise<AgentRunResult> {
    if (typeof message !== 'string' || !message.trim()) throw new Error('the message is empty');
    if (this.running) throw new Error('this agent loop is already handling a message');
    this.running = true;
    const progress = (p: AgentProgress) => {
      ro.onProgress?.(p);
      this.opts.onProgress?.(p);
    };
    try {
      throwIfAborted(ro.signal);
      const user = this.append({ kind: 'user_message', role: 'user', content: message, step: this.view.nextStep });
      const maxSteps = ro.maxSteps ?? this.opts.maxSteps ?? 40;
      let steps = 0;
      let toolCalls = 0;
      let evictions = 0;
      let lastText = '';
      let lastSeq = user.seq;
      while (steps < maxSteps) {
        throwIfAborted(ro.signal);
        const step = this.view.nextStep;
        const started = performance.now();
        const sweep = await this.evictIfNeeded(step, ro.signal, progress);
        if (sweep) evictions++;
        const prepared = await this.view.prepare(this.toolDefs).catch((e: unknown) => {
          this.append({ kind: 'note', role: 'system', content: fill(T.noModelCall, { step, error: e instanceof Error ? e.message : String(e) }), step: this.view.lastStep, meta: { error: e instanceof Error ? e.name : 'Error', step } });
          throw e;
        });
        const viewMs = performance.now() - started - (sweep?.titleMs ?? 0);
        progress({ type: 'step', step, viewTokens: prepared.tokens, budget: prepared.budget, messages: prepared.messages.length, viewMs });

        const turn = await this.callModel(prepared.messages, step, ro.signal, progress);
        steps++;
        const turnEv = this.append({
          kind: 'model_turn',
          role: 'assistant',
          name: this.model.id,
          content: turn.text,
          step,
          meta: writeModelTurnMeta({
            step,
            viewTokens: prepared.tokens,
            budget: prepared.budget,
            viewMessages: prepared.messages.length,
            squeeze: prepared.squeeze,
            evicted: sweep?.events ?? 0,
            evictionSeq: sweep?.seq ?? null,
            evictedTotal: this.evictedTotal,
            model: this.model.id,
            toolCalls: turn.calls.length,
            ...(turn.usage ? { usage: turn.usage } : {}),
            ...(turn.cancelled ? { cancelled: true } : {}),
          }),
        });
        lastSeq = turnEv.seq;
        lastText = turn.text;
        if (turn.cancelled) throw new CancelledError();
        if (!turn.calls.length) {
          progress({ type: 'answer', step, seq: turnEv.seq, text: turn.text });
          return { text: turn.text, stopped: 'answer', steps, toolCalls, userSeq: user.seq, lastSeq, evictions };
        }
        const calls = uniqueIds(turn.calls);
        for (let i = 0; i < calls.length; i++) {
          toolCalls++;
          await this.runTool(calls[i], turnEv.seq, step, ro.signal, progress, calls.slice(i + 1));
        }
      }
      this.append({
        kind: 'note',
        role: 'system',
        content: fill(T.maxSteps, { maxSteps }),
        step: this.view.lastStep,
        meta: { stopped: 'max_steps', maxSteps },
      });
      return { text: lastText, stopped: 'max_steps', steps, toolCalls, userSeq: user.seq, lastSeq, evictions };
    } finally {
      this.running = false;
    }
  }

  private async callModel(
    messages: ChatMessage[],
    step: number,
    signal: AbortSignal | undefined,
    progress: (p: AgentProgress) => void,
  ): Promise<{ text: string; calls: ToolCall[]; usage?: { inputTokens?: number; outputTokens?: number }; cancelled: boolean }> {
    let text = '';
    const calls: ToolCall[] = [];
    let usage: { inputTokens?: number; outputTokens?: number } | undefined;
    try {
      for await (const chunk of this.model.send(messages, this.toolDefs, { signal })) {
        if (chunk.type === 'text') {
          text += chunk.text;
          progress({ type: 'text', step, text: chunk.text });
        } else if (chunk.type === 'tool_call') calls.push(chunk.call);
        else if (chunk.type === 'usage') usage = { inputTokens: chunk.inputTokens, outputTokens: chunk.outputTokens };
      }
    } catch (e) {
      if (signal?.aborted) return { text, calls: [], usage, cancelled: true };
      // Nothing is lost: the failure is in the log; the user message stays for the next try.
      this.append({
        kind: 'note',
        role: 'system',
        content: fill(T.modelCallFailed, { step, error: e instanceof Error ? e.message : String(e) }),
        step: this.view.lastStep,
        meta: { error: e instanceof Error ? e.name : 'Error', step, partialText: text.slice(0, 2_000) },
      });
      throw e;
    }
    if (signal?.aborted) return { text, calls: [], usage, cancelled: true };
    return { text, calls, usage, cancelled: false };
  }

  private async runTool(
    call: ToolCall,
    turnSeq: number,
    step: number,
    signal: AbortSignal | undefined,
    progress: (p: AgentProgress) => void,
    rest: ToolCall[],
  ): Promise<void> {
    const callEv = this.append({
      kind: 'tool_call',
      role: 'assistant',
      name: call.name,
      content: JSON.stringify(call.input),
      toolCallId: call.id,
      parentSeq: turnSeq,
      step,
      meta: call.inputError ? { inputError: call.inputError } : {},
    });
    progress({ type: 'tool_call', step, call, seq: callEv.seq });
    // A name from before the tool table (an old log replayed) means today's tool.
    const named = this.tools.find((t) => t.definition.name === call.name);
    const legacy = named ? undefined : canonicalCall(call.name, call.input);
    const tool = named ?? this.tools.find((t) => t.definition.name === legacy?.name);
    const input = named || !legacy ? call.input : legacy.input;
    let out: ToolOutput;
    let cancelled = false;
    if (call.inputError) out = { content: fill(T.inputRejected, { error: call.inputError }), isError: true };
    else if (!tool) out = { content: fill(T.noSuchTool, { name: JSON.stringify(call.name), tools: this.toolDefs.map((t) => t.name).join(', ') }), isError: true };
    else if (tool.needsConfirmation && !(this.opts.confirm && (await this.opts.confirm({ call, tool, step })))) {
      out = { content: fill(this.opts.confirm ? T.notAllowed : T.notAllowedNoConfirm, { tool: call.name }), isError: true };
    } else {
      try {
        throwIfAborted(signal);
        const r = await tool.invoke(input, {
          signal,
          session: this.session,
          step,
          callId: call.id,
          callSeq: callEv.seq,
          appendEvent: (e) => this.append({ ...e, step }),
        });
        out = typeof r === 'string' ? { content: r } : r;
      } catch (e) {
        cancelled = signal?.aborted === true;
        out = { content: cancelled ? T.cancelled : fill(T.toolFailed, { tool: call.name, error: e instanceof Error ? e.message : String(e) }), isError: true };
      }
    }
    const resultEv = this.append({
      kind: 'tool_result',
      role: 'tool',
      name: call.name,
      content: out.content,
      toolCallId: call.id,
      parentSeq: callEv.seq,
      step,
      meta: writeToolResultMeta(out.meta, out.isError === true),
    });
    progress({ type: 'tool_result', step, call, seq: resultEv.seq, content: out.content, isError: out.isError === true });
    if (cancelled || signal?.aborted) {
      // Every call of the turn gets a result so the view stays a valid conversation.
      for (const other of rest) {
        const ev = this.append({ kind: 'tool_call', role: 'assistant', name: other.name, content: JSON.stringify(other.input), toolCallId: other.id, parentSeq: turnSeq, step, meta: {} });
        this.append({ kind: 'tool_result', role: 'tool', name: other.name, content: T.notRunCancelled, toolCallId: other.id, parentSeq: ev.seq, step, meta: writeToolResultMeta(undefined, true) });
      }
      throw new CancelledError();
    }
  }

  /** One eviction sweep when the view is over its high-water mark: titled, logged, applied. */
  private async evictIfNeeded(
    step: number,
    signal: AbortSignal | undefined,
    progress: (p: AgentProgress) => void,
  ): Promise<{ seq: number; events: number; titleMs: number } | null> {
    const plan = await this.view.planEviction(this.toolDefs);
    if (!plan) return null;
    const segment = this.view.planEvents(plan);
    const request = this.view.currentRequest();
    const titleStarted = performance.now();
    const { title, source, error } = await this.titleFor(segment, request, signal);
    const titleMs = performance.now() - titleStarted;
    const after = this.view.index.withBlock({ fromSeq: plan.fromSeq, toSeq: plan.toSeq, title, evictionSeq: null });
    const meta = evictionMeta(plan, title, source, error, this.session, step, this.view.budget, after.snapshot());
    const ev = this.append({
      kind: 'eviction',
      role: 'system',
      content: fill(T.eviction, { from: plan.fromSeq, to: plan.toSeq, events: plan.seqs.length, groups: plan.groups, ...title }),
      step,
      meta,
    });
    this.evictedTotal += plan.seqs.length;
    progress({ type: 'eviction', step, seq: ev.seq, fromSeq: plan.fromSeq, toSeq: plan.toSeq, events: plan.seqs.length, title, titleSource: source });
    return { seq: ev.seq, events: plan.seqs.length, titleMs };
  }

  private async titleFor(
    segment: ReturnType<WorkingView['planEvents']>,
    request: string | null,
    signal: AbortSignal | undefined,
  ): Promise<{ title: IndexTitle; source: 'model' | 'fallback'; error?: string }> {
    const titleModel = this.opts.titleModel === undefined ? this.model : this.opts.titleModel;
    if (titleModel && this.titleFailures < TITLE_FAILURES_BEFORE_GIVING_UP) {
      try {
        const title = await modelTitle(titleModel, segment, request, signal);
        this.titleFailures = 0;
        return { title, source: 'model' };
      } catch (e) {
        throwIfAborted(signal);
        this.titleFailures++;
        return { title: fallbackTitle(segment, request), source: 'fallback', error: e instanceof Error ? e.message.slice(0, 300) : String(e) };
      }
    }
    return { title: fallbackTitle(segment, request), source: 'fallback' };
  }
}

/** The meta of a sweep's `eviction` event (written by `writeEvictionMeta`): the plan's block and the index after it. */
export function evictionMeta(
  plan: EvictionPlan,
  title: IndexTitle,
  source: 'model' | 'fallback',
  error: string | undefined,
  session: string,
  step: number,
  budget: number,
  index: IndexSnapshotEntry[],
): Record<string, unknown> {
  return writeEvictionMeta({
    level: 0,
    from_seq: plan.fromSeq,
    to_seq: plan.toSeq,
    title,
    title_source: source,
    title_error: error,
    session,
    step,
    groups: plan.groups,
    events: plan.seqs.length,
    view_tokens_before: plan.tokensBefore,
    view_tokens_after: plan.tokensAfter,
    budget,
    index,
  });
}

function* scanSession(log: AgentLog, session: string, start: number): Iterable<ReadEvent> {
  const max = log.maxSeq();
  for (let from = start; from <= max; from += 2_000) {
    for (const e of log.range(from, Math.min(max, from + 1_999), { keepPreview: true })) if (e.session === session) yield e;
  }
}

function uniqueIds(calls: ToolCall[]): ToolCall[] {
  const seen = new Set<string>();
  return calls.map((c, i) => {
    let id = c.id || `call_${i}`;
    while (seen.has(id)) id = `${id}_${i}`;
    seen.add(id);
    return id === c.id ? c : { ...c, id };
  });
}
