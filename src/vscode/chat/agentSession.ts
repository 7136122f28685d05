/**
 * One @scroll chat session's agent loop, kept between turns. Its model client delegates to the
 * chat model of the current request (each request brings its own model and cancellation token);
 * a different model rebuilds the loop — from the log, so nothing is lost.
 */
import * as vscode from 'vscode';
import { AgentLoop, type AgentProgress, type AgentRunResult } from '../../core/agent/agentLoop';
import type { ChatMessage, ModelChunk, ModelClient, ModelRequestOptions, ToolDefinition } from '../../core/agent/model';
import { SCROLL_EXEC, type AgentTool, type ToolContext, type ToolOutput } from '../../core/agent/tools';
import { toolDescription } from '../../prompts';
import type { EventLog } from '../../core/log/eventLog';
import type { ScrollServices } from '../services';
import { VscodeModelClient } from '../lm/vscodeModelClient';
import { DECLINED_CELL_RESULT, PARTICIPANT_TOOLS, TRUSTED_ONLY_TOOLS } from '../tools/registerTools';

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
}

/** Our registered tools as agent-loop tools: each call goes through vscode.lm.invokeTool. */
function bridgeTools(services: ScrollServices, hooks: () => TurnHooks | undefined): AgentTool[] {
  const tools: AgentTool[] = [];
  for (const name of PARTICIPANT_TOOLS) {
    if (!vscode.workspace.isTrusted && TRUSTED_ONLY_TOOLS.has(name)) continue;
    const info = vscode.lm.tools.find((t) => t.name === name);
    if (!info) continue;
    tools.push({
      definition: {
        name,
        description: name === SCROLL_EXEC ? toolDescription('scroll_exec') : info.description,
        inputSchema: (info.inputSchema as Record<string, unknown>) ?? { type: 'object', properties: {} },
      },
      async invoke(input, ctx): Promise<ToolOutput> {
        const h = hooks();
        const expecting = name === SCROLL_EXEC ? services.expectExec(ctx.callId, ctx) : undefined;
        try {
          const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: h?.toolInvocationToken }, h?.token);
          const content = result.content
            .map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : ''))
            .join('');
          const exec = expecting ? services.execOutput(ctx.callId) : undefined;
          // No output: VS Code answered without invoking the tool (the user chose to skip the cell).
          if (expecting && !exec) return declinedCell(input, ctx, 'skipped', content);
          return exec ? { ...exec, content } : { content };
        } catch (e) {
          // The user denied the confirmation: VS Code rejects invokeTool with a CancellationError
          // (over the extension-host RPC: an Error named "Canceled") and never invokes the tool. A
          // cancelled request rejects the same way; then the turn's own token is cancelled.
          if (expecting && isCancellation(e) && !h?.token.isCancellationRequested) return declinedCell(input, ctx, 'denied');
          throw e;
        } finally {
          expecting?.dispose();
        }
      },
    });
  }
  return tools;
}

function isCancellation(e: unknown): boolean {
  return e instanceof vscode.CancellationError || (e instanceof Error && e.name === 'Canceled' && e.message === 'Canceled');
}

/**
 * A scroll_exec cell the user declined (Deny, or Skip): logged as a kernel_exec with
 * `meta.denied`, so the history shows what was asked and refused; it never reached a kernel.
 */
function declinedCell(input: Record<string, unknown>, ctx: ToolContext, how: 'denied' | 'skipped', vscodeText?: string): ToolOutput {
  ctx.appendEvent({
    kind: 'kernel_exec',
    role: 'kernel',
    name: SCROLL_EXEC,
    content: typeof input.code === 'string' ? input.code : JSON.stringify(input),
    toolCallId: ctx.callId,
    parentSeq: ctx.callSeq,
    meta: { denied: true, ...(how === 'skipped' ? { skipped: true } : {}) },
  });
  const content = how === 'skipped' && vscodeText ? `${DECLINED_CELL_RESULT} (${vscodeText})` : DECLINED_CELL_RESULT;
  return { content, isError: true, meta: { denied: true } };
}

export class AgentSession {
  private loop: AgentLoop | undefined;
  private client: RequestModelClient | undefined;
  private hooks: TurnHooks | undefined;
  private loopKey = '';
  private loopLog: EventLog | undefined;

  constructor(
    readonly session: string,
    private readonly services: ScrollServices,
  ) {}

  get budget(): number | undefined {
    return this.loop?.budget;
  }

  get loaded(): AgentLoop | undefined {
    return this.loop;
  }

  async run(prompt: string, model: vscode.LanguageModelChat, hooks: TurnHooks): Promise<AgentRunResult> {
    const cfg = this.services.config;
    // A different model or view settings rebuild the loop (from the log: nothing is lost).
    const key = `${model.vendor}/${model.id}|${cfg.viewMaxTokens}|${cfg.indexLevelCap}|${cfg.kernelTimeoutMs}`;
    const log = this.services.log(); // reopened after a settings change or a trust grant: rebuild then too
    if (!this.loop || !this.client || this.loopKey !== key || this.loopLog !== log) {
      this.loopKey = key;
      this.loopLog = log;
      this.client = new RequestModelClient(model, hooks.token);
      this.loop = AgentLoop.open({
        log,
        session: this.session,
        model: this.client,
        tools: bridgeTools(this.services, () => this.hooks),
        maxViewTokens: cfg.viewMaxTokens > 0 ? cfg.viewMaxTokens : undefined,
        view: { indexCap: Math.max(3, cfg.indexLevelCap) },
        execTimeoutMs: cfg.kernelTimeoutMs,
      });
    } else {
      this.client.use(model, hooks.token);
    }
    const abort = new AbortController();
    const sub = hooks.token.onCancellationRequested(() => abort.abort());
    this.hooks = hooks;
    try {
      return await this.loop.run(prompt, { signal: abort.signal, onProgress: hooks.onProgress });
    } finally {
      this.hooks = undefined;
      sub.dispose();
    }
  }
}
