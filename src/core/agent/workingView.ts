/**
 * The working view: what the model sees next, bounded by a token budget. It is derived state —
 * a pure function of one session's events (applied in seq order) plus this configuration — so a
 * view rebuilt from the log after a restart is identical to the one that wrote the log.
 *
 * Groups: a user message is one group; a model turn with its tool calls, kernel cells and tool
 * results is one group. Eviction removes whole groups, oldest first, never the pinned ones (the
 * current user request) and never the newest group. An eviction takes effect only through an
 * `eviction` event in the log (its meta: `EvictionMeta` in src/core/log/eventMeta.ts, read with
 * `readEvictionMeta`), which is what makes replay exact. The words the model sees in place of
 * whole events (stubs, previews, the memory section) are templates in src/prompts/view.md.
 */
import { fill, template } from '../../prompts';
import { readEvictionMeta, readToolResultMeta } from '../log/eventMeta';
import { estimateTokens, type LogEvent } from '../types';
import { EvictionIndex, DEFAULT_INDEX_CAP } from './evictionIndex';
import { ViewBudgetError } from './errors';
import type { ChatMessage, ToolCall, ToolDefinition } from './model';

export type TokenCounter = (text: string) => number | Promise<number>;

export interface WorkingViewOptions {
  session: string;
  systemPrompt: string;
  /** Token budget of everything sent: messages + tool definitions. */
  budget: number;
  /** Evict when the view measures above this fraction of the budget (default 0.9). */
  highWater?: number;
  /** ...down to this fraction (default 0.6). */
  lowWater?: number;
  /** Tool outputs of groups this many steps old (default 3) ... */
  stubAfterSteps?: number;
  /** ...and longer than this many characters (default 600) shrink to a stub. */
  stubMinChars?: number;
  /** Tool results above this many tokens show as a preview + seq (default min(2000, budget/6)). */
  largeResultTokens?: number;
  /** Eviction index level cap (default 8). */
  indexCap?: number;
  /** Counts tokens of a text (default: ~4 characters per token). */
  countTokens?: TokenCounter;
}

/** Tokens added per message for role and framing, as chat templates do. */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Kernel variables listed in the digest at most. */
const DIGEST_MAX_VARS = 30;

const T = {
  stub: template('view', 'stub'),
  preview: template('view', 'preview'),
  previewPayload: template('view', 'preview-payload'),
  callCut: template('view', 'call-cut'),
  noResult: template('view', 'no-result'),
  evicted: template('view', 'evicted'),
  variables: template('view', 'variables'),
  variable: template('view', 'variable'),
  variableSized: template('view', 'variable-sized'),
  variablesMore: template('view', 'variables-more'),
};

interface ViewEvent {
  seq: number;
  kind: string;
  name: string | null;
  content: string;
  step: number | null;
  toolCallId: string | null;
  payload: string | null;
  bytes: number;
}

interface Group {
  kind: 'user' | 'assistant';
  firstSeq: number;
  lastSeq: number;
  step: number | null;
  /** user_message or model_turn */
  head: ViewEvent;
  calls: ViewEvent[];
  results: ViewEvent[];
  /** Per-render-variant token counts and messages (key: variant string); cleared when the group grows. */
  tokenCache: Map<string, number>;
  renderCache: Map<string, ChatMessage[]>;
}

/** How hard rendering squeezes large content when nothing more can be evicted. */
type Squeeze = 0 | 1 | 2;

export interface EvictionPlan {
  fromSeq: number;
  toSeq: number;
  groups: number;
  /** The seqs of the events leaving the view (for titles and counts). */
  seqs: number[];
  tokensBefore: number;
  /** Measured view after the groups leave (before the memory map grows by one line). */
  tokensAfter: number;
}

export interface VariableDigestEntry {
  name: string;
  type: string;
  size: string;
  /** Seq of the tool result after which the variable last changed. */
  seq: number;
}

export interface PreparedView {
  messages: ChatMessage[];
  tokens: number;
  budget: number;
  squeeze: Squeeze;
}

export class WorkingView {
  readonly session: string;
  readonly budget: number;
  readonly highWater: number;
  readonly lowWater: number;
  readonly stubAfterSteps: number;
  readonly stubMinChars: number;
  readonly largeResultTokens: number;
  readonly index: EvictionIndex;
  private readonly systemPrompt: string;
  private readonly counter: TokenCounter;
  private groups: Group[] = [];
  private pinnedUserSeq: number | null = null;
  private evictedThroughSeq = 0;
  private lastStepSeen = 0;
  private appliedCount = 0;
  private readonly variables = new Map<string, VariableDigestEntry>();
  /** Bumped whenever the index or the variables change: the system message is rebuilt only then. */
  private memoryVersion = 0;
  private systemText: { version: number; text: string } | null = null;
  private systemCache: { text: string; tokens: number } | null = null;
  private toolsCache: { tools: ToolDefinition[]; tokens: number } | null = null;

  constructor(opts: WorkingViewOptions) {
    if (!(opts.budget > 0)) throw new ViewBudgetError(`the working-view budget must be a positive number of tokens (got ${opts.budget})`);
    this.session = opts.session;
    this.systemPrompt = opts.systemPrompt;
    this.budget = Math.floor(opts.budget);
    this.highWater = opts.highWater ?? 0.9;
    this.lowWater = opts.lowWater ?? 0.6;
    if (!(this.lowWater > 0 && this.lowWater <= this.highWater && this.highWater <= 1)) {
      throw new ViewBudgetError(`water marks must satisfy 0 < low (${this.lowWater}) ≤ high (${this.highWater}) ≤ 1`);
    }
    this.stubAfterSteps = opts.stubAfterSteps ?? 3;
    this.stubMinChars = opts.stubMinChars ?? 600;
    this.largeResultTokens = opts.largeResultTokens ?? Math.max(64, Math.min(2000, Math.floor(this.budget / 6)));
    this.index = new EvictionIndex(opts.indexCap ?? DEFAULT_INDEX_CAP);
    this.counter = opts.countTokens ?? estimateTokens;
  }

  // ---------------------------------------------------------------------------------------------
  // Applying events (live and on replay: the same code path)

  apply(e: LogEvent): void {
    if (e.session !== this.session) return;
    this.appliedCount++;
    const ve: ViewEvent = {
      seq: e.seq,
      kind: e.kind,
      name: e.name,
      content: e.content,
      step: e.step,
      toolCallId: e.toolCallId,
      payload: e.payload,
      bytes: e.bytes,
    };
    switch (e.kind) {
      case 'user_message': {
        // The previous request is no longer pinned: if an eviction already covered it, it leaves now.
        if (this.pinnedUserSeq !== null && this.pinnedUserSeq <= this.evictedThroughSeq) {
          const old = this.pinnedUserSeq;
          this.groups = this.groups.filter((g) => !(g.kind === 'user' && g.firstSeq === old));
        }
        this.pinnedUserSeq = e.seq;
        this.groups.push(newGroup('user', ve));
        break;
      }
      case 'model_turn': {
        if (typeof e.step === 'number') this.lastStepSeen = Math.max(this.lastStepSeen, e.step);
        this.groups.push(newGroup('assistant', ve));
        break;
      }
      case 'tool_call':
      case 'tool_result':
      case 'kernel_exec':
      case 'kernel_output': {
        // Variables count wherever the result sits (the digest is about the kernel, not the view).
        if (e.kind === 'tool_result') this.noteVariables(e);
        const g = this.groups[this.groups.length - 1];
        if (!g || g.kind !== 'assistant') return; // not part of a model turn of this view
        g.lastSeq = Math.max(g.lastSeq, e.seq);
        g.tokenCache.clear();
        g.renderCache.clear();
        if (e.kind === 'tool_call') g.calls.push(ve);
        else if (e.kind === 'tool_result') g.results.push(ve);
        break;
      }
      case 'eviction':
        this.applyEviction(e);
        break;
      default:
        break;
    }
  }

  /** An eviction acts on the view through its seq and meta only (the span and its title). */
  private applyEviction(e: Pick<LogEvent, 'seq' | 'meta'>): void {
    const block = readEvictionMeta(e.meta);
    if (!block) return;
    const { fromSeq: from, toSeq: to } = block;
    this.groups = this.groups.filter((g) => !(g.lastSeq <= to && g.firstSeq >= from && g.firstSeq !== this.pinnedUserSeq));
    this.evictedThroughSeq = Math.max(this.evictedThroughSeq, to);
    this.index.add({ fromSeq: from, toSeq: to, title: block.title, evictionSeq: e.seq });
    this.memoryVersion++;
  }

  /**
   * Restores, on an empty view, the state a full replay of the session up to the eviction boundary
   * would leave — for a rebuild that then replays only the events after the boundary. Valid because
   * eviction spans tile the session from its start and whole groups leave: what survives before the
   * boundary is only the current request (`pinned`, the latest user message, when it is before the
   * boundary); the rest of that state is the index (all evictions), the last step and the variables.
   */
  seedEvicted(s: {
    /** The session's eviction events (seq and meta are all an eviction needs). */
    evictions: Array<Pick<LogEvent, 'seq' | 'meta'>>;
    lastStep: number;
    variableResults: Array<Pick<LogEvent, 'seq' | 'meta'>>;
    pinned: LogEvent | null;
  }): void {
    if (this.groups.length || this.index.size) throw new Error('seedEvicted needs an empty view');
    for (const r of s.variableResults) this.noteVariables(r);
    this.lastStepSeen = Math.max(this.lastStepSeen, s.lastStep);
    if (s.pinned) this.apply(s.pinned);
    for (const e of s.evictions) {
      this.appliedCount++;
      this.applyEviction(e);
    }
  }

  private noteVariables(e: Pick<LogEvent, 'seq' | 'meta'>): void {
    const vars = readToolResultMeta(e.meta).variables;
    if (!vars) return;
    const seen = new Set<string>();
    for (const { name, type: t, size: s } of vars) {
      seen.add(name);
      const prev = this.variables.get(name);
      if (!prev || prev.type !== t || prev.size !== s) {
        this.variables.set(name, { name, type: t, size: s, seq: e.seq });
        this.memoryVersion++;
      }
    }
    for (const name of [...this.variables.keys()]) {
      if (!seen.has(name)) {
        this.variables.delete(name);
        this.memoryVersion++;
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // State for the loop, the panel and tests

  /** The step number the next model call will carry. */
  get nextStep(): number {
    return this.lastStepSeen + 1;
  }

  get lastStep(): number {
    return this.lastStepSeen;
  }

  get evictedThrough(): number {
    return this.evictedThroughSeq;
  }

  get eventsApplied(): number {
    return this.appliedCount;
  }

  get groupCount(): number {
    return this.groups.length;
  }

  get pinnedUser(): number | null {
    return this.pinnedUserSeq;
  }

  variableDigest(): VariableDigestEntry[] {
    return [...this.variables.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  // ---------------------------------------------------------------------------------------------
  // Rendering

  /** The memory section of the system message: index + variable digest. */
  memorySection(): string {
    const parts: string[] = [];
    if (this.index.size) {
      parts.push(fill(T.evicted, { segments: this.index.segments, session: this.session, lines: this.index.render().join('\n') }));
    }
    const vars = this.variableDigest();
    if (vars.length) {
      const shown = vars.slice(0, DIGEST_MAX_VARS).map((v) => fill(v.size ? T.variableSized : T.variable, { name: v.name, type: v.type, size: v.size, seq: v.seq }));
      if (vars.length > DIGEST_MAX_VARS) shown.push(fill(T.variablesMore, { count: vars.length - DIGEST_MAX_VARS }));
      parts.push(fill(T.variables, { lines: shown.join('\n') }));
    }
    return parts.join('\n\n');
  }

  systemMessage(): string {
    if (this.systemText?.version !== this.memoryVersion) {
      const mem = this.memorySection();
      this.systemText = { version: this.memoryVersion, text: mem ? `${this.systemPrompt}\n\n${mem}` : this.systemPrompt };
    }
    return this.systemText.text;
  }

  /** The messages the model would see for the next call (no measuring, no eviction). */
  render(squeeze: Squeeze = 0): ChatMessage[] {
    const out: ChatMessage[] = [{ role: 'system', content: this.systemMessage() }];
    const step = this.nextStep;
    for (const g of this.groups) for (const m of this.renderGroup(g, step, this.squeezeFor(g, squeeze))) out.push(m);
    return out;
  }

  /** Squeezing only ever touches what cannot be evicted: the newest group and the pinned request. */
  private squeezeFor(g: Group, squeeze: Squeeze): Squeeze {
    if (squeeze === 0) return 0;
    const last = this.groups[this.groups.length - 1];
    return g === last || g.firstSeq === this.pinnedUserSeq ? squeeze : 0;
  }

  /** A group's messages depend only on the group, whether it is old (stubs) and the squeeze. */
  private renderGroup(g: Group, step: number, squeeze: Squeeze): ChatMessage[] {
    const key = this.variantKey(g, step, squeeze);
    let msgs = g.renderCache.get(key);
    if (!msgs) g.renderCache.set(key, (msgs = this.renderGroupUncached(g, step, squeeze)));
    return msgs;
  }

  private variantKey(g: Group, step: number, squeeze: Squeeze): string {
    const old = g.step !== null && g.step < step - this.stubAfterSteps;
    return `${old ? 'o' : 'n'}${squeeze}`;
  }

  private renderGroupUncached(g: Group, step: number, squeeze: Squeeze): ChatMessage[] {
    if (g.kind === 'user') {
      const limit = squeeze === 0 ? Math.floor(this.budget / 3) : squeeze === 1 ? Math.floor(this.budget / 8) : 100;
      return [{ role: 'user', content: this.previewIfLarge(g.head, limit) }];
    }
    const old = g.step !== null && g.step < step - this.stubAfterSteps;
    // Arguments can be as large as results (a file written, a pasted text): same preview rules.
    const argLimit = old ? this.stubMinChars : this.limitFor(squeeze) * 4;
    const calls: ToolCall[] = g.calls.map((c, i) => ({
      id: c.toolCallId ?? `call_${c.seq}_${i}`,
      name: c.name ?? 'unknown_tool',
      input: c.content.length > argLimit ? shrinkInput(parseInput(c.content), Math.max(80, Math.floor(argLimit / 2)), c.seq) : parseInput(c.content),
    }));
    const msgs: ChatMessage[] = [{ role: 'assistant', content: g.head.content, ...(calls.length ? { toolCalls: calls } : {}) }];
    for (const call of calls) {
      const r = g.results.find((x) => x.toolCallId === call.id);
      let content: string;
      if (!r) content = T.noResult;
      else if (old && r.content.length > this.stubMinChars) content = stub(r, g.step);
      else content = this.previewIfLarge(r, this.limitFor(squeeze));
      msgs.push({ role: 'tool', toolCallId: call.id, name: call.name, content });
    }
    return msgs;
  }

  /** Token limit of one tool result (or call arguments) before it shows as a preview. */
  private limitFor(squeeze: Squeeze): number {
    return squeeze === 0 ? this.largeResultTokens : squeeze === 1 ? Math.floor(this.largeResultTokens / 4) : 50;
  }

  private previewIfLarge(e: ViewEvent, limitTokens: number): string {
    if (estimateTokens(e.content) <= limitTokens) return e.content;
    const head = e.content.slice(0, Math.max(80, limitTokens * 4 - 200));
    const payload = e.payload ? fill(T.previewPayload, { handle: e.payload.slice(0, 12) }) : '';
    return fill(T.preview, { head, chars: thousands(e.content.length), seq: e.seq, payload });
  }

  // ---------------------------------------------------------------------------------------------
  // Measuring and eviction planning

  /** Tokens of everything the next call would send. */
  async measure(tools: ToolDefinition[], squeeze: Squeeze = 0): Promise<number> {
    let total = await this.toolTokens(tools);
    const sys = this.systemMessage();
    // The same string object while nothing changed, so this comparison returns at once.
    if (!this.systemCache || this.systemCache.text !== sys) {
      this.systemCache = { text: sys, tokens: (await this.counter(sys)) + MESSAGE_OVERHEAD_TOKENS };
    }
    total += this.systemCache.tokens;
    const step = this.nextStep;
    for (const g of this.groups) total += await this.groupTokens(g, step, this.squeezeFor(g, squeeze));
    return total;
  }

  private async toolTokens(tools: ToolDefinition[]): Promise<number> {
    if (this.toolsCache && this.toolsCache.tools === tools) return this.toolsCache.tokens;
    const tokens = tools.length ? await this.counter(JSON.stringify(tools)) : 0;
    this.toolsCache = { tools, tokens };
    return tokens;
  }

  private async groupTokens(g: Group, step: number, squeeze: Squeeze): Promise<number> {
    // The rendering of a group changes only when it turns "old" (stubs) or is squeezed.
    const key = this.variantKey(g, step, squeeze);
    const hit = g.tokenCache.get(key);
    if (hit !== undefined) return hit;
    let n = 0;
    for (const m of this.renderGroup(g, step, squeeze)) {
      n += MESSAGE_OVERHEAD_TOKENS + (await this.counter(m.content));
      if (m.role === 'assistant' && m.toolCalls?.length) n += await this.counter(JSON.stringify(m.toolCalls));
    }
    g.tokenCache.set(key, n);
    return n;
  }

  /**
   * What to evict before the next call, or null when the view is under the high-water mark.
   * Oldest groups first, skipping the pinned request and never the newest group, until the view
   * is under the low-water mark (or nothing more may leave).
   */
  async planEviction(tools: ToolDefinition[]): Promise<EvictionPlan | null> {
    const tokensBefore = await this.measure(tools);
    if (tokensBefore <= this.highWater * this.budget) return null;
    const target = this.lowWater * this.budget;
    const step = this.nextStep;
    const candidates = this.groups.slice(0, -1).filter((g) => g.firstSeq !== this.pinnedUserSeq);
    let tokens = tokensBefore;
    const leaving: Group[] = [];
    for (const g of candidates) {
      if (tokens <= target) break;
      tokens -= await this.groupTokens(g, step, 0);
      leaving.push(g);
    }
    if (!leaving.length) return null;
    // Spans tile the session without gaps, so a pinned request passed over now is still inside a
    // span when it is unpinned (and leaves) later. Any non-pinned group inside the span leaves too.
    let fromSeq = leaving[0].firstSeq;
    if (this.pinnedUserSeq !== null && this.pinnedUserSeq > this.evictedThroughSeq && this.pinnedUserSeq < fromSeq) {
      fromSeq = this.pinnedUserSeq;
    }
    const toSeq = leaving[leaving.length - 1].lastSeq;
    const seqs: number[] = [];
    for (const g of this.groups) {
      if (g.firstSeq >= fromSeq && g.lastSeq <= toSeq && g.firstSeq !== this.pinnedUserSeq) {
        seqs.push(g.head.seq, ...g.calls.map((c) => c.seq), ...g.results.map((r) => r.seq));
      }
    }
    return { fromSeq, toSeq, groups: leaving.length, seqs, tokensBefore, tokensAfter: tokens };
  }

  /**
   * The messages for the next call, measured, within the budget: normal rendering if it fits,
   * else squeezed previews of the newest group and the request. Throws ViewBudgetError when even
   * the pinned minimum does not fit (the budget is too small for the system prompt and tools).
   */
  async prepare(tools: ToolDefinition[]): Promise<PreparedView> {
    for (const squeeze of [0, 1, 2] as Squeeze[]) {
      const tokens = await this.measure(tools, squeeze);
      if (tokens <= this.budget) return { messages: this.render(squeeze), tokens, budget: this.budget, squeeze };
    }
    const minimum = await this.measure(tools, 2);
    throw new ViewBudgetError(
      `the working view needs at least ${minimum} tokens (system prompt, tool definitions, memory map and the ` +
        `current request) but the budget is ${this.budget}; raise --max-view-tokens or use a model with a larger input limit`,
    );
  }

  /** Events of the segment a plan evicts, for its title (from the in-memory view, no log reads). */
  planEvents(plan: EvictionPlan): Array<{ seq: number; kind: string; name: string | null; content: string; step: number | null }> {
    const out: Array<{ seq: number; kind: string; name: string | null; content: string; step: number | null }> = [];
    for (const g of this.groups) {
      if (g.firstSeq < plan.fromSeq || g.lastSeq > plan.toSeq || g.firstSeq === this.pinnedUserSeq) continue;
      for (const e of [g.head, ...g.calls, ...g.results]) out.push({ seq: e.seq, kind: e.kind, name: e.name, content: e.content, step: e.step });
    }
    return out.sort((a, b) => a.seq - b.seq);
  }

  /** The pinned user request text (the task of the segments evicted under it), or null. */
  currentRequest(): string | null {
    const g = this.groups.find((x) => x.kind === 'user' && x.firstSeq === this.pinnedUserSeq);
    return g ? g.head.content : null;
  }

  /** A comparable picture of the derived state (rendered view + index), for restart checks. */
  fingerprint(): string {
    return JSON.stringify({
      messages: this.render(0),
      index: this.index.snapshot(),
      variables: this.variableDigest(),
      pinned: this.pinnedUserSeq,
      evictedThrough: this.evictedThroughSeq,
      nextStep: this.nextStep,
    });
  }
}

function newGroup(kind: 'user' | 'assistant', head: ViewEvent): Group {
  return { kind, firstSeq: head.seq, lastSeq: head.seq, step: head.step, head, calls: [], results: [], tokenCache: new Map(), renderCache: new Map() };
}

/** 12345 → "12,345" (toLocaleString is slow on a per-step path). */
function thousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** The same arguments with every long string cut to a head plus where the full call is. */
function shrinkInput(input: Record<string, unknown>, maxChars: number, seq: number): Record<string, unknown> {
  const cut = (v: unknown): unknown => {
    if (typeof v === 'string') {
      return v.length <= maxChars ? v : fill(T.callCut, { head: v.slice(0, maxChars), chars: thousands(v.length), seq });
    }
    if (Array.isArray(v)) return v.map(cut);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, cut(x)]));
    return v;
  };
  return cut(input) as Record<string, unknown>;
}

function parseInput(json: string): Record<string, unknown> {
  try {
    const v = JSON.parse(json);
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch {
    return {};
  }
}

function stub(r: ViewEvent, step: number | null): string {
  const first = r.content.split('\n', 1)[0].slice(0, 120);
  return fill(T.stub, { step: step ?? '?', chars: thousands(r.content.length), seq: r.seq, first });
}
