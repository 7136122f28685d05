/**
 * Getting a Jupyter kernel for a Scroll session. The Jupyter extension's `kernels.getKernel(uri)`
 * only returns a kernel for an OPEN notebook whose kernel the user started and that has run a cell.
 * So: write (or reuse) the session notebook under `.scroll/`, open it, run its bootstrap cell (VS Code
 * asks the user to pick a kernel if none is selected), wait for the kernel, then bind `ms` through
 * the API — the first API call is where the user is asked to grant access.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Jupyter } from '@vscode/jupyter-extension';
import { bootstrapCode, JupyterKernel, JupyterUnavailableError, type JupyterKernelOptions } from './jupyterKernel';

export const JUPYTER_EXTENSION_ID = 'ms-toolsai.jupyter';
export const SESSION_NOTEBOOK = 'scroll-kernel.ipynb';

export function jupyterInstalled(): boolean {
  return !!vscode.extensions.getExtension(JUPYTER_EXTENSION_ID);
}

export interface JupyterConnectOptions extends JupyterKernelOptions {
  /** Folder for the session notebook (the `.scroll/` folder beside the log). */
  notebookDir: string;
  /** How long to wait for the user to pick a kernel and for it to start. Default 120 s. */
  connectTimeoutMs?: number;
  /** Tells the user what to do (pick a kernel). */
  notify?: (message: string) => void;
}

/** The .ipynb text of the session notebook: an explanation and the bootstrap cell. */
export function sessionNotebookJson(opts: JupyterKernelOptions): string {
  const nb = {
    cells: [
      {
        cell_type: 'markdown',
        metadata: {},
        source: [
          '**Scroll session kernel.** Scroll runs its agent\'s Python in this notebook\'s kernel. ',
          'Pick a Python kernel; Scroll then binds `ms`, a read-only view of the workspace event log answered by the editor ',
          '(the cell below shows how; its channel and token change with every session, so running it later does nothing useful).',
        ],
      },
      {
        cell_type: 'code',
        execution_count: null,
        metadata: {},
        outputs: [],
        // The channel's token stays out of the file: the host sends the real cell through the kernel API.
        source: bootstrapCode({ ...opts, memory: { address: opts.memory.address, token: '<token>' } })
          .split('\n')
          .map((l, i, all) => (i < all.length - 1 ? l + '\n' : l)),
      },
    ],
    metadata: {
      kernelspec: { display_name: 'Python 3', language: 'python', name: 'python3' },
      language_info: { name: 'python' },
    },
    nbformat: 4,
    nbformat_minor: 5,
  };
  return JSON.stringify(nb, null, 1) + '\n';
}

async function jupyterApi(): Promise<Jupyter> {
  const ext = vscode.extensions.getExtension<Jupyter>(JUPYTER_EXTENSION_ID);
  if (!ext) throw new JupyterUnavailableError('the Jupyter extension (ms-toolsai.jupyter) is not installed');
  const api = ext.isActive ? ext.exports : await ext.activate();
  if (!api?.kernels?.getKernel) throw new JupyterUnavailableError('the Jupyter extension does not offer its kernels API');
  return api;
}

export async function connectJupyterKernel(opts: JupyterConnectOptions): Promise<JupyterKernel> {
  const api = await jupyterApi();
  fs.mkdirSync(opts.notebookDir, { recursive: true });
  const file = path.join(opts.notebookDir, SESSION_NOTEBOOK);
  const uri = vscode.Uri.file(file);
  const open = vscode.workspace.notebookDocuments.find((d) => d.uri.fsPath === uri.fsPath);
  // Rewritten while closed so the bootstrap cell names this install's kernel/ folder and this log.
  if (!open) fs.writeFileSync(file, sessionNotebookJson(opts));
  const doc = open ?? (await vscode.workspace.openNotebookDocument(uri));
  await vscode.window.showNotebookDocument(doc, { preview: false, preserveFocus: true });

  let apiKernel = await api.kernels.getKernel(uri);
  if (!apiKernel) {
    opts.notify?.(
      `Scroll: to run the agent's Python in Jupyter, pick a Python kernel for .scroll/${SESSION_NOTEBOOK} ` +
        '(its bootstrap cell is running). Set scroll.kernel.backend to "subprocess" to skip this.',
    );
    const codeCell = doc.getCells().findIndex((c) => c.kind === vscode.NotebookCellKind.Code);
    // Running the cell is what makes VS Code ask for a kernel when none is selected.
    void vscode.commands.executeCommand('notebook.cell.execute', {
      ranges: [{ start: Math.max(0, codeCell), end: Math.max(0, codeCell) + 1 }],
      document: uri,
    });
    apiKernel = await waitForKernel(() => api.kernels.getKernel(uri), opts.connectTimeoutMs ?? 120000);
    if (!apiKernel) {
      throw new JupyterUnavailableError(
        `no Jupyter kernel was started for .scroll/${SESSION_NOTEBOOK} within ${Math.round((opts.connectTimeoutMs ?? 120000) / 1000)} s`,
      );
    }
  }
  if (apiKernel.language && apiKernel.language.toLowerCase() !== 'python') {
    throw new JupyterUnavailableError(`the session notebook's kernel runs ${apiKernel.language}, not Python`);
  }
  const kernel = new JupyterKernel(apiKernel, opts);
  try {
    await kernel.init();
  } catch (e) {
    await kernel.dispose();
    throw e;
  }
  return kernel;
}

async function waitForKernel<T>(get: () => Thenable<T | undefined>, timeoutMs: number): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const k = await get();
    if (k) return k;
    if (Date.now() > deadline) return undefined;
    await new Promise((r) => setTimeout(r, 250));
  }
}
