/**
 * A `LanguageModelChatProvider` (vendor `scroll`) over the core's OpenAI-compatible client, so
 * @scroll (and any chat) works with a local server — Ollama, vLLM, llama.cpp — in editors without
 * Copilot. Off until `scroll.openai.baseUrl` and `scroll.openai.model` are set; the API key lives in
 * SecretStorage (command "Scroll: Set OpenAI-Compatible API Key").
 */
import * as vscode from 'vscode';
import type { ChatMessage, ToolCall, ToolDefinition } from '../../core/agent/model';
import { readConfig } from '../config';

export const OPENAI_VENDOR = 'scroll';
export const OPENAI_KEY_SECRET = 'scroll.openai.apiKey';
/** vscode.LanguageModelChatMessageRole.System exists only in the proposed API; its value is 3. */
const SYSTEM_ROLE = 3;

export function registerOpenAIProvider(context: vscode.ExtensionContext): void {
  const changed = new vscode.EventEmitter<void>();
  const config = () => readConfig(context.globalStorageUri.fsPath).openai;
  const provider: vscode.LanguageModelChatProvider = {
    onDidChangeLanguageModelChatInformation: changed.event,
    provideLanguageModelChatInformation() {
      const c = config();
      if (!c.baseUrl || !c.model) return [];
      return [
        {
          id: `openai-compatible/${c.model}`,
          name: `${c.model} (Scroll, OpenAI-compatible)`,
          family: c.model,
          version: '1',
          tooltip: `${c.model} at ${c.baseUrl}`,
          detail: hostOf(c.baseUrl),
          maxInputTokens: c.maxInputTokens,
          maxOutputTokens: 4096,
          capabilities: { toolCalling: true, imageInput: false },
        },
      ];
    },
    async provideLanguageModelChatResponse(_model, messages, options, progress, token) {
      const c = config();
      if (!c.baseUrl || !c.model) throw new Error('Scroll: set scroll.openai.baseUrl and scroll.openai.model to use the OpenAI-compatible provider.');
      const apiKey = (await context.secrets.get(OPENAI_KEY_SECRET)) || undefined;
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { OpenAICompatibleClient } = require('../../core/agent/openaiClient') as typeof import('../../core/agent/openaiClient');
      const client = new OpenAICompatibleClient({ baseUrl: c.baseUrl, model: c.model, apiKey, maxInputTokens: c.maxInputTokens });
      const abort = new AbortController();
      const sub = token.onCancellationRequested(() => abort.abort());
      try {
        const tools: ToolDefinition[] = (options.tools ?? []).map((t) => ({
          name: t.name,
          description: t.description,
          inputSchema: (t.inputSchema as Record<string, unknown>) ?? { type: 'object', properties: {} },
        }));
        for await (const chunk of client.send(fromRequestMessages(messages), tools, { signal: abort.signal })) {
          if (chunk.type === 'text') progress.report(new vscode.LanguageModelTextPart(chunk.text));
          else if (chunk.type === 'tool_call') progress.report(new vscode.LanguageModelToolCallPart(chunk.call.id, chunk.call.name, chunk.call.input));
        }
      } finally {
        sub.dispose();
      }
    },
    async provideTokenCount(_model, text) {
      const s = typeof text === 'string' ? text : fromRequestMessages([text]).map((m) => ('content' in m ? m.content : '')).join('\n');
      return Math.ceil(s.length / 4);
    },
  };
  context.subscriptions.push(
    changed,
    vscode.lm.registerLanguageModelChatProvider(OPENAI_VENDOR, provider),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('scroll.openai')) changed.fire();
    }),
    context.secrets.onDidChange((e) => {
      if (e.key === OPENAI_KEY_SECRET) changed.fire();
    }),
    vscode.commands.registerCommand('scroll.setOpenAIKey', async (key?: string) => {
      const value =
        typeof key === 'string'
          ? key
          : await vscode.window.showInputBox({
              title: 'Scroll: API key of the OpenAI-compatible server',
              prompt: 'Stored in the editor\'s secret storage. Leave empty to remove the key (local servers usually need none).',
              password: true,
              ignoreFocusOut: true,
            });
      if (value === undefined) return false;
      if (value.trim()) await context.secrets.store(OPENAI_KEY_SECRET, value.trim());
      else await context.secrets.delete(OPENAI_KEY_SECRET);
      if (typeof key !== 'string') {
        void vscode.window.showInformationMessage(value.trim() ? 'Scroll: API key saved.' : 'Scroll: API key removed.');
      }
      return true;
    }),
  );
}

/** vscode.lm request messages → the core's chat messages (tool results become `tool` messages). */
export function fromRequestMessages(messages: readonly vscode.LanguageModelChatRequestMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  const toolNames = new Map<string, string>();
  for (const m of messages) {
    let text = '';
    const calls: ToolCall[] = [];
    const results: ChatMessage[] = [];
    for (const part of m.content) {
      if (part instanceof vscode.LanguageModelTextPart) text += part.value;
      else if (part instanceof vscode.LanguageModelToolCallPart) {
        toolNames.set(part.callId, part.name);
        calls.push({ id: part.callId, name: part.name, input: (part.input ?? {}) as Record<string, unknown> });
      } else if (part instanceof vscode.LanguageModelToolResultPart) {
        const content = part.content.map((c) => (c instanceof vscode.LanguageModelTextPart ? c.value : typeof c === 'string' ? c : JSON.stringify(c))).join('');
        results.push({ role: 'tool', toolCallId: part.callId, name: toolNames.get(part.callId) ?? 'tool', content });
      }
    }
    if (m.role === vscode.LanguageModelChatMessageRole.Assistant) {
      out.push(calls.length ? { role: 'assistant', content: text, toolCalls: calls } : { role: 'assistant', content: text });
    } else {
      out.push(...results);
      if (text || !results.length) out.push({ role: (m.role as number) === SYSTEM_ROLE ? 'system' : 'user', content: text });
    }
  }
  return out;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
