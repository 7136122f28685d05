/**
 * The kernel's OS sandbox: bubblewrap (`bwrap`) on Linux, Seatbelt (`sandbox-exec`, seatbelt.ts) on
 * macOS, nothing elsewhere (the probe says so, and every cell then asks the user first).
 *
 * Why plain bwrap and not `@anthropic-ai/sandbox-runtime`: that package needs Node >= 22.12 (our CLI
 * runs on Node 20), is ESM-only, and its network model is an allow-listing proxy while the kernel
 * needs no network at all; on Linux it is bubblewrap underneath anyway.
 *
 * Policy (see `sandboxedCommand`): the whole filesystem read-only; one writable per-session scratch
 * folder (also TMPDIR) and a private tmpfs on /tmp and /dev/shm; the user's credential stores, the
 * editor's data, the workspace's `.env` files, Scroll's own log folder and /run (sockets: D-Bus,
 * docker, databases, agents) hidden; no network (a new network namespace: its loopback is its own
 * and empty); a new PID namespace (no /proc of the editor; when its init dies every process in it
 * dies, `setsid` or not); no capabilities and no nested user namespaces; the environment exactly
 * the one given.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, realpathSync, rmSync, rmdirSync, chmodSync } from 'node:fs';
import { homedir, tmpdir, userInfo } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { isDir, isExecutable, isFile } from './fileChecks';
import { probeDarwin, seatbeltCommand, SANDBOX_EXEC } from './seatbelt';

export type SandboxMode = 'auto' | 'require' | 'off';

export interface SandboxAvailable {
  available: true;
  kind: 'bubblewrap' | 'seatbelt';
  /** Absolute path of bwrap, or /usr/bin/sandbox-exec. */
  command: string;
  /** bubblewrap's version; for Seatbelt the macOS version (`sw_vers`), or 'unknown'. */
  version: string;
}

export interface SandboxUnavailable {
  available: false;
  /** Why, one sentence. */
  reason: string;
  /** What to do, e.g. "install bubblewrap: sudo apt install bubblewrap". */
  fix: string;
}

export type SandboxProbe = SandboxAvailable | SandboxUnavailable;

export interface SandboxDecision {
  mode: SandboxMode;
  /** The kernel runs in the sandbox. */
  sandboxed: boolean;
  probe: SandboxProbe;
  /** Set when mode is 'require' and no sandbox is available: cells must be refused with this message. */
  refusal?: string;
  /** One line for the status bar tooltip / output channel. */
  summary: string;
}

export interface SandboxPolicy {
  /** Readable, not writable; the kernel's working folder. */
  workspace?: string;
  /** The one writable folder (bind-mounted read-write), also TMPDIR. */
  scratchDir: string;
  /** More paths that must not be readable (the log folder, the db's folder, ...). */
  hiddenPaths?: string[];
  /** Home folder whose credential stores are hidden. Default os.homedir(). */
  home?: string;
  /**
   * More paths kept readable (bound read-only) although they lie under a private tmpfs (/tmp, /run):
   * the kernel's own folder or the interpreter, when those live there (tests). Everything outside
   * /tmp and /run is readable anyway.
   */
  readablePaths?: string[];
}

/** The oldest bubblewrap we run: 0.4 (Debian 11). Older ones lack options we rely on. */
const MIN_VERSION: [number, number, number] = [0, 4, 0];
/** Size of the private /tmp and /dev/shm (bubblewrap >= 0.8 only: `--size`). */
const PRIVATE_TMPFS_BYTES = 256 * 1024 * 1024;
/** How long the probe's test run may take (normally it is a short process start). */
const PROBE_TIMEOUT_MS = 3000;
/** The shell that starts bwrap with SIGINT ignored (see `sandboxedCommand`). */
const SH = '/bin/sh';
const SH_SCRIPT = 'trap "" INT; exec "$@"';

/** What the probe learned beyond the public fields, per bwrap command. */
interface ProbeDetails {
  /** coreutils `env`, used inside to give the command SIGINT's default disposition back. */
  envPath?: string;
  /** `env --default-signal=INT` works (coreutils >= 8.31). */
  defaultSignal: boolean;
}

const probeCache = new Map<string, SandboxProbe>();
const details = new Map<string, ProbeDetails>();

/**
 * Finds bwrap (PATH or opts.bwrapPath) and checks it can really make namespaces here (a tiny
 * `bwrap ... true` run under the same options the kernel gets: user namespaces may be disabled).
 * Cached per command; `refresh` re-probes. Synchronous: one short process start.
 */
export function probeSandbox(
  opts: { bwrapPath?: string; platform?: NodeJS.Platform; refresh?: boolean; env?: NodeJS.ProcessEnv } = {},
): SandboxProbe {
  const platform = opts.platform ?? process.platform;
  if (platform === 'darwin') {
    // /usr/bin/sandbox-exec only, never one from PATH (seatbelt.ts); cached like bwrap's.
    const key = `seatbelt:${SANDBOX_EXEC}`;
    const cached = probeCache.get(key);
    if (cached && !opts.refresh) return cached;
    const probe = probeDarwin();
    probeCache.set(key, probe);
    return probe;
  }
  if (platform !== 'linux') {
    const name = platform === 'win32' ? 'Windows' : platform;
    return {
      available: false,
      reason: `Scroll has no kernel sandbox on ${name} in this version`,
      fix: 'none on this system: every cell asks before it runs (on Linux, install bubblewrap for a sandboxed kernel)',
    };
  }
  const env = opts.env ?? process.env;
  // SCROLL_BWRAP_PATH: another bwrap (tests use a missing one for the unavailable path).
  const requested = opts.bwrapPath ?? (env.SCROLL_BWRAP_PATH || undefined);
  const command = findExecutable(requested ?? 'bwrap', env.PATH ?? '');
  if (!command) {
    const where = requested ? ` at ${requested}` : ' on PATH';
    return { available: false, reason: `bwrap not found${where}`, fix: installFix() };
  }
  const cached = probeCache.get(command);
  if (cached && !opts.refresh) return cached;
  const probe = runProbe(command);
  probeCache.set(command, probe);
  return probe;
}

function runProbe(command: string): SandboxProbe {
  const v = spawnSync(command, ['--version'], { encoding: 'utf8', timeout: PROBE_TIMEOUT_MS, env: {} });
  const m = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(`${v.stdout ?? ''}`);
  if (v.error || v.status !== 0 || !m) {
    return { available: false, reason: `${command} --version failed (${firstLine(v.error?.message ?? v.stderr) || `exit ${v.status}`})`, fix: installFix() };
  }
  const version = `${m[1]}.${m[2]}.${m[3] ?? '0'}`;
  if (compareVersion(version, MIN_VERSION) < 0) {
    return { available: false, reason: `bubblewrap ${version} is too old (Scroll needs 0.4 or newer)`, fix: installFix('upgrade') };
  }
  if (!existsSync(SH)) return { available: false, reason: `${SH} is missing`, fix: 'install a POSIX shell at /bin/sh' };
  const envPath = ['/usr/bin/env', '/bin/env'].find((p) => isExecutable(p));
  const available: SandboxAvailable = { available: true, kind: 'bubblewrap', command, version };
  const attempt = (d: ProbeDetails) => {
    details.set(command, d);
    const argv = buildCommand(available, { scratchDir: '/' }, 'true', [], { PATH: '/usr/bin:/bin' }, { bare: true });
    return spawnSync(argv.command, argv.args, { encoding: 'utf8', timeout: PROBE_TIMEOUT_MS, env: {}, stdio: ['ignore', 'ignore', 'pipe'] });
  };
  let r = attempt({ envPath, defaultSignal: !!envPath });
  if ((r.error || r.status !== 0) && envPath) r = attempt({ envPath, defaultSignal: false });
  if (r.error || r.status !== 0) {
    details.delete(command);
    const why = firstLine(r.error?.message ?? r.stderr) || (r.signal ? `killed by ${r.signal}` : `exit ${r.status}`);
    return {
      available: false,
      reason: `bwrap cannot create a sandbox here (${why})`,
      fix:
        'allow unprivileged user namespaces (sudo sysctl -w kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0; ' +
        'on Ubuntu 24.04+ AppArmor restricts them: kernel.apparmor_restrict_unprivileged_userns), or run outside a container that forbids them',
    };
  }
  return available;
}

export function decideSandbox(mode: SandboxMode, probe: SandboxProbe = probeSandbox()): SandboxDecision {
  if (mode === 'off') {
    return { mode, sandboxed: false, probe, summary: 'not sandboxed (scroll.kernel.sandbox is off) — every cell asks first' };
  }
  if (probe.available) {
    return { mode, sandboxed: true, probe, summary: probe.kind === 'seatbelt' ? 'sandboxed (macOS Seatbelt)' : `sandboxed (bubblewrap ${probe.version})` };
  }
  if (mode === 'require') {
    return {
      mode,
      sandboxed: false,
      probe,
      refusal:
        `Scroll refuses to run kernel cells: scroll.kernel.sandbox is "require" but there is no sandbox (${probe.reason}). ` +
        `To fix: ${probe.fix}; or set scroll.kernel.sandbox to "auto" to run cells unsandboxed after confirming each one.`,
      summary: `not sandboxed: ${probe.reason} — cells are refused (scroll.kernel.sandbox is require; ${probe.fix})`,
    };
  }
  return { mode, sandboxed: false, probe, summary: `not sandboxed: ${probe.reason} — every cell asks first (${probe.fix})` };
}

/** 'auto' | 'require' | 'off' (any case, surrounding blanks ignored); anything else is 'auto'. */
export function parseSandboxMode(value: unknown): SandboxMode {
  const v = typeof value === 'string' ? value.trim().toLowerCase() : '';
  return v === 'require' || v === 'off' ? v : 'auto';
}

type Mount =
  | { kind: 'bind' | 'ro-bind'; path: string }
  | { kind: 'tmpfs'; path: string; size?: number; readOnly?: boolean }
  | { kind: 'dev' | 'proc'; path: string }
  | { kind: 'hide-file'; path: string };

/**
 * For a `seatbelt` probe (macOS): `/usr/bin/sandbox-exec -p <profile> -D ... -- command args`, see
 * seatbelt.ts's `seatbeltCommand`. Otherwise:
 *
 * The argv that runs `command args` inside bwrap under the policy, with exactly `env` as its
 * environment (TMPDIR, TMP and TEMP set to the scratch folder). `command` is not resolved here:
 * inside, it is looked up on `env.PATH` (it may be a launcher shim such as pyenv's `python3`).
 *
 * The result is `/bin/sh -c 'trap "" INT; exec "$@"' ... bwrap ... -- env --default-signal=INT command args`:
 * the host interrupts a cell with SIGINT to the kernel's process group, which also holds bwrap's
 * own monitor process; bwrap does not forward signals and would die of it (the kernel with it). So
 * bwrap starts with SIGINT ignored, and inside, `env --default-signal=INT` gives the command the
 * default disposition back (Python then installs its KeyboardInterrupt handler). SIGKILL to the
 * group kills bwrap and the namespace's init; with the init every process in the PID namespace
 * dies, also one that left the group with `setsid` or a double fork.
 *
 * No `--new-session`: it would move the command out of the process group, so the host's SIGINT
 * would no longer reach it. It guards against TIOCSTI on a controlling terminal, and there is none:
 * the host spawns the kernel `detached` (its own session, stdio on pipes), the command is not a
 * session leader, and `--dev` gives it a private devpts, not the host's terminals.
 *
 * Spawn it with `detached: true` from the main thread (`--die-with-parent` follows the thread that
 * spawned bwrap).
 *
 * The scratch folder has no size limit inside: bubblewrap cannot cap a bound folder. The host
 * checks `ScratchFolder.overCap()` after each cell.
 */
export function sandboxedCommand(
  probe: SandboxAvailable,
  policy: SandboxPolicy,
  command: string,
  args: string[],
  env: Record<string, string>,
): { command: string; args: string[] } {
  if (probe.kind === 'seatbelt') {
    // macOS: the same paths hidden; Seatbelt needs no mount points, so missing ones are denied too.
    // The caller spawns the result with `env` (sandbox-exec passes it through): see seatbeltCommand.
    const workspace = policy.workspace ? real(policy.workspace) : undefined;
    const hidden = [
      ...credentialPaths(policy.home ?? homedir()),
      ...(workspace ? [join(workspace, '.scroll'), ...workspaceEnvFiles(workspace)] : []),
      ...(policy.hiddenPaths ?? []),
      ...hostSocketPaths(env),
    ];
    return seatbeltCommand(probe, policy, command, args, hidden);
  }
  return buildCommand(probe, policy, command, args, env, {});
}

/** `bare` (the probe's test run): the namespaces and options only, no policy paths. */
function buildCommand(
  probe: SandboxAvailable,
  policy: SandboxPolicy,
  command: string,
  args: string[],
  env: Record<string, string>,
  internal: { bare?: boolean },
): { command: string; args: string[] } {
  const d = details.get(probe.command) ?? defaultDetails();
  const v08 = compareVersion(probe.version, [0, 8, 0]) >= 0;
  const v05 = compareVersion(probe.version, [0, 5, 0]) >= 0;
  const scratch = internal.bare ? undefined : real(policy.scratchDir);
  if (!internal.bare && !scratch) throw new Error(`sandbox: the scratch folder does not exist: ${policy.scratchDir}`);
  const workspace = policy.workspace ? real(policy.workspace) : undefined;
  const childEnv: Record<string, string> = { ...env };
  if (scratch) childEnv.TMPDIR = childEnv.TMP = childEnv.TEMP = scratch;

  // Namespaces: user, pid, net, ipc, uts, cgroup. `--unshare-user` also for root (bwrap keeps every
  // capability when started by uid 0; with its own user namespace and --cap-drop ALL it has none).
  const opts: string[] = ['--unshare-all', '--unshare-user', '--die-with-parent', '--cap-drop', 'ALL'];
  if (v08) opts.push('--disable-userns');

  const mounts: Mount[] = [
    { kind: 'ro-bind', path: '/' },
    { kind: 'dev', path: '/dev' },
    { kind: 'proc', path: '/proc' },
    { kind: 'tmpfs', path: '/dev/shm', size: PRIVATE_TMPFS_BYTES },
    { kind: 'tmpfs', path: '/tmp', size: PRIVATE_TMPFS_BYTES },
  ];
  if (!internal.bare) {
    // /run (and /var/run when it is its own folder) holds sockets that reach out of any sandbox:
    // the D-Bus session bus (systemd-run), docker, databases, ssh/gpg agents, the editor's IPC.
    for (const p of ['/run', '/var/run']) {
      const r = real(p);
      if (r && r === p && isDir(r)) mounts.push({ kind: 'tmpfs', path: r, readOnly: true });
    }
    // Readable again where a private tmpfs covers them; the scratch folder writable. Parents first.
    const binds: Mount[] = [];
    if (workspace) binds.push({ kind: 'ro-bind', path: workspace });
    for (const p of policy.readablePaths ?? []) {
      const r = real(p);
      if (r) binds.push({ kind: 'ro-bind', path: r });
    }
    if (scratch) binds.push({ kind: 'bind', path: scratch });
    for (const b of sortByDepth(binds)) mounts.push(b);

    const hidden = new Set<string>();
    for (const p of credentialPaths(policy.home ?? homedir())) hidden.add(p);
    if (workspace) {
      hidden.add(join(workspace, '.scroll'));
      for (const p of workspaceEnvFiles(workspace)) hidden.add(p);
    }
    for (const p of policy.hiddenPaths ?? []) hidden.add(p);
    for (const p of hostSocketPaths(childEnv)) hidden.add(p);
    const targets = new Set<string>();
    for (const p of hidden) {
      const r = real(p);
      if (r && r !== '/' && r !== scratch) targets.add(r);
    }
    for (const path of sortByDepth([...targets].map((path) => ({ path })))) {
      // Only what is still visible: a path under an already-hidden folder or a private tmpfs has no
      // mount point inside (bwrap would fail creating one), and is unreadable anyway.
      if (!visible(mounts, path.path)) continue;
      mounts.push(isDir(path.path) ? { kind: 'tmpfs', path: path.path, readOnly: true, size: 4096 } : { kind: 'hide-file', path: path.path });
    }
    // A readable path inside a hidden folder wins: the kernel's own files in an installed extension
    // (`~/.vscode/extensions/<id>/kernel`) live under the editor's hidden user data.
    for (const p of policy.readablePaths ?? []) {
      const r = real(p);
      if (r && !visible(mounts, r)) mounts.push({ kind: 'ro-bind', path: r });
    }
  }

  const mountArgs: string[] = [];
  const remountRo: string[] = [];
  for (const m of mounts) {
    switch (m.kind) {
      case 'ro-bind':
      case 'bind':
        mountArgs.push(`--${m.kind}`, m.path, m.path);
        break;
      case 'dev':
      case 'proc':
        mountArgs.push(`--${m.kind}`, m.path);
        break;
      case 'tmpfs':
        if (m.size && v08) mountArgs.push('--size', String(m.size));
        mountArgs.push('--tmpfs', m.path);
        if (m.readOnly) remountRo.push(m.path);
        break;
      case 'hide-file':
        mountArgs.push('--ro-bind', '/dev/null', m.path);
        break;
    }
  }
  // Last, so that the binds above could still create their mount points in these tmpfs folders.
  for (const p of remountRo) mountArgs.push('--remount-ro', p);

  const chdir = workspace && visible(mounts, workspace) ? workspace : scratch ?? '/';
  const envArgs: string[] = [];
  const outerEnv: string[] = [];
  if (v05) {
    envArgs.push('--clearenv');
    for (const [k, val] of Object.entries(childEnv)) envArgs.push('--setenv', k, val);
  } else if (d.envPath) {
    // bubblewrap < 0.5 has no --clearenv: `env -i` starts bwrap itself with exactly this environment.
    outerEnv.push(d.envPath, '-i', ...Object.entries(childEnv).map(([k, val]) => `${k}=${val}`));
  } else {
    throw new Error(`sandbox: bubblewrap ${probe.version} has no --clearenv and there is no env(1) to clear the environment`);
  }
  const inner = d.envPath && d.defaultSignal ? [d.envPath, '--default-signal=INT', command, ...args] : [command, ...args];
  return {
    command: SH,
    args: ['-c', SH_SCRIPT, 'scroll-sandbox', ...outerEnv, probe.command, ...opts, ...mountArgs, '--chdir', chdir, ...envArgs, '--', ...inner],
  };
}

/** The mount that decides what `path` shows inside is the last one at or above it; a bind shows the host. */
function visible(mounts: Mount[], path: string): boolean {
  for (let i = mounts.length - 1; i >= 0; i--) {
    const m = mounts[i];
    if (isSameOrInside(path, m.path)) return m.kind === 'bind' || m.kind === 'ro-bind';
  }
  return false;
}

/** Credential stores and editor data under a home folder, relative to it. */
const CREDENTIAL_PATHS = [
  // keys and cloud / registry credentials
  '.ssh', '.aws', '.azure', '.config/gcloud', '.kube', '.docker', '.gnupg', '.password-store', '.local/share/keyrings',
  '.netrc', '.git-credentials', '.config/git/credentials', '.config/gh', '.config/hub', '.npmrc', '.yarnrc', '.yarnrc.yml',
  '.pypirc', '.config/pip/pip.conf', '.pip/pip.conf', '.pgpass', '.my.cnf', '.cargo/credentials', '.cargo/credentials.toml',
  '.gem/credentials', '.m2/settings.xml', '.gradle/gradle.properties', '.terraform.d/credentials.tfrc.json', '.vault-token',
  '.config/rclone', '.s3cfg', '.boto', '.oci', '.config/doctl', '.config/op',
  // shell and REPL histories: commands typed with a token in them
  '.bash_history', '.zsh_history', '.python_history', '.psql_history', '.mysql_history', '.node_repl_history',
  // editors' user data (sessions, tokens, extension secrets) and coding agents' logins
  '.vscode', '.vscode-insiders', '.vscode-oss', '.vscode-server', '.vscode-server-insiders', '.vscode-remote',
  '.config/Code', '.config/Code - Insiders', '.config/Code - OSS', '.config/VSCodium', '.config/code-server',
  '.local/share/code-server', '.cursor', '.cursor-server', '.config/Cursor', '.windsurf', '.config/Windsurf',
  '.config/github-copilot', '.claude', '.claude.json', '.codex',
  'Library/Application Support/Code', 'Library/Application Support/Code - Insiders', 'Library/Application Support/VSCodium',
  'Library/Application Support/Cursor', 'Library/Application Support/code-server', 'Library/Keychains',
  'AppData/Roaming/Code', 'AppData/Roaming/Code - Insiders', 'AppData/Roaming/Cursor',
];

/** Credential stores under `home` that exist (absolute paths). */
export function credentialPaths(home: string): string[] {
  const out: string[] = [];
  for (const rel of CREDENTIAL_PATHS) {
    const p = join(home, ...rel.split('/'));
    if (existsSync(p)) out.push(p);
  }
  return out;
}

const ENV_WALK_DEPTH = 3;
const ENV_WALK_MAX_DIRS = 2000;
const ENV_WALK_SKIP = new Set(['node_modules', '.git', '.scroll', '.hg', '.svn', '__pycache__', '.venv', 'venv', '.tox', '.mypy_cache']);

/** `.env` and `.env.*` files of the workspace: top level and up to 3 folders deep, skipping node_modules, .git, virtualenvs; at most 2,000 folders. */
export function workspaceEnvFiles(workspace: string): string[] {
  const out: string[] = [];
  const queue: { dir: string; depth: number }[] = [{ dir: workspace, depth: 0 }];
  let dirs = 0;
  while (queue.length && dirs < ENV_WALK_MAX_DIRS) {
    const { dir, depth } = queue.shift()!;
    dirs++;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.name === '.env' || e.name.startsWith('.env.')) {
        if (e.isFile() || (e.isSymbolicLink() && isFile(p))) out.push(p);
        else if (e.isDirectory()) out.push(p); // a folder named .env is hidden whole
      } else if (e.isDirectory() && depth < ENV_WALK_DEPTH && !ENV_WALK_SKIP.has(e.name)) {
        queue.push({ dir: p, depth: depth + 1 });
      }
    }
  }
  return out;
}

/** Sockets the host environment names (agents, the editor's IPC, docker): hidden wherever they live. */
function hostSocketPaths(childEnv: Record<string, string>): string[] {
  const out: string[] = [];
  const add = (v: string | undefined) => {
    if (!v) return;
    const p = v.replace(/^unix:(\/\/|path=)/, '').replace(/,.*$/, '');
    if (isAbsolute(p) && existsSync(p)) out.push(p);
  };
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(SSH_AUTH_SOCK|GPG_AGENT_INFO|DOCKER_HOST|DBUS_SESSION_BUS_ADDRESS|XDG_RUNTIME_DIR)$|^VSCODE_.*(IPC|HOOK|HANDLE|ASKPASS)/.test(k)) add(v);
  }
  add(childEnv.XDG_RUNTIME_DIR);
  return out;
}

/** The per-session scratch folder: `<os.tmpdir()>/scroll-scratch-<uid>/<short hash of workspace>/<sanitized session>`, mode 0700. */
export class ScratchFolder {
  /** Walks stop after this many entries; a folder with more counts as over the cap. */
  static readonly maxEntries = 200_000;
  readonly path: string;
  readonly capBytes: number;
  private readonly top: string;
  private tooMany = false;

  private constructor(top: string, path: string, capBytes: number) {
    this.top = top;
    this.path = path;
    this.capBytes = capBytes;
  }

  /** `capBytes` defaults to 1 GiB. */
  static forSession(session: string, workspace?: string, root: string = tmpdir(), capBytes = 1024 ** 3): ScratchFolder {
    const top = join(root, `scroll-scratch-${userId()}`);
    const ws = workspace ? shortHash(resolve(workspace)) : 'no-workspace';
    return new ScratchFolder(top, join(top, ws, sanitizeSession(session)), capBytes);
  }

  /** Creates it (recursive, 0700) and returns its path. Refuses a top folder someone else owns or can write. */
  ensure(): string {
    mkdirSync(this.top, { recursive: true, mode: 0o700 });
    const st = lstatSync(this.top);
    const uid = process.getuid?.();
    if (!st.isDirectory() || (uid !== undefined && st.uid !== uid)) {
      throw new Error(`scroll: ${this.top} is not a folder of this user; remove it and retry`);
    }
    if (process.platform !== 'win32' && (st.mode & 0o077) !== 0) chmodSync(this.top, 0o700);
    mkdirSync(this.path, { recursive: true, mode: 0o700 });
    if (process.platform !== 'win32') chmodSync(this.path, 0o700);
    return this.path;
  }

  /** Total bytes of the files in it (symlinks not followed; at most `maxEntries` entries walked). */
  sizeBytes(): number {
    let total = 0;
    let seen = 0;
    this.tooMany = false;
    const stack = [this.path];
    while (stack.length) {
      const dir = stack.pop()!;
      let entries;
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const e of entries) {
        if (++seen > ScratchFolder.maxEntries) {
          this.tooMany = true;
          return total;
        }
        const p = join(dir, e.name);
        if (e.isDirectory()) stack.push(p);
        else {
          try {
            total += lstatSync(p).size;
          } catch {
            // removed meanwhile
          }
        }
      }
    }
    return total;
  }

  /** Over `capBytes`, or holding more than `maxEntries` entries. */
  overCap(): boolean {
    return this.sizeBytes() > this.capBytes || this.tooMany;
  }

  /** rm -rf (and the workspace's folder when it is left empty); never throws. */
  remove(): void {
    try {
      rmSync(this.path, { recursive: true, force: true });
      rmdirSync(dirname(this.path));
    } catch {
      // gone already, or another session's folder is still there
    }
  }
}

function sanitizeSession(session: string): string {
  let s = session.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 48);
  if (!s || /^\.+$/.test(s)) s = 'session';
  return s === session ? s : `${s}-${shortHash(session).slice(0, 8)}`;
}

function shortHash(s: string): string {
  return createHash('sha256').update(s).digest('hex').slice(0, 12);
}

function userId(): string {
  const uid = process.getuid?.();
  if (uid !== undefined) return String(uid);
  try {
    return userInfo().username.replace(/[^A-Za-z0-9._-]/g, '_');
  } catch {
    return 'user';
  }
}

function installFix(verb: 'install' | 'upgrade' = 'install'): string {
  let cmd = 'sudo apt install bubblewrap';
  try {
    const os = readFileSync('/etc/os-release', 'utf8');
    const ids = `${/^ID=(.*)$/m.exec(os)?.[1] ?? ''} ${/^ID_LIKE=(.*)$/m.exec(os)?.[1] ?? ''}`.replace(/"/g, '');
    if (/fedora|rhel|centos/.test(ids)) cmd = 'sudo dnf install bubblewrap';
    else if (/arch/.test(ids)) cmd = 'sudo pacman -S bubblewrap';
    else if (/suse/.test(ids)) cmd = 'sudo zypper install bubblewrap';
    else if (/alpine/.test(ids)) cmd = 'sudo apk add bubblewrap';
  } catch {
    // no os-release: apt is the likeliest
  }
  return `${verb} bubblewrap: ${cmd}`;
}

function defaultDetails(): ProbeDetails {
  const envPath = ['/usr/bin/env', '/bin/env'].find((p) => isExecutable(p));
  return { envPath, defaultSignal: !!envPath };
}

function findExecutable(name: string, path: string): string | undefined {
  if (name.includes('/')) {
    const p = resolve(name);
    return isExecutable(p) ? p : undefined;
  }
  for (const dir of path.split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const p = join(dir, name);
    if (isExecutable(p)) return p;
  }
  return undefined;
}




/** realpath, or undefined when the path does not exist. */
function real(p: string): string | undefined {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
}

function isSameOrInside(p: string, dir: string): boolean {
  return p === dir || dir === '/' || p.startsWith(dir.endsWith(sep) ? dir : dir + sep);
}

function sortByDepth<T extends { path: string }>(items: T[]): T[] {
  const depth = (p: string) => p.split('/').filter(Boolean).length;
  return [...items].sort((a, b) => depth(a.path) - depth(b.path) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function compareVersion(version: string, min: [number, number, number]): number {
  const parts = version.split('.').map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < 3; i++) {
    const d = (parts[i] ?? 0) - min[i];
    if (d) return d;
  }
  return 0;
}

function firstLine(s: string | undefined | null): string {
  return `${s ?? ''}`.trim().split('\n')[0]?.trim() ?? '';
}
