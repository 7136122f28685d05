/**
 * What the agent loop needs from a language model. Implementations: OpenAICompatibleClient (HTTP),
 * the vscode.lm adapter (src/vscode), and ScriptedModelClient for tests.
 */

export interface ToolCall {
  id: string;
  name: string;
  /** Parsed JSON arguments. */
  input: Record<string, unknown>;
  /**
   * Set when the model's arguments were not a JSON object: what was wrong. `input` is then `{}` and
   * the agent loop answers the call with this error instead of running the tool.
   */
  inputError?: string;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string };

export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON schema of the input object. */
  inputSchema: Record<string, unknown>;
}

export type ModelChunk =
  | { type: 'text'; text: string }
  | { type: 'tool_call'; call: ToolCall }
  | { type: 'usage'; inputTokens?: number; outputTokens?: number };

export interface ModelRequestOptions {
  signal?: AbortSignal;
  /** Ask for a JSON object answer (side requests such as eviction titles). */
  json?: boolean;
  maxOutputTokens?: number;
}

export interface ModelClient {
  /** Human-readable model id, logged with every model turn. */
  readonly id: string;
  /** The model's input limit in tokens; the working-view budget derives from it. */
  readonly maxInputTokens: number;
  send(messages: ChatMessage[], tools: ToolDefinition[], opts?: ModelRequestOptions): AsyncIterable<ModelChunk>;
  countTokens(text: string): Promise<number>;
}
