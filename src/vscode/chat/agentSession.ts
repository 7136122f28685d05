/**
 * One @scroll chat session's agent loop, kept between turns. Its model client delegates to the
 * chat model of the current request (each request brings its own model and cancellation token);
 * a different model rebuilds the loop — from the log, so nothing is lost.
 *
 * Python: the loop's scroll_exec runs cells in this session's own kernel (`KernelPool.handle`), with
 * `scroll.kernel.timeoutMs` per cell; no cell goes through vscode.lm, so two sessions running Python
 * at once cannot take each other's kernel. Consent goes through the loop's `confirm` hook: the cell
 * asks first exactly when it will not run in Scroll's sandbox (`cellConfinement`: unsandboxed, or the
 * user's Jupyter kernel), in a modal dialog (cellConsent.ts); a declined cell is logged as a
 * kernel_exec with `meta.denied` and never reaches a kernel; `require` without a sandbox refuses,
 * and the refusal is the tool result. The other tools go through vscode.lm.invokeTool, so VS Code
 * shows their confirmations (edits, commands) in the chat: Scroll's own and the editor's toolbox
 * (toolbox.ts: other extensions' and MCP servers' tools the `scroll.chat.tools` setting allows or
 * the request attached with `#`; an editor tool that does what one of Scroll's does replaces it).
 */
import * as vscode from 'vscode';
import { AgentLoop, type AgentProgress, type AgentRunResult, type ConfirmRequest } from '../../core/agent/agentLoop';
import type { ChatMessage, ModelChunk, ModelClient, ModelRequestOptions, ToolDefinition } from '../../core/agent/model';
import { SCROLL_EXEC, scrollExecTool, type AgentTool, type ToolOutput } from '../../core/agent/tools';
import type { EventLog } from '../../core/log/eventLog';
import { toolDescription } from '../../prompts';
import { cellAsksFirst } from '../kernel/cellConfinement';
import { VscodeModelClient } from '../lm/vscodeModelClient';
import { errorText, msSince, out } from '../output';
import type { ScrollServices } from '../services';
import { PARTICIPANT_TOOLS, TRUSTED_ONLY_TOOLS } from '../tools/registerTools';
import { changesFiles, chooseToolbox, resultText, watchProblems } from './toolbox';
import type { ToolboxChoice } from './toolboxSelection';

/** What a session needs of Scroll's services. */
export type AgentServices = Pick<ScrollServices, 'settings' | 'logs' | 'kernels' | 'consent'>;

/** Forwards to the current request's vscode.lm model. */
class RequestModelClient implements ModelClient {
  readonly id: string;
  readonly maxInputTokens: number;
  private current: VscodeModelClient;

  constructor(model: vscode.LanguageModelChat, token: vscode.CancellationToken) {
    this.current = new VscodeModelClient(model, token);
    this.id = this.current.id;
    this.maxInputTokens = this.current.maxInputTokens;
  }

  use(model: vscode.LanguageModelChat, token: vscode.CancellationToken): void {
    this.current = new VscodeModelClient(model, token);
  }

  send(messages: ChatMessage[], tools: ToolDefinition[], opts?: ModelRequestOptions): AsyncIterable<ModelChunk> {
    return this.current.send(messages, tools, opts);
  }

  countTokens(text: string): Promise<number> {
    return this.current.countTokens(text);
  }
}

export interface TurnHooks {
  toolInvocationToken: vscode.ChatParticipantToolToken | undefined;
  token: vscode.CancellationToken;
  onProgress: (p: AgentProgress) => void;
  /** Shows a whole cell in the chat (the consent dialog shows long cells cut). */
  showCell?: (code: string) => void;
  /** Tools the user attached to the request with `#` (`request.toolReferences`). */
  toolReferences?: readonly string[];
}

/** What the model is told when a cell's confinement changed between the question and the run. */
const CONFINEMENT_CHANGED = 'not run: the kernel\'s sandbox changed while the cell waited (scroll.kernel.sandbox or scroll.kernel.backend); send the cell again';

function cellCode(input: Record<string, unknown>): string {
  return typeof input.code === 'string' ? input.code : JSON.stringify(input);
}

export class AgentSession {
  private loop: AgentLoop | undefined;
  private client: RequestModelClient | undefined;
  private hooks: TurnHooks | undefined;
  private loopKey = '';
  private loopLog: EventLog | undefined;
  /** Cells the user allowed in the confirm hook, not run yet (by call id). */
  private readonly allowedCalls = new Set<string>();
  /** Cells the user declined in this turn (by call id): the chat says so once. */
  private readonly declinedCalls = new Set<string>();
  /** Seq of each tool_call event of this turn (a declined cell's parent). */
  private readonly callSeqs = new Map<string, number>();

  constructor(
    readonly session: string,
    private readonly services: AgentServices,
  ) {}

  get budget(): number | undefined {
    return this.loop?.budget;
  }

  get loaded(): AgentLoop | undefined {
    return this.loop;
  }

  /** The user declined this call's cell (this turn). */
  declined(callId: string): boolean {
    return this.declinedCalls.has(callId);
  }

  async run(prompt: string, model: vscode.LanguageModelChat, hooks: TurnHooks): Promise<AgentRunResult> {
    const cfg = this.services.settings.config;
    // A different model or view settings rebuild the loop (from the log: nothing is lost).
    const toolbox = chooseToolbox(PARTICIPANT_TOOLS, hooks.toolReferences ?? []);
    const toolboxKey = [...toolbox.offered.map((t) => t.name), ...toolbox.replaced.keys()].join(',');
    const key = `${model.vendor}/${model.id}|${cfg.viewMaxTokens}|${cfg.indexLevelCap}|${cfg.kernelTimeoutMs}|${toolboxKey}`;
    const log = this.services.logs.log(); // reopened after a settings change or a trust grant: rebuild then too
    if (!this.loop || !this.client || this.loopKey !== key || this.loopLog !== log) {
      const t0 = performance.now();
      this.loopKey = key;
      this.loopLog = log;
      this.client = new RequestModelClient(model, hooks.token);
      this.loop = AgentLoop.open({
        log,
        session: this.session,
        model: this.client,
        tools: this.tools(cfg.kernelTimeoutMs, toolbox),
        confirm: (req) => this.confirm(req),
        maxViewTokens: cfg.viewMaxTokens > 0 ? cfg.viewMaxTokens : undefined,
        view: { indexCap: Math.max(3, cfg.indexLevelCap) },
      });
      out.debug(`session ${this.session}: agent loop opened for ${model.vendor}/${model.id} in ${msSince(t0)} (view budget ${this.loop.budget} tokens)`);
      if (toolboxKey) {
        out.info(
          `session ${this.session}: editor tools offered: ${toolbox.offered.map((t) => t.name).join(', ') || 'none'}` +
            (toolbox.replaced.size ? `; in place of ${[...toolbox.replaced].map(([own, editor]) => `${own} (${editor})`).join(', ')}` : ''),
        );
      }
    } else {
      this.client.use(model, hooks.token);
    }
    const abort = new AbortController();
    const sub = hooks.token.onCancellationRequested(() => abort.abort());
    this.hooks = hooks;
    this.declinedCalls.clear();
    this.callSeqs.clear();
    const t0 = performance.now();
    try {
      const r = await this.loop.run(prompt, { signal: abort.signal, onProgress: this.traced(hooks.onProgress) });
      out.info(
        `session ${this.session}: turn done in ${msSince(t0)}, seq ${r.userSeq}–${r.lastSeq}: ${r.steps} model call(s), ` +
          `${r.toolCalls} tool call(s), ${r.evictions} eviction(s)${r.stopped === 'max_steps' ? '; stopped at the step limit' : ''}`,
      );
      return r;
    } catch (e) {
      if (abort.signal.aborted) out.info(`session ${this.session}: turn cancelled after ${msSince(t0)}`);
      else out.debug(`session ${this.session}: turn failed after ${msSince(t0)}: ${errorText(e)}`);
      throw e;
    } finally {
      this.hooks = undefined;
      this.allowedCalls.clear();
      sub.dispose();
    }
  }

  /** scroll_exec (this session's kernel), the registered tools, then the editor's toolbox, all but scroll_exec through vscode.lm.invokeTool. */
  private tools(timeoutMs: number, toolbox: ToolboxChoice): AgentTool[] {
    const tools: AgentTool[] = [];
    for (const name of PARTICIPANT_TOOLS) {
      if (!this.services.settings.trusted && TRUSTED_ONLY_TOOLS.has(name)) continue;
      if (toolbox.replaced.has(name)) continue; // the editor's own tool does this job
      // The model sees each tool as registered (package.json): name, description, input schema.
      const info = vscode.lm.tools.find((t) => t.name === name);
      if (name === SCROLL_EXEC) {
        tools.push(this.execTool(timeoutMs, info && { name, description: toolDescription('scroll_exec'), inputSchema: info.inputSchema as Record<string, unknown> }));
      } else if (info) {
        tools.push(this.bridgedTool({ name, description: info.description, inputSchema: (info.inputSchema as Record<string, unknown>) ?? { type: 'object', properties: {} } }));
      }
    }
    for (const t of toolbox.offered) {
      tools.push(this.bridgedTool({ name: t.name, description: t.description, inputSchema: (t.inputSchema as Record<string, unknown>) ?? { type: 'object', properties: {} } }));
    }
    return tools;
  }

  /**
   * scroll_exec in this session's kernel. `needsConfirmation` is read by the loop before each call:
   * true exactly when the cell will not run sandboxed (then the loop asks `confirm`).
   */
  private execTool(timeoutMs: number, definition?: ToolDefinition): AgentTool {
    const { kernels } = this.services;
    const session = this.session;
    const allowed = this.allowedCalls;
    const cell = scrollExecTool(kernels.handle(session), { timeoutMs, kernelLogsCells: false });
    return {
      definition: definition?.inputSchema ? definition : cell.definition,
      get needsConfirmation() {
        try {
          return cellAsksFirst(kernels.cellConfinement(session));
        } catch {
          return true; // cannot tell: ask
        }
      },
      async invoke(input, ctx): Promise<ToolOutput> {
        const confinement = kernels.cellConfinement(session);
        if (confinement.kind === 'refused') throw new Error(confinement.refusal); // nothing runs, nothing else is logged
        const askedFirst = allowed.delete(ctx.callId);
        if (cellAsksFirst(confinement) && !askedFirst) return { content: CONFINEMENT_CHANGED, isError: true };
        await kernels.get(session); // a kernel that cannot start fails here, before the cell is logged
        const r = await cell.invoke(input, ctx);
        return typeof r === 'string' ? { content: r } : r;
      },
    };
  }

  private bridgedTool(definition: ToolDefinition): AgentTool {
    return {
      definition,
      invoke: async (input): Promise<ToolOutput> => {
        const h = this.hooks;
        // Watched before the call: the language server may report while the tool is still running.
        const problems = changesFiles(definition.name) ? watchProblems(input) : undefined;
        let result: vscode.LanguageModelToolResult;
        try {
          result = await vscode.lm.invokeTool(definition.name, { input, toolInvocationToken: h?.toolInvocationToken }, h?.token);
        } catch (e) {
          problems?.dispose();
          throw e;
        }
        const text = resultText(result);
        return { content: problems ? text + (await problems.report()) : text };
      },
    };
  }

  /** The loop's confirm hook: only scroll_exec asks (when its cell will not run sandboxed). */
  private async confirm({ call, step }: ConfirmRequest): Promise<boolean> {
    if (call.name !== SCROLL_EXEC) return false;
    const confinement = this.services.kernels.cellConfinement(this.session);
    if (!cellAsksFirst(confinement)) return true; // sandboxed (or refused) by now: invoke decides
    const code = cellCode(call.input);
    const outcome = await this.services.consent.ask({ session: this.session, code, confinement, showCell: this.hooks?.showCell }, this.hooks?.token);
    if (outcome === 'allowed') {
      this.allowedCalls.add(call.id);
      return true;
    }
    if (outcome === 'denied') this.logDeclined(call.id, step, code);
    return false;
  }

  /**
   * A cell the user declined: logged as a kernel_exec with `meta.denied`, so the history shows what was
   * asked and refused; it never reached a kernel. (The loop writes the tool_result.)
   */
  private logDeclined(callId: string, step: number, code: string): void {
    this.declinedCalls.add(callId);
    const ev = this.loopLog!.append({
      kind: 'kernel_exec',
      role: 'kernel',
      name: SCROLL_EXEC,
      session: this.session,
      step,
      content: code,
      toolCallId: callId,
      parentSeq: this.callSeqs.get(callId) ?? null,
      meta: { denied: true },
    });
    out.info(`session ${this.session}: the user declined a cell; logged as seq ${ev.seq}`);
  }

  /** Progress to the chat, plus the output channel: steps, tool calls (name, seqs, duration, size), evictions. */
  private traced(onProgress: (p: AgentProgress) => void): (p: AgentProgress) => void {
    const started = new Map<string, number>();
    return (p) => {
      switch (p.type) {
        case 'step':
          out.trace(`session ${this.session} step ${p.step}: view ${p.viewTokens} of ${p.budget} tokens, ${p.messages} messages, built in ${Math.round(p.viewMs)} ms`);
          break;
        case 'tool_call':
          this.callSeqs.set(p.call.id, p.seq);
          started.set(p.call.id, performance.now());
          break;
        case 'tool_result': {
          const t0 = started.get(p.call.id);
          const took = t0 === undefined ? '' : `, ${msSince(t0)}`;
          out.debug(
            `session ${this.session} step ${p.step}: ${p.call.name} seq ${this.callSeqs.get(p.call.id) ?? '?'}→${p.seq}${took}, ` +
              `${p.isError ? 'error' : 'ok'}, ${p.content.length} characters`,
          );
          break;
        }
        case 'eviction':
          out.info(`session ${this.session} step ${p.step}: evicted seq ${p.fromSeq}–${p.toSeq} (${p.events} events) from the working view as seq ${p.seq}; title: ${p.titleSource}`);
          break;
        default:
          break;
      }
      onProgress(p);
    };
  }
}
