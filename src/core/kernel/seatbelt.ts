/**
 * The kernel's OS sandbox on macOS: `sandbox-exec` (Seatbelt) with a profile generated here.
 * sandbox.ts dispatches to it (`probeSandbox` on darwin, `sandboxedCommand` for a `seatbelt` probe).
 *
 * Written without a Mac to run it on: the profile is correct by construction (the unit tests check
 * its shape and evaluate its rules on Linux) and the probe compiles this same profile shape on the
 * machine before the sandbox is reported available, so an operation or filter a macOS version does
 * not know makes the probe say "no sandbox" (every cell then asks) instead of failing each start.
 *
 * Policy, as close to the bubblewrap one as Seatbelt gets:
 * - `(allow default)` and then only denies. Seatbelt's precedence between overlapping allow and deny
 *   rules is not documented and has changed between versions; with a single allow (the default),
 *   any matching deny decides, whatever the order. The other way, `(deny default)` plus what Python
 *   needs, is stricter (it would also close the Mach services and IOKit classes not listed here) but
 *   its allowlist can only be found by running Python, pip and compiled extensions on each macOS
 *   release, which was not possible; a missing entry there breaks the kernel's start.
 * - Filesystem: reads everywhere but the hidden paths (`file*` denied on them: no read, listing,
 *   stat, xattr, hard link or clone); writes nowhere but the scratch folder, `/dev/null` and
 *   `/dev/fd`; no terminal (`/dev/tty*`, `/dev/pty*`).
 * - Network: `(deny network*)`: TCP/UDP including loopback, DNS (libinfo asks mDNSResponder over a
 *   Unix socket) and `connect()`/`bind()` on every Unix socket.
 * - Processes: fork and exec allowed; the profile is inherited by every child. No signals, process
 *   information or task ports outside this sandbox. No PID namespace: see `seatbeltCommand`.
 * - Nothing started outside the sandbox on its behalf: LaunchServices (`open`), Apple events,
 *   launchd jobs, preference writes, and the Mach services listed in `DENIED_SERVICES`.
 * - Environment: exactly the one the caller spawns it with (sandbox-exec passes it through).
 *
 * Every path is a `-D NAME=value` parameter read with `(param "NAME")`: no path is spliced into the
 * profile text, so no path can break its quoting. Paths are real paths (`realpathSync.native`):
 * Seatbelt matches the path the kernel resolved (`/private/tmp/x`, not `/tmp/x`; `/private/var/...`,
 * not `/var/...`), spelled as on disk (APFS is case-insensitive, Seatbelt's comparison is not).
 */
import { spawnSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { isDir, isExecutable } from './fileChecks';
import type { SandboxAvailable, SandboxPolicy, SandboxProbe } from './sandbox';

/** Only this one: a `sandbox-exec` earlier on PATH could be anything. */
export const SANDBOX_EXEC = '/usr/bin/sandbox-exec';
const SW_VERS = '/usr/bin/sw_vers';
const TRUE = '/usr/bin/true';
/** The probe's first check: sandbox-exec can apply a profile at all (it cannot inside another sandbox). */
export const TRIVIAL_PROFILE = '(version 1)(allow default)';
/** How long each probe run may take (normally a few ms). */
const PROBE_TIMEOUT_MS = 3000;

/** What one synchronous run returned (the shape of spawnSync's result that the probe reads). */
export interface ExecResult {
  status: number | null;
  signal?: NodeJS.Signals | null;
  stdout?: string;
  stderr?: string;
  error?: Error;
}

/** Runs `command args` to completion. The probe takes one so that tests can pass a double. */
export type SeatbeltExec = (command: string, args: string[]) => ExecResult;

/** The real one: spawnSync, empty environment, a time limit. */
export const spawnExec: SeatbeltExec = (command, args) =>
  spawnSync(command, args, { encoding: 'utf8', timeout: PROBE_TIMEOUT_MS, env: {}, stdio: ['ignore', 'pipe', 'pipe'] });

/**
 * Mach services the kernel must not reach. Each acts for its caller outside the sandbox: starts
 * programs, holds secrets, talks to the network, the screen or the clipboard. Prefixes end in a dot
 * or name a family. Not denied (Python and libSystem use them): opendirectoryd (user names), logd
 * and diagnosticd, notifyd, cfprefsd (reading preferences), configd.
 */
export const DENIED_SERVICES: { name: string; prefix?: true; why: string }[] = [
  // Programs started outside the sandbox.
  { name: 'com.apple.coreservices.launchservicesd', why: 'LaunchServices: open(1) starts apps and documents outside' },
  { name: 'com.apple.lsd.', prefix: true, why: 'LaunchServices database and open requests' },
  { name: 'com.apple.coreservices.appleevents', why: 'Apple events: scripting Terminal runs anything' },
  { name: 'com.apple.xpc.smd', why: 'ServiceManagement: submitting launchd jobs' },
  { name: 'com.apple.backgroundtaskmanagement', prefix: true, why: 'login items and background tasks' },
  // Secrets.
  { name: 'com.apple.SecurityServer', why: 'the keychain (file keychains)' },
  { name: 'com.apple.securityd', prefix: true, why: 'the keychain (data protection keychain)' },
  { name: 'com.apple.secd', prefix: true, why: 'the keychain' },
  { name: 'com.apple.tccd', prefix: true, why: 'privacy permissions granted to the editor (camera, contacts, screen, accessibility)' },
  { name: 'com.apple.pasteboard.', prefix: true, why: 'the clipboard: read what the user copied, replace what they paste' },
  { name: 'com.apple.windowserver', prefix: true, why: 'the screen: windows, synthetic input' },
  { name: 'com.apple.metadata.mds', prefix: true, why: 'Spotlight answers from its index of every file' },
  // Network on the caller's behalf.
  { name: 'com.apple.nsurlsessiond', prefix: true, why: 'background downloads and uploads' },
  { name: 'com.apple.dnssd.service', why: 'DNS-SD queries' },
  { name: 'com.apple.mDNSResponder', prefix: true, why: 'DNS' },
  { name: 'com.apple.networkd', prefix: true, why: 'network connections' },
  { name: 'com.apple.nehelper', prefix: true, why: 'network extensions, VPN' },
  { name: 'com.apple.nesessionmanager', prefix: true, why: 'VPN sessions' },
  { name: 'com.apple.trustd', prefix: true, why: 'certificate checks fetch OCSP and CRLs' },
  { name: 'com.apple.ocspd', why: 'certificate revocation fetches' },
  { name: 'com.apple.cloudd', prefix: true, why: 'CloudKit' },
  { name: 'com.apple.apsd', prefix: true, why: 'push notifications' },
];

/** Inside a workspace: any `.env` or `.env.*` at any depth, a folder of that name whole (also one created later). */
const ENV_FILE_TAIL = String.raw`/(.*/)?\.env(\.[^/]*)?(/.*)?$`;
/** The terminals: reading one steals keystrokes, writing one types into it. */
const TERMINALS = String.raw`^/dev/(tty|pty)`;

/**
 * An SBPL string literal: `"` and `\` escaped. Control characters are refused (the profile parser's
 * escapes for them are not documented). Paths never go through this: they are `-D` parameters.
 */
export function sbplString(s: string): string {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(s)) throw new Error(`sandbox: no control characters in a Seatbelt string: ${JSON.stringify(s)}`);
  return `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/**
 * The real path of `p` as Seatbelt sees it. A path that does not exist (yet) resolves through its
 * nearest existing ancestor, so that a denial holds once it is created. Undefined for a relative path.
 */
export function seatbeltPath(p: string): string | undefined {
  if (!isAbsolute(p)) return undefined;
  let rest = '';
  let dir = resolve(p);
  for (;;) {
    try {
      const r = realpathSync.native(dir);
      return rest ? join(r, rest) : r;
    } catch {
      const parent = dirname(dir);
      if (parent === dir) return undefined;
      rest = rest ? join(basename(dir), rest) : basename(dir);
      dir = parent;
    }
  }
}

/** The profile and the values of its `(param ...)`s. */
export interface SeatbeltProfile {
  profile: string;
  params: Record<string, string>;
}

/**
 * The profile for a policy. `hidden` are the paths to hide (the credential stores, `.scroll`, the
 * `.env` files, the policy's `hiddenPaths`: sandbox.ts gathers them as it does for bubblewrap).
 * `policy.readablePaths` inside a hidden folder stay readable (the kernel's own folder under
 * `~/.vscode/extensions`); one that contains a hidden path does not open it.
 */
export function seatbeltProfile(policy: SandboxPolicy, hidden: string[]): SeatbeltProfile {
  const scratch = existingReal(policy.scratchDir);
  if (!scratch || !isDir(scratch)) throw new Error(`sandbox: the scratch folder does not exist: ${policy.scratchDir}`);
  const workspace = policy.workspace ? existingReal(policy.workspace) : undefined;
  const params: Record<string, string> = { SCRATCH: scratch };
  if (workspace) params.WORKSPACE = workspace;

  const hiddenReal = new Set<string>();
  for (const p of hidden) {
    const r = seatbeltPath(p);
    if (r && r !== '/' && r !== scratch) hiddenReal.add(r);
  }
  const readable = [...new Set((policy.readablePaths ?? []).map(seatbeltPath).filter((r): r is string => !!r))].sort();
  const readableParam = new Map<string, string>();
  const hiddenFilters: string[] = [];
  [...hiddenReal].sort().forEach((h, i) => {
    const name = `HIDDEN_${i}`;
    params[name] = h;
    const inside = readable.filter((r) => r !== h && r.startsWith(h.endsWith(sep) ? h : h + sep));
    if (!inside.length) {
      hiddenFilters.push(`  (subpath (param "${name}"))`);
      return;
    }
    const nots = inside.map((r) => {
      let rp = readableParam.get(r);
      if (!rp) {
        rp = `READABLE_${readableParam.size}`;
        readableParam.set(r, rp);
        params[rp] = r;
      }
      return `(require-not (subpath (param "${rp}")))`;
    });
    hiddenFilters.push(`  (require-all (subpath (param "${name}")) ${nots.join(' ')})`);
  });
  if (workspace) {
    hiddenFilters.push(`  (regex (string-append "^" (regex-quote (param "WORKSPACE")) #"${ENV_FILE_TAIL}"))`);
  }

  const lines: string[] = [
    '(version 1)',
    ";; Scroll's kernel sandbox (macOS Seatbelt), generated by src/core/kernel/seatbelt.ts.",
    ';; Paths are -D parameters, real paths (/private/tmp, /private/var), never spliced in here.',
    ';; One allow, the default, and only denies after it: any matching deny decides, in any order.',
    '(allow default)',
    '',
    ';; No network: TCP and UDP (loopback too), DNS, and connect()/bind() on any Unix socket.',
    '(deny network*)',
    '',
    ';; Writes only to the scratch folder (also TMPDIR), /dev/null and /dev/fd.',
    '(deny file-write*',
    '  (require-all',
    '    (require-not (subpath (param "SCRATCH")))',
    `    (require-not (literal ${sbplString('/dev/null')}))`,
    `    (require-not (subpath ${sbplString('/dev/fd')}))))`,
    '',
    ';; No terminal: a tty neither read (keystrokes) nor written.',
    `(deny file* (regex #"${TERMINALS}"))`,
  ];
  if (hiddenFilters.length) {
    lines.push(
      '',
      ";; Hidden: credential stores, editor data, .env files, Scroll's log folder, named sockets.",
      ';; file*: no read, listing, stat, xattr, hard link or clone of them.',
      '(deny file*',
      ...hiddenFilters.map((f, i) => (i === hiddenFilters.length - 1 ? `${f})` : f)),
    );
  }
  lines.push(
    '',
    ';; Other processes: no signals, information or task ports outside this sandbox (the kernel',
    ';; and its children share it). No PID namespace: a setsid child can outlive the kernel.',
    '(deny signal (require-not (target same-sandbox)))',
    '(deny process-info* (require-not (target same-sandbox)))',
    '(deny mach-priv-task-port (require-not (target same-sandbox)))',
    ";; Other processes' arguments and environment (KERN_PROCARGS2): best effort.",
    `(deny sysctl-read (sysctl-name-prefix ${sbplString('kern.procargs')}))`,
    '',
    ';; Nothing started outside the sandbox on its behalf: open(1), Apple events, launchd jobs,',
    ';; preferences that other programs read.',
    '(deny lsopen)',
    '(deny appleevent-send)',
    '(deny job-creation)',
    '(deny user-preference-write)',
    '(deny mach-lookup',
    ...DENIED_SERVICES.map(
      (s, i) => `  (${s.prefix ? 'global-name-prefix' : 'global-name'} ${sbplString(s.name)})${i === DENIED_SERVICES.length - 1 ? ')' : ''}`,
    ),
  );
  return { profile: `${lines.join('\n')}\n`, params };
}

/**
 * The argv that runs `command args` under Seatbelt: `/usr/bin/sandbox-exec -p <profile> -D NAME=path
 * ... -- command args`. sandbox-exec applies the profile and execs the command (looked up on the
 * PATH of the environment it is spawned with), so the kernel is the spawned process itself: the
 * host's SIGINT to its process group reaches Python directly (no wrapper to shield, as bubblewrap
 * needs), and its pid is the host's.
 *
 * Environment: sandbox-exec passes its own through; spawn it with exactly `env` (SubprocessKernel
 * does, TMPDIR/TMP/TEMP set to the scratch folder). `DYLD_*` variables do not survive: SIP strips
 * them when a protected binary such as /usr/bin/sandbox-exec starts.
 *
 * What Seatbelt cannot do: a PID namespace. Every child inherits the profile (no network, no writes
 * outside scratch), but nothing ties its life to the kernel's. The host kills the kernel's process
 * group (SubprocessKernel spawns it `detached`, so the group is the kernel's own): that reaches every
 * descendant that stayed in the group, and misses one that left it with `setsid()` (or
 * `setpgid()`); such a process outlives the kernel, still confined, until it exits or the user
 * ends it. On Linux the PID namespace's init takes every process with it.
 */
export function seatbeltCommand(
  probe: SandboxAvailable,
  policy: SandboxPolicy,
  command: string,
  args: string[],
  hidden: string[],
): { command: string; args: string[] } {
  const { profile, params } = seatbeltProfile(policy, hidden);
  const defines = Object.entries(params).flatMap(([k, v]) => ['-D', `${k}=${v}`]);
  return { command: probe.command, args: ['-p', profile, ...defines, '--', command, ...args] };
}

/**
 * The macOS probe: `/usr/bin/sandbox-exec` exists; `sandbox-exec -p '(version 1)(allow default)'
 * /usr/bin/true` works (it does not inside another sandbox); the full profile shape compiles (every
 * kind of rule seatbeltProfile writes, with stand-in paths under the temp folder); the macOS version
 * from `sw_vers` ('unknown' when it fails). `exec` runs each step (tests pass a double).
 */
export function probeDarwin(
  exec: SeatbeltExec = spawnExec,
  opts: { command?: string; canExecute?: (path: string) => boolean; tmp?: string } = {},
): SandboxProbe {
  const command = opts.command ?? SANDBOX_EXEC;
  const canExecute = opts.canExecute ?? isExecutable;
  const fix = 'none on this system: every cell asks before it runs';
  if (!canExecute(command)) {
    return { available: false, reason: `macOS's sandbox-exec was not found at ${command}`, fix: `${fix} (sandbox-exec ships with macOS at ${SANDBOX_EXEC})` };
  }
  const trivial = exec(command, ['-p', TRIVIAL_PROFILE, TRUE]);
  if (failed(trivial)) {
    return {
      available: false,
      reason: `macOS's sandbox-exec cannot apply a profile here (${why(trivial)})`,
      fix: `${fix}; a process that already runs in a sandbox cannot start another one: run the editor (or scroll) outside it`,
    };
  }
  const available: SandboxAvailable = { available: true, kind: 'seatbelt', command, version: macosVersion(exec) };
  const tmp = opts.tmp ?? seatbeltPath(tmpdir()) ?? '/private/tmp';
  const stand = join(tmp, `scroll-seatbelt-probe-${process.pid}`);
  let full: ExecResult;
  try {
    const argv = seatbeltCommand(available, { workspace: tmp, scratchDir: tmp, readablePaths: [join(stand, 'readable')] }, TRUE, [], [stand]);
    full = exec(argv.command, argv.args);
  } catch (e) {
    full = { status: null, error: e as Error };
  }
  if (failed(full)) {
    return {
      available: false,
      reason: `Scroll's Seatbelt profile does not work on this macOS${available.version === 'unknown' ? '' : ` ${available.version}`} (${why(full)})`,
      fix: `${fix}; please report it with your macOS version`,
    };
  }
  return available;
}

function macosVersion(exec: SeatbeltExec): string {
  const r = exec(SW_VERS, ['-productVersion']);
  const v = `${r.stdout ?? ''}`.trim();
  return !failed(r) && /^\d+(\.\d+)*$/.test(v) ? v : 'unknown';
}

function failed(r: ExecResult): boolean {
  return !!r.error || r.status !== 0;
}

function why(r: ExecResult): string {
  const line = `${r.error?.message ?? r.stderr ?? ''}`.trim().split('\n')[0]?.trim();
  return line || (r.signal ? `killed by ${r.signal}` : `exit ${r.status}`);
}

function existingReal(p: string): string | undefined {
  try {
    return realpathSync.native(p);
  } catch {
    return undefined;
  }
}


