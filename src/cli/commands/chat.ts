/**
 * `scroll chat`: the agent loop headless, against any OpenAI-compatible server. Reads user messages
 * (each --message, else one per line on stdin), prints each answer on stdout, logs everything to
 * the same event log. Progress (tool calls, evictions) goes to stderr. Also the evaluation harness.
 */
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { AgentLoop, type AgentProgress } from '../../core/agent/agentLoop';
import { CancelledError } from '../../core/errors';
import { OpenAICompatibleClient } from '../../core/agent/openaiClient';
import { workspaceTools } from '../../core/agent/workspaceTools';
import { errorMessage } from '../../core/errors';
import { LoggedKernel } from '../../core/kernel/loggedKernel';
import { SubprocessKernel } from '../../core/kernel/subprocessKernel';
import { decideSandbox, parseSandboxMode, probeSandbox, ScratchFolder } from '../../core/kernel/sandbox';
import { MemoryHost } from '../../core/memory/memoryHost';
import type { Kernel } from '../../core/kernel/kernel';
import { intOption, stringOption, UsageError, writeJson, type Command, type CommandContext } from '../command';
import { openForWriting } from '../openLog';
import { newSessionId } from '../../core/sessionId';

const USAGE = `usage: scroll chat --model-url URL --model NAME [options]

Talk to the Scroll agent headless. Messages come from --message (repeatable) or from stdin, one
per line; each answer is printed on stdout, progress on stderr. Everything is logged to the event
log (--db, default .scroll/scroll.db).

options:
  --model-url URL          OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1
  --model NAME             model name sent to the server
  --api-key-env VAR        environment variable holding the API key (never pass the key itself)
  --max-input-tokens N     the model's input limit (default 128000)
  --max-view-tokens N      working-view budget (default: input limit minus room for the answer)
  --max-steps N            model calls per message before stopping (default 40)
  --session S              session to continue (default: a new one; its id is printed on stderr)
  --message M              a user message (repeat for several); otherwise stdin lines
  --allow-write            offer scroll_editFile to the model
  --allow-run              offer scroll_runCommand to the model (commands run unsandboxed, like in a terminal)
  --no-kernel              do not start the Python kernel (no scroll_exec)
  --sandbox MODE           the kernel's OS sandbox: auto (default) | require | off
  --allow-unsandboxed-kernel
                           run scroll_exec cells even without a sandbox (nothing asks before a cell
                           runs in a headless chat: without a sandbox the model's Python can do
                           anything you can)
  --python PATH            Python for the kernel (default python3)
  --quiet                  no progress on stderr
  --json                   one JSON object per answer on stdout
`;

export const command: Command = {
  name: 'chat',
  summary: 'talk to the agent headless (OpenAI-compatible server); logs to the same database',
  usage: USAGE,
  options: {
    'model-url': { type: 'string' },
    model: { type: 'string' },
    'api-key-env': { type: 'string' },
    'max-input-tokens': { type: 'string' },
    'max-view-tokens': { type: 'string' },
    'max-steps': { type: 'string' },
    session: { type: 'string' },
    message: { type: 'string', multiple: true },
    'allow-write': { type: 'boolean' },
    'allow-run': { type: 'boolean' },
    'no-kernel': { type: 'boolean' },
    sandbox: { type: 'string' },
    'allow-unsandboxed-kernel': { type: 'boolean' },
    python: { type: 'string' },
    quiet: { type: 'boolean' },
  },
  run,
};

async function run(ctx: CommandContext): Promise<number> {
  const { io, values } = ctx;
  if (ctx.positionals.length) throw new UsageError(`chat takes no positional arguments (got "${ctx.positionals[0]}"); pass messages with --message or on stdin`);
  const modelUrl = stringOption(values, 'model-url');
  const modelName = stringOption(values, 'model');
  if (!modelUrl) throw new UsageError('--model-url is required (e.g. http://127.0.0.1:8000/v1)');
  if (!modelName) throw new UsageError('--model is required');
  const maxInputTokens = positive(intOption(values, 'max-input-tokens'), 'max-input-tokens');
  const maxViewTokens = positive(intOption(values, 'max-view-tokens'), 'max-view-tokens');
  const maxSteps = positive(intOption(values, 'max-steps'), 'max-steps');
  const messages = (values.message as string[] | undefined) ?? null;
  const quiet = values.quiet === true;
  const say = (t: string) => {
    if (!quiet) io.stderr(t);
  };

  // Configuration errors (bad URL, unset key variable) before anything is opened.
  const model = new OpenAICompatibleClient({
    baseUrl: modelUrl,
    model: modelName,
    apiKeyEnv: stringOption(values, 'api-key-env'),
    env: io.env,
    ...(maxInputTokens ? { maxInputTokens } : {}),
  });
  if (maxViewTokens && maxViewTokens > model.maxInputTokens) {
    throw new UsageError(`--max-view-tokens ${maxViewTokens} is above the model's input limit ${model.maxInputTokens} (set --max-input-tokens)`);
  }

  const sandboxOption = stringOption(values, 'sandbox');
  if (sandboxOption !== undefined && !['auto', 'require', 'off'].includes(sandboxOption)) {
    throw new UsageError(`--sandbox must be auto, require or off (got "${sandboxOption}")`);
  }

  const session = stringOption(values, 'session') ?? newSessionId('chat');
  const log = openForWriting(ctx, { session });
  let kernel: SubprocessKernel | null = null;
  let memory: MemoryHost | null = null;
  const abort = new AbortController();
  const onSigint = () => abort.abort();
  process.once('SIGINT', onSigint);
  try {
    let loggedKernel: Kernel | null = null;
    const decision = decideSandbox(parseSandboxMode(sandboxOption ?? 'auto'), probeSandbox({ env: { ...process.env, ...io.env } }));
    let kernelRefused: string | undefined;
    if (values['no-kernel'] === true) {
      // no kernel asked for
    } else if (decision.refusal) {
      kernelRefused = decision.refusal;
    } else if (!decision.sandboxed && values['allow-unsandboxed-kernel'] !== true) {
      kernelRefused = `the Python kernel would run unsandboxed (${decision.summary}); start with --allow-unsandboxed-kernel to allow that`;
    }
    if (kernelRefused) io.stderr(`scroll chat: no scroll_exec: ${kernelRefused}\n`);
    else if (values['no-kernel'] !== true) {
      io.stderr(`scroll chat: Python kernel ${decision.sandboxed ? decision.summary : `UNSANDBOXED (--allow-unsandboxed-kernel): ${decision.summary}`}\n`);
    }
    if (values['allow-run'] === true) io.stderr('scroll chat: --allow-run: commands the model runs are NOT sandboxed; they run as you, with your files and network\n');
    if (values['no-kernel'] !== true && !kernelRefused) {
      memory = new MemoryHost({ log, session });
      kernel = new SubprocessKernel({
        memory,
        session,
        cwd: io.cwd,
        pythonPath: stringOption(values, 'python'),
        ...(decision.sandboxed && decision.probe.available
          ? { sandbox: decision.probe, scratch: ScratchFolder.forSession(session, io.cwd), hiddenPaths: [dirname(log.path)] }
          : {}),
      });
      try {
        await kernel.start();
        loggedKernel = new LoggedKernel(kernel, log);
      } catch (e) {
        io.stderr(`scroll chat: the Python kernel did not start (${errorMessage(e)}); continuing without scroll_exec\n`);
        await kernel.dispose().catch(() => undefined);
        kernel = null;
      }
    }
    const loop = AgentLoop.open({
      log,
      session,
      model,
      kernel: loggedKernel,
      tools: workspaceTools({ root: io.cwd, allowWrite: values['allow-write'] === true, allowRun: values['allow-run'] === true }),
      // --allow-write / --allow-run are the user's permission: no further prompt in a headless run.
      confirm: async () => true,
      ...(maxViewTokens ? { maxViewTokens } : {}),
      ...(maxSteps ? { maxSteps } : {}),
      onProgress: (p) => say(progressLine(p)),
    });
    say(`scroll chat: session ${session}, model ${modelName}, view budget ${loop.budget} tokens, tools: ${loop.toolDefinitions.map((t) => t.name).join(', ')}\n`);

    for await (const message of messageSource(messages, ctx)) {
      try {
        const r = await loop.run(message, { signal: abort.signal });
        if (ctx.json) {
          writeJson(io, { session, message, answer: r.text, stopped: r.stopped, steps: r.steps, tool_calls: r.toolCalls, evictions: r.evictions, user_seq: r.userSeq, last_seq: r.lastSeq });
        } else {
          io.stdout(r.text.endsWith('\n') ? r.text : `${r.text}\n`);
          if (r.stopped === 'max_steps') io.stderr(`scroll chat: stopped after ${r.steps} model calls without a final answer (--max-steps)\n`);
        }
      } catch (e) {
        if (e instanceof CancelledError || abort.signal.aborted) {
          io.stderr('scroll chat: cancelled; everything so far is in the log\n');
          return 130;
        }
        throw e;
      }
    }
    return 0;
  } finally {
    process.removeListener('SIGINT', onSigint);
    if (kernel) await kernel.dispose().catch(() => undefined);
    memory?.dispose();
    log.close();
  }
}

async function* messageSource(messages: string[] | null, ctx: CommandContext): AsyncIterable<string> {
  if (messages) {
    for (const m of messages) if (m.trim()) yield m;
    return;
  }
  const rl = createInterface({ input: ctx.io.stdin, crlfDelay: Infinity });
  for await (const line of rl) if (line.trim()) yield line;
}

function progressLine(p: AgentProgress): string {
  switch (p.type) {
    case 'tool_call':
      return `  [step ${p.step}] ${p.call.name} ${oneLine(JSON.stringify(p.call.input), 100)}\n`;
    case 'tool_result':
      return p.isError ? `  [step ${p.step}] ${p.call.name} failed: ${oneLine(p.content, 100)}\n` : '';
    case 'eviction':
      return `  [step ${p.step}] evicted seq ${p.fromSeq}–${p.toSeq} (${p.events} events) from the view: ${oneLine(p.title.task, 60)}\n`;
    case 'step':
      return '';
    default:
      return '';
  }
}

function oneLine(s: string, max: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

function positive(n: number | undefined, name: string): number | undefined {
  if (n !== undefined && n <= 0) throw new UsageError(`--${name} must be a positive integer`);
  return n;
}
