/**
 * What changed between two readings of Scroll's settings, as lines for the "Scroll" output channel.
 * Pure: no `vscode`. Values that may carry a credential (an endpoint URL with `user:pw@`) are not shown.
 */
import type { ScrollConfig } from './config';

type Setting = [name: string, read: (c: ScrollConfig) => unknown, secret?: true];

const SETTINGS: Setting[] = [
  ['scroll.log.path', (c) => c.logPath],
  ['scroll.redaction.enabled', (c) => c.redact],
  ['scroll.kernel.backend', (c) => c.kernelBackend],
  ['scroll.kernel.sandbox', (c) => c.kernelSandbox],
  ['scroll.kernel.timeoutMs', (c) => c.kernelTimeoutMs],
  ['scroll.kernel.outputCap', (c) => c.outputCap],
  ['scroll.python.path', (c) => c.pythonPath],
  ['scroll.view.maxTokens', (c) => c.viewMaxTokens],
  ['scroll.index.levelCap', (c) => c.indexLevelCap],
  ['scroll.openai.baseUrl', (c) => c.openai.baseUrl, true],
  ['scroll.openai.model', (c) => c.openai.model],
  ['scroll.openai.maxInputTokens', (c) => c.openai.maxInputTokens],
  ['scroll.search.embeddings.endpoint', (c) => c.embeddings.endpoint, true],
  ['scroll.search.embeddings.model', (c) => c.embeddings.model],
  ['scroll.search.embeddings.apiKeyEnv', (c) => c.embeddings.apiKeyEnv],
];

function shown(v: unknown): string {
  return v === '' ? '(default)' : JSON.stringify(v);
}

/** One line per setting whose effective value differs, e.g. `scroll.kernel.sandbox: "auto" → "off"`. */
export function configChanges(before: ScrollConfig, after: ScrollConfig): string[] {
  const lines: string[] = [];
  for (const [name, read, secret] of SETTINGS) {
    const a = read(before);
    const b = read(after);
    if (a === b) continue;
    lines.push(secret ? `${name} changed (value not shown: it may hold a credential)` : `${name}: ${shown(a)} → ${shown(b)}`);
  }
  return lines;
}
