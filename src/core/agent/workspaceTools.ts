/**
 * Workspace tools for headless hosts (the `scroll chat` CLI): read, list and search files always;
 * edit files and run commands only when the host allows it (`--allow-write`, `--allow-run`). Names,
 * schemas and descriptions are the tool table's (`toolTable.ts`), the same the editor offers; what
 * they do is `src/core/workspace/fileTools.ts`, which the editor's tools call too. Every path goes
 * through the one confinement rule: real paths, no writes through links, no walks into linked
 * folders, `.scroll` not writable in any spelling; patterns are matched by RE2 (linear time).
 */
import {
  Workspace,
  editSummary,
  formatCommandRun,
  listFiles,
  plannedText,
  readConfined,
  readFileText,
  runShellCommand,
  searchText,
  writeConfined,
} from '../workspace';
import { TOOL_NAMES, toolDefinition, type ToolName } from './toolTable';
import type { AgentTool, ToolContext, ToolOutput } from './tools';

export interface WorkspaceToolOptions {
  root: string;
  allowWrite?: boolean;
  allowRun?: boolean;
  /** Longest a command may run (default 60 s; the model may ask for less). */
  runTimeoutMs?: number;
  /** Characters of a file the model gets at once (default 200,000). */
  readCap?: number;
}

/** Bytes of a command's output kept (the log keeps it whole; the view shows a preview). */
const RUN_OUTPUT_MAX_BYTES = 10_000_000;
const EDIT_MAX_BYTES = 50_000_000;

export function workspaceTools(opts: WorkspaceToolOptions): AgentTool[] {
  const ws = Workspace.open(opts.root);
  const cap = opts.readCap ?? 200_000;
  const tools: AgentTool[] = [
    tool(TOOL_NAMES.readFile, async (input) => (await readFileText(ws, input, cap)).text),
    tool(TOOL_NAMES.listFiles, (input) => listFiles(ws, input)),
    tool(TOOL_NAMES.searchText, (input, ctx) => searchText(ws, input, ctx.signal)),
  ];
  if (opts.allowWrite) tools.push(tool(TOOL_NAMES.editFile, (input) => editFile(ws, input), true));
  if (opts.allowRun) {
    const maxMs = opts.runTimeoutMs ?? 60_000;
    tools.push(
      tool(
        TOOL_NAMES.runCommand,
        async (input, ctx) => {
          if (typeof input.command !== 'string' || !input.command.trim()) throw new Error('command is required');
          const asked = typeof input.timeoutMs === 'number' && input.timeoutMs > 0 ? input.timeoutMs : maxMs;
          const run = await runShellCommand(input.command, { cwd: ws.real, timeoutMs: Math.min(asked, maxMs), limitBytes: RUN_OUTPUT_MAX_BYTES, signal: ctx.signal });
          return { content: formatCommandRun(run), isError: run.timedOut || run.exitCode !== 0 };
        },
        true,
      ),
    );
  }
  return tools;
}

/**
 * Resolves `p` inside `root` by the confinement rule (`Workspace.resolve`, read access) and
 * returns the resolved path; throws when it is refused.
 */
export function insideRoot(root: string, p: unknown): string {
  return Workspace.open(root).resolve(p, 'read').real;
}

type Run = (input: Record<string, unknown>, ctx: ToolContext) => Promise<string | ToolOutput>;

/** A tool of the table; a refusal or bad input (an Error with a message for the model) is its error result. */
function tool(name: ToolName, run: Run, needsConfirmation = false): AgentTool {
  return {
    definition: toolDefinition(name),
    needsConfirmation,
    async invoke(input, ctx) {
      try {
        return await run(input, ctx);
      } catch (e) {
        if (e instanceof Error) return { content: `${name}: ${e.message}`, isError: true };
        throw e;
      }
    },
  };
}

async function editFile(ws: Workspace, input: Record<string, unknown>): Promise<string> {
  const target = ws.resolve(input.path, 'write');
  let before: string | undefined;
  if (target.kind) before = (await readConfined(ws, input.path, { maxBytes: EDIT_MAX_BYTES })).data.toString('utf8');
  const { create, after } = plannedText(String(input.path), before, input);
  const written = await writeConfined(ws, input.path, after);
  return editSummary(written.rel, create, before ?? '', after);
}
