/**
 * The environment the kernel process gets. The editor's own environment carries secrets (API
 * tokens, VS Code IPC handles, askpass helpers, SSH agent sockets); the model's code must not see
 * them. So this is an allowlist: what Python, locale and paths need — nothing else. Inside the
 * sandbox (sandbox.ts) it is the kernel's whole environment.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

const KEEP_EXACT = new Set([
  'PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR', 'TEMP', 'TMP', 'TERM',
  'NO_COLOR', 'VIRTUAL_ENV', 'LD_LIBRARY_PATH', 'DYLD_LIBRARY_PATH',
  // Windows needs these to start any process.
  'SYSTEMROOT', 'SystemRoot', 'WINDIR', 'COMSPEC', 'PATHEXT', 'USERPROFILE', 'APPDATA', 'LOCALAPPDATA',
  'PROGRAMDATA', 'HOMEDRIVE', 'HOMEPATH',
]);
const KEEP_PREFIX = ['LC_', 'PYTHON', 'CONDA_', 'PYENV', 'XDG_', 'PIP_'];
/**
 * Even an allowed prefix never passes a name that looks like a credential: *TOKEN*, *SECRET*,
 * *PASS* (PASSWORD, PASSWD, PASSPHRASE, PIP_..._PASS), *CREDENTIAL*, *_KEY, *API_KEY*, ...
 */
const SECRET_NAME = /TOKEN|SECRET|PASS|CREDENTIAL|API_?KEY|_KEY$|^KEY$|PRIVATE|AUTH|COOKIE|SESSION_KEY/i;
/** A URL with credentials in it, `scheme://user:pw@host` or `scheme://token@host`. */
const URL_CREDENTIALS = /[a-z][a-z0-9+.-]*:\/\/[^\s/?#@]+@/i;

/** True when `value` holds a URL with a user (and password) in it: such a value never reaches the kernel. */
export function hasUrlCredentials(value: string): boolean {
  return URL_CREDENTIALS.test(value);
}

/** The name is on the allowlist and not a credential's; with `value`, the value holds no URL credentials either. */
export function isAllowedVariable(name: string, value?: string): boolean {
  if (SECRET_NAME.test(name)) return false;
  if (value !== undefined && hasUrlCredentials(value)) return false;
  return KEEP_EXACT.has(name) || KEEP_PREFIX.some((p) => name.startsWith(p));
}

/** The base environment stripped to the allowlist, plus the kernel's own settings. */
export function kernelEnvironment(
  base: NodeJS.ProcessEnv = process.env,
  extra: Record<string, string> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined && isAllowedVariable(name, value)) env[name] = value;
  }
  env.PYTHONIOENCODING = 'utf-8';
  env.PYTHONUNBUFFERED = '1';
  return { ...env, ...extra };
}

/**
 * The environment of a command the agent runs in the workspace (run_command): the editor's own, so
 * builds and tests find their tools, minus what names a credential and VS Code's IPC handles. A
 * denylist, unlike the kernel's: a build may need SSH_AUTH_SOCK or a tool's own variables.
 */
export function commandEnvironment(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) {
    if (COMMAND_SECRET_NAME.test(name) || EDITOR_IPC_NAME.test(name)) continue;
    env[name] = value;
  }
  return env;
}

/** Narrower than SECRET_NAME: AUTH would also drop SSH_AUTH_SOCK, which `git push` needs. */
const COMMAND_SECRET_NAME = /TOKEN|SECRET|PASSW|PASSPHRASE|API_?KEY|PRIVATE_KEY|CREDENTIAL|_PASS$|_PWD$|_KEY$|_PAT$|_AUTH$|_PSK$/i;
/** VS Code's handles for talking back to the editor (IPC, git askpass), and Electron's node mode. */
const EDITOR_IPC_NAME = /^VSCODE_(IPC|GIT_ASKPASS|GIT_IPC)|^ELECTRON_RUN_AS_NODE$/;

/**
 * The folder holding scroll_kernel.py and scroll_ms.py: `kernel/` at the package root, found by
 * walking up from this module (works from `out/src/core/kernel/` and from the bundled `dist/`).
 */
export function findKernelDir(start: string = __dirname): string {
  let dir = start;
  for (let i = 0; i < 8; i++) {
    const candidate = join(dir, 'kernel');
    if (existsSync(join(candidate, 'scroll_kernel.py'))) return candidate;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  throw new Error(`scroll: cannot find kernel/scroll_kernel.py above ${start}; the package is incomplete`);
}
