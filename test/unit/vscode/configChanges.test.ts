import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ScrollConfig } from '../../../src/vscode/config';
import { configChanges } from '../../../src/vscode/configChanges';

const base: ScrollConfig = {
  logPath: '/ws/.scroll/scroll.db',
  kernelBackend: 'auto',
  kernelSandbox: 'auto',
  pythonPath: '',
  viewMaxTokens: 0,
  indexLevelCap: 8,
  redact: true,
  kernelTimeoutMs: 60_000,
  outputCap: 20_000,
  openai: { baseUrl: '', model: '', maxInputTokens: 32_768 },
  embeddings: { endpoint: '', model: '', apiKeyEnv: '' },
};

test('nothing changed: no line', () => {
  assert.deepEqual(configChanges(base, { ...base, openai: { ...base.openai } }), []);
});

test('one line per changed setting, with both values', () => {
  const after: ScrollConfig = { ...base, kernelSandbox: 'off', kernelTimeoutMs: 1_000, pythonPath: '/usr/bin/python3', redact: false };
  assert.deepEqual(configChanges(base, after), [
    'scroll.redaction.enabled: true → false',
    'scroll.kernel.sandbox: "auto" → "off"',
    'scroll.kernel.timeoutMs: 60000 → 1000',
    'scroll.python.path: (default) → "/usr/bin/python3"',
  ]);
});

test('an endpoint URL, which may carry a credential, is never shown', () => {
  const after: ScrollConfig = { ...base, openai: { ...base.openai, baseUrl: 'https://user:s3cret@llm.example/v1', model: 'qwen' } };
  const lines = configChanges(base, after);
  assert.deepEqual(lines, ['scroll.openai.baseUrl changed (value not shown: it may hold a credential)', 'scroll.openai.model: (default) → "qwen"']);
  assert.ok(!lines.join('\n').includes('s3cret'));
});
