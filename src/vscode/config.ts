/** Scroll's settings, read in one place with their defaults and bounds. */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { parseSandboxMode, type SandboxMode } from '../core/kernel/sandbox';

export type KernelBackendSetting = 'auto' | 'jupyter' | 'subprocess';

export interface ScrollConfig {
  /** Absolute path of the database file. */
  logPath: string;
  kernelBackend: KernelBackendSetting;
  /** `scroll.kernel.sandbox`: auto (sandbox where available, else every cell asks), require, off. */
  kernelSandbox: SandboxMode;
  /** Empty: let the kernel factory pick (Python extension, else python3). */
  pythonPath: string;
  /** 0: derive from the model's input limit. */
  viewMaxTokens: number;
  indexLevelCap: number;
  redact: boolean;
  kernelTimeoutMs: number;
  outputCap: number;
  openai: { baseUrl: string; model: string; maxInputTokens: number };
  /** Opt-in hybrid search (`scroll.search.embeddings.*`): off while endpoint or model is empty. */
  embeddings: { endpoint: string; model: string; apiKeyEnv: string };
}

export function workspaceRoot(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

export function readConfig(globalStorageDir: string): ScrollConfig {
  const c = vscode.workspace.getConfiguration('scroll', vscode.workspace.workspaceFolders?.[0]?.uri ?? null);
  const root = workspaceRoot();
  const configured = (c.get<string>('log.path') ?? '').trim();
  const base = root ?? globalStorageDir;
  const logPath = configured
    ? path.resolve(base, expandHome(configured))
    : path.join(base, root ? '.scroll' : '', 'scroll.db');
  const backend = c.get<string>('kernel.backend', 'auto');
  return {
    logPath,
    kernelBackend: backend === 'jupyter' || backend === 'subprocess' ? backend : 'auto',
    kernelSandbox: parseSandboxMode(c.get<string>('kernel.sandbox', 'auto')),
    pythonPath: (c.get<string>('python.path') ?? '').trim(),
    viewMaxTokens: clamp(c.get<number>('view.maxTokens', 0), 0, 10_000_000),
    indexLevelCap: clamp(c.get<number>('index.levelCap', 8), 2, 64),
    redact: c.get<boolean>('redaction.enabled', true),
    kernelTimeoutMs: clamp(c.get<number>('kernel.timeoutMs', 60_000), 1_000, 24 * 3600_000),
    outputCap: clamp(c.get<number>('kernel.outputCap', 20_000), 1_000, 10_000_000),
    openai: {
      baseUrl: (c.get<string>('openai.baseUrl') ?? '').trim(),
      model: (c.get<string>('openai.model') ?? '').trim(),
      maxInputTokens: clamp(c.get<number>('openai.maxInputTokens', 32_768), 1_024, 10_000_000),
    },
    embeddings: {
      endpoint: (c.get<string>('search.embeddings.endpoint') ?? '').trim(),
      model: (c.get<string>('search.embeddings.model') ?? '').trim(),
      apiKeyEnv: (c.get<string>('search.embeddings.apiKeyEnv') ?? '').trim(),
    },
  };
}

function clamp(v: number | undefined, lo: number, hi: number): number {
  const n = typeof v === 'number' && Number.isFinite(v) ? v : lo;
  return Math.min(hi, Math.max(lo, Math.round(n)));
}

function expandHome(p: string): string {
  return p.startsWith('~/') ? path.join(process.env.HOME ?? '', p.slice(2)) : p;
}
