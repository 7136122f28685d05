/**
 * The agent loop's `ModelClient` over a `vscode.lm` chat model (`request.model` in the participant).
 * vscode.lm has no system role: the system prompt goes first as a user message. Consecutive tool
 * results are sent in one user message, right after the assistant turn that asked for them.
 */
import * as vscode from 'vscode';
import type { ChatMessage, ModelChunk, ModelClient, ModelRequestOptions, ToolDefinition } from '../../core/agent/model';

export class VscodeModelClient implements ModelClient {
  readonly id: string;
  readonly maxInputTokens: number;

  constructor(
    private readonly model: vscode.LanguageModelChat,
    private readonly cancellation?: vscode.CancellationToken,
  ) {
    this.id = `${model.vendor}/${model.id}`;
    this.maxInputTokens = model.maxInputTokens;
  }

  async *send(messages: ChatMessage[], tools: ToolDefinition[], opts: ModelRequestOptions = {}): AsyncIterable<ModelChunk> {
    const cts = new vscode.CancellationTokenSource();
    const subs: { dispose(): void }[] = [cts];
    if (this.cancellation) subs.push(this.cancellation.onCancellationRequested(() => cts.cancel()));
    const onAbort = () => cts.cancel();
    opts.signal?.addEventListener('abort', onAbort);
    try {
      let response: vscode.LanguageModelChatResponse;
      try {
        response = await this.model.sendRequest(
          toLanguageModelMessages(messages),
          {
            justification: 'Scroll runs its agent loop with the chat model you picked.',
            tools: tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
            toolMode: vscode.LanguageModelChatToolMode.Auto,
          },
          cts.token,
        );
      } catch (e) {
        throw new Error(describeLanguageModelError(e, this.id), { cause: e });
      }
      // Errors can also arrive mid-stream (the provider fails after the request was accepted).
      const stream = response.stream[Symbol.asyncIterator]();
      for (;;) {
        let next: IteratorResult<unknown>;
        try {
          next = await stream.next();
        } catch (e) {
          if (cts.token.isCancellationRequested) return;
          throw new Error(describeLanguageModelError(e, this.id), { cause: e });
        }
        if (next.done) break;
        const part = next.value;
        if (part instanceof vscode.LanguageModelTextPart) {
          if (part.value) yield { type: 'text', text: part.value };
        } else if (part instanceof vscode.LanguageModelToolCallPart) {
          yield { type: 'tool_call', call: { id: part.callId, name: part.name, input: asObject(part.input) } };
        }
      }
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
      for (const s of subs) s.dispose();
    }
  }

  async countTokens(text: string): Promise<number> {
    try {
      return await this.model.countTokens(text, this.cancellation);
    } catch {
      return Math.ceil(text.length / 4); // the model cannot count: the core's estimate
    }
  }
}

export function toLanguageModelMessages(messages: ChatMessage[]): vscode.LanguageModelChatMessage[] {
  const out: vscode.LanguageModelChatMessage[] = [];
  let pendingResults: vscode.LanguageModelToolResultPart[] = [];
  const flush = () => {
    if (pendingResults.length) out.push(vscode.LanguageModelChatMessage.User(pendingResults));
    pendingResults = [];
  };
  for (const m of messages) {
    if (m.role === 'tool') {
      pendingResults.push(new vscode.LanguageModelToolResultPart(m.toolCallId, [new vscode.LanguageModelTextPart(m.content)]));
      continue;
    }
    flush();
    if (m.role === 'system' || m.role === 'user') {
      out.push(vscode.LanguageModelChatMessage.User(m.content));
    } else {
      const parts: (vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart)[] = [];
      if (m.content) parts.push(new vscode.LanguageModelTextPart(m.content));
      for (const c of m.toolCalls ?? []) parts.push(new vscode.LanguageModelToolCallPart(c.id, c.name, c.input));
      out.push(vscode.LanguageModelChatMessage.Assistant(parts.length ? parts : ''));
    }
  }
  flush();
  return out;
}

/** A message a person can act on, for the errors `sendRequest` raises. */
export function describeLanguageModelError(e: unknown, modelId: string): string {
  if (e instanceof vscode.LanguageModelError) {
    switch (e.code) {
      case vscode.LanguageModelError.NoPermissions.name:
        return `Scroll may not use the model ${modelId}: allow it in the chat model access prompt (or Accounts → Manage Language Model Access) and try again.`;
      case vscode.LanguageModelError.Blocked.name:
        return `The model ${modelId} is blocked for Scroll right now (quota or policy). Wait a moment or pick another model in the chat view.`;
      case vscode.LanguageModelError.NotFound.name:
        return `The model ${modelId} is no longer available. Pick another model in the chat view.`;
      default:
        return `The model ${modelId} failed: ${e.message}${e.cause instanceof Error ? ` (${e.cause.message})` : ''}`;
    }
  }
  return `The model ${modelId} failed: ${e instanceof Error ? e.message : String(e)}`;
}

function asObject(v: unknown): Record<string, unknown> {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
