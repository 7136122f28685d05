/**
 * `scroll mcp`: the workspace's memory as an MCP server on stdin/stdout (src/core/mcp). Runs until
 * the client closes stdin. stdout carries only the protocol; notes go to stderr.
 */
import { resolve } from 'node:path';
import { decideSandbox, parseSandboxMode, probeSandbox } from '../../core/kernel/sandbox';
import { createMemoryServer } from '../../core/mcp/memoryServer';
import { stringOption, UsageError, type Command, type CommandContext } from '../command';

const USAGE = `usage: scroll mcp [--workspace DIR] [--db PATH] [--read-only] [--sandbox MODE] [--python PATH] [--omit TOOL[,TOOL…]]

Serves this workspace's Scroll memory to an MCP client (Claude Code, Codex, VS Code, ...) over
stdio: tools search_history, read_events, history_index, and run_python (the sandboxed Python
kernel with \`ms\`; only when the kernel can be sandboxed and not with --read-only); every event,
range and session index as a resource (scroll:/event/<seq>.md, scroll:/range/<a>-<b>.md,
scroll:/index/<session>.md). Writes nothing but run_python's cells, under a session named after
the client (mcp:<client>:<time>).

options:
  --workspace DIR   the workspace (default: the current folder); its log is DIR/.scroll/scroll.db
  --db PATH         the event log, when it is elsewhere
  --read-only       for untrusted workspaces: no run_python, nothing written
  --sandbox MODE    the kernel's sandbox: auto (default) | require | off (off: no run_python)
  --python PATH     Python for run_python (default python3)
  --omit TOOLS      tools not to offer, comma-separated (the editor leaves out those its own
                    language-model tools already offer)

Claude Code:  claude mcp add scroll -- scroll mcp --workspace "$PWD"`;

export const command: Command = {
  name: 'mcp',
  summary: 'serve the memory to other agents (Model Context Protocol, stdio)',
  usage: USAGE,
  options: {
    workspace: { type: 'string' },
    'read-only': { type: 'boolean' },
    sandbox: { type: 'string' },
    python: { type: 'string' },
    omit: { type: 'string' },
  },
  run,
};

async function run(ctx: CommandContext): Promise<number> {
  const { io, values } = ctx;
  if (ctx.positionals.length) throw new UsageError(`mcp takes no positional arguments (got "${ctx.positionals[0]}")`);
  const sandboxOption = stringOption(values, 'sandbox');
  if (sandboxOption !== undefined && !['auto', 'require', 'off'].includes(sandboxOption)) {
    throw new UsageError(`--sandbox must be auto, require or off (got "${sandboxOption}")`);
  }
  const workspace = resolve(io.cwd, stringOption(values, 'workspace') ?? '.');
  const dbPath = typeof values.db === 'string' ? ctx.dbPath : resolve(workspace, '.scroll', 'scroll.db');
  const readOnly = values['read-only'] === true;
  const mode = parseSandboxMode(sandboxOption ?? 'auto');
  const sandbox = decideSandbox(mode, mode === 'off' ? { available: false, reason: 'the sandbox is off (--sandbox off)', fix: '--sandbox auto' } : probeSandbox({ env: { ...process.env, ...io.env } }));
  const omit = (stringOption(values, 'omit') ?? '').split(',').map((t) => t.trim()).filter(Boolean);
  const note = (m: string) => io.stderr(`scroll mcp: ${m}\n`);

  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const memory = createMemoryServer({ dbPath, workspace, readOnly, sandbox, python: stringOption(values, 'python'), omit, onWarning: note, version: packageVersion() });
  note(`serving ${dbPath}${readOnly ? ' read-only' : ''}; run_python ${memory.runPython.offered ? `offered (${sandbox.summary})` : `not offered: ${memory.runPython.reason}`}`);

  const transport = new StdioServerTransport();
  const closed = new Promise<void>((done) => {
    transport.onclose = () => done();
    // The SDK's transport does not watch for the end of stdin: the client went away.
    process.stdin.once('end', () => void transport.close());
    process.stdin.once('close', () => void transport.close());
  });
  await memory.server.connect(transport);
  await closed;
  await memory.close();
  return 0;
}

/** The package version `scroll --version` prints (main.ts is loaded by the time a command runs). */
function packageVersion(): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require('../main') as typeof import('../main')).version();
}
