/**
 * Test double of one kernel from the Jupyter extension's kernels API (`@vscode/jupyter-extension`
 * `Kernel`), backed by a real Python process (kernel/scroll_kernel.py without a log). Outputs come
 * back with the mime types the real extension emits; access can be denied; the kernel can die.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import type { KernelStatus } from '@vscode/jupyter-extension';

interface Output {
  items: { mime: string; data: Uint8Array }[];
}

const enc = new TextEncoder();
const root = join(__dirname, '..', '..', '..', '..', '..');

export class FakeJupyterApiKernel {
  language = 'python';
  status: KernelStatus = 'idle';
  private readonly statusListeners = new Set<(s: KernelStatus) => void>();
  private proc: ChildProcessWithoutNullStreams;
  private buf = '';
  private waiting = new Map<string, (r: Record<string, unknown>) => void>();
  private nextId = 1;
  private accessAsked = false;
  /** Every code string run through executeCode, in order. */
  readonly executed: string[] = [];
  /** Use 'vnd' (what the extension emits) or 'x' (what its doc names) for streams. */
  streamMime: 'vnd' | 'x' = 'vnd';

  constructor(private readonly access: 'allow' | 'deny' = 'allow') {
    this.proc = spawn('python3', [join(root, 'kernel', 'scroll_kernel.py')], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.proc.stdout.setEncoding('utf8');
    this.proc.stdout.on('data', (d: string) => {
      this.buf += d;
      let nl: number;
      while ((nl = this.buf.indexOf('\n')) >= 0) {
        const line = this.buf.slice(0, nl);
        this.buf = this.buf.slice(nl + 1);
        const msg = JSON.parse(line) as Record<string, unknown>;
        const w = this.waiting.get(String(msg.id));
        if (w) {
          this.waiting.delete(String(msg.id));
          w(msg);
        }
      }
    });
    this.proc.on('exit', () => {
      this.setStatus('dead');
      for (const w of this.waiting.values()) w({ dead: true });
      this.waiting.clear();
    });
  }

  onDidChangeStatus = (listener: (s: KernelStatus) => void) => {
    this.statusListeners.add(listener);
    return { dispose: () => this.statusListeners.delete(listener) };
  };

  private setStatus(s: KernelStatus): void {
    this.status = s;
    for (const l of this.statusListeners) l(s);
  }

  kill(): void {
    this.proc.kill('SIGKILL');
  }

  async *executeCode(
    code: string,
    token: { isCancellationRequested: boolean; onCancellationRequested(l: () => void): { dispose(): void } },
  ): AsyncGenerator<Output> {
    if (!this.accessAsked) {
      this.accessAsked = true;
      if (this.access === 'deny') {
        const e = new Error('Access to Jupyter Kernel has been revoked');
        e.name = 'vscode.jupyter.apiAccessRevoked';
        throw e;
      }
    }
    if (this.status === 'dead') throw new Error('Kernel is disposed');
    this.executed.push(code);
    const id = String(this.nextId++);
    const reply = new Promise<Record<string, unknown>>((r) => this.waiting.set(id, r));
    const sub = token.onCancellationRequested(() => this.proc.kill('SIGINT'));
    this.setStatus('busy');
    this.proc.stdin.write(JSON.stringify({ id, code }) + '\n');
    const r = await reply;
    sub.dispose();
    if (r.dead) throw new Error('Kernel is disposed');
    this.setStatus('idle');
    const p = this.streamMime === 'vnd' ? 'application/vnd.code.notebook.' : 'application/x.notebook.stream.';
    if (r.stdout) yield { items: [{ mime: `${p}stdout`, data: enc.encode(String(r.stdout)) }] };
    if (r.stderr) yield { items: [{ mime: `${p}stderr`, data: enc.encode(String(r.stderr)) }] };
    const err = r.error as { ename: string; evalue: string; traceback: string[] } | null;
    if (err) {
      // ipykernel colours its tracebacks; the extension passes the ANSI codes through.
      const stack = `\x1b[0;31m${err.traceback.join('')}\x1b[0m`;
      yield {
        items: [{ mime: 'application/vnd.code.notebook.error', data: enc.encode(JSON.stringify({ name: err.ename, message: err.evalue, stack })) }],
      };
    }
  }

  dispose(): void {
    this.proc.stdin.end();
    this.proc.kill('SIGKILL');
  }
}
