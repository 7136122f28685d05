/**
 * Which Python runs the subprocess kernel: the setting, else the interpreter selected in the
 * Python extension (ms-python.python) when it is installed, else `python3` on PATH.
 */
import * as vscode from 'vscode';

export const PYTHON_EXTENSION_ID = 'ms-python.python';

/** The parts of the Python extension's API used here (new `environments` API, then the older `settings`). */
interface PythonExtensionApi {
  ready?: Promise<void>;
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { id: string; path: string };
    resolveEnvironment(env: { id: string; path: string } | string): Promise<{ executable: { uri?: vscode.Uri } } | undefined>;
  };
  settings?: {
    getExecutionDetails(resource?: vscode.Uri): { execCommand: string[] | undefined };
  };
}

export interface ResolvedPython {
  path: string;
  source: 'setting' | 'python-extension' | 'default';
}

export async function resolvePythonPath(configured: string, resource?: vscode.Uri): Promise<ResolvedPython> {
  if (configured.trim()) return { path: configured.trim(), source: 'setting' };
  const fromExtension = await pythonFromExtension(resource).catch(() => undefined);
  if (fromExtension) return { path: fromExtension, source: 'python-extension' };
  return { path: process.platform === 'win32' ? 'python' : 'python3', source: 'default' };
}

async function pythonFromExtension(resource?: vscode.Uri): Promise<string | undefined> {
  const ext = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION_ID);
  if (!ext) return undefined;
  const api = ext.isActive ? ext.exports : await withTimeout(ext.activate(), 10000);
  if (!api) return undefined;
  if (api.ready) await withTimeout(api.ready, 10000);
  if (api.environments) {
    const envPath = api.environments.getActiveEnvironmentPath(resource);
    const env = await withTimeout(api.environments.resolveEnvironment(envPath), 10000);
    const exe = env?.executable.uri?.fsPath;
    if (exe) return exe;
  }
  const cmd = api.settings?.getExecutionDetails(resource).execCommand;
  // A multi-part command (e.g. `conda run -n x python`) cannot be spawned as one path: skip it.
  if (cmd && cmd.length === 1 && cmd[0]) return cmd[0];
  return undefined;
}

function withTimeout<T>(p: Thenable<T>, ms: number): Promise<T | undefined> {
  return new Promise<T | undefined>((resolve, reject) => {
    const t = setTimeout(() => resolve(undefined), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}
