/**
 * The persistent Python kernel as the core sees it. Implementations: SubprocessKernel (our own
 * process, the default) and the Jupyter adapter in src/vscode/kernel (when ms-toolsai.jupyter is there).
 */

export interface KernelError {
  ename: string;
  evalue: string;
  traceback: string[];
}

export interface KernelVariable {
  name: string;
  type: string;
  size: string;
}

export interface KernelResult {
  stdout: string;
  stderr: string;
  error: KernelError | null;
  durationMs: number;
  /** Digest of the namespace after the cell (what the working view shows the model). */
  variables: KernelVariable[];
  /** True when the kernel had to be killed and restarted: variables were lost. */
  restarted?: boolean;
  /** True when output was cut at the output cap. */
  truncated?: boolean;
}

export type KernelStatus = 'starting' | 'idle' | 'busy' | 'restarting' | 'dead';

export interface ExecuteOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface Disposable {
  dispose(): void;
}

export interface Kernel {
  readonly backend: 'subprocess' | 'jupyter';
  readonly status: KernelStatus;
  onStatus(listener: (status: KernelStatus) => void): Disposable;
  execute(code: string, opts?: ExecuteOptions): Promise<KernelResult>;
  restart(): Promise<void>;
  dispose(): Promise<void>;
}
