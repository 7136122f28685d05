/**
 * The `@scroll` chat participant: runs the Scroll agent loop with the chat's model, streams the
 * answer with links into the log, and offers /search, /expand, /index and /new. The session id
 * travels in ChatResult.metadata and is read back from the chat history, so a session survives
 * turns and window reloads (the loop rebuilds its view from the log).
 */
import * as vscode from 'vscode';
import type { AgentProgress } from '../../core/agent/agentLoop';
import { CancelledError } from '../../core/errors';
import { newSessionId } from '../../core/sessionId';
import { MAX_RANGE_EVENTS, parseSeqSpec, renderEventsForChat, renderHits } from '../documents/eventMarkdown';
import { renderEvictedSessions, renderIndexMarkdown } from '../documents/evictionBlocks';
import { sessionIndex, sessionsWithEvictions } from '../documents/historyQueries';
import { prompt } from '../../prompts';
import { forEditor } from '../maintenance/editorHint';
import { errorText, out } from '../output';
import type { ScrollServices } from '../services';
import { resolveInWorkspace } from '../tools/workspaceFiles';
import { escapeMarkdown, TOOL_NAMES } from '../tools/registerTools';
import type { AgentServices, AgentSession } from './agentSession';
import { OPEN_EVENT_COMMAND, openEventLink, openRangeLink, SeqLinkStreamer, seqRanges } from './chatLinks';

export const PARTICIPANT_ID = 'scroll.agent';
const SEARCH_HITS = 10;
const EXPAND_CHAT_CHARS = 30_000;
const SHOW_INDEX_COMMAND = 'scroll.showEvictionIndex';

export interface ScrollChatMetadata {
  session: string;
  userSeq?: number;
  lastSeq?: number;
  command?: string;
}

/** The session of the newest @scroll answer in this conversation, if any. */
export function sessionFromHistory(context: vscode.ChatContext): string | undefined {
  for (let i = context.history.length - 1; i >= 0; i--) {
    const turn = context.history[i];
    if (turn instanceof vscode.ChatResponseTurn && turn.participant === PARTICIPANT_ID) {
      const s = (turn.result.metadata as Partial<ScrollChatMetadata> | undefined)?.session;
      if (typeof s === 'string' && s) return s;
    }
  }
  return undefined;
}

function trustedMarkdown(text: string): vscode.MarkdownString {
  const md = new vscode.MarkdownString(text);
  md.isTrusted = { enabledCommands: [OPEN_EVENT_COMMAND, SHOW_INDEX_COMMAND] };
  return md;
}

const PROGRESS_LABELS: Record<string, (input: Record<string, unknown>) => string> = {
  [TOOL_NAMES.exec]: () => 'Running Python…',
  [TOOL_NAMES.searchHistory]: () => 'Searching history…',
  [TOOL_NAMES.expandEvent]: (i) => `Reading history seq ${String(i.seq ?? '')}…`,
  [TOOL_NAMES.readFile]: (i) => `Reading ${String(i.path ?? 'a file')}…`,
  [TOOL_NAMES.listFiles]: () => 'Listing files…',
  [TOOL_NAMES.searchText]: (i) => `Searching the workspace for “${String(i.query ?? '')}”…`,
  [TOOL_NAMES.editFile]: (i) => `Editing ${String(i.path ?? 'a file')}…`,
  [TOOL_NAMES.runCommand]: () => 'Running a command…',
};

/** What the participant needs of Scroll's services. */
export type ParticipantServices = AgentServices & Pick<ScrollServices, 'sessions'>;

export function registerChatParticipant(context: vscode.ExtensionContext, services: ParticipantServices): vscode.ChatParticipant {
  const sessions = new Map<string, AgentSession>();
  const sessionFor = (id: string) => {
    let s = sessions.get(id);
    // The agent loop is loaded on the first @scroll request, not at activation.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { AgentSession: Session } = require('./agentSession') as typeof import('./agentSession');
    if (!s) sessions.set(id, (s = new Session(id, services)));
    return s;
  };

  const handler: vscode.ChatRequestHandler = async (request, chatContext, stream, token) => {
    const session = (request.command === 'new' ? undefined : sessionFromHistory(chatContext)) ?? newSessionId('chat');
    const meta = (extra: Partial<ScrollChatMetadata> = {}): { metadata: ScrollChatMetadata } => ({ metadata: { session, ...extra } });
    services.sessions.setActive(session);
    out.debug(`session ${session}: request${request.command ? ` /${request.command}` : ''} (${request.prompt.length} characters${request.model ? `, model ${request.model.vendor}/${request.model.id}` : ''})`);
    try {
      switch (request.command) {
        case 'new':
          stream.markdown(`Started a new Scroll session \`${session}\`. Earlier sessions stay in the log: \`/search\` finds them.`);
          if (request.prompt.trim()) break; // …and go on to answer the prompt in it
          return meta({ command: 'new' });
        case 'search':
          searchCommand(services, request.prompt, stream);
          return meta({ command: 'search' });
        case 'expand':
          expandCommand(services, request.prompt, stream);
          return meta({ command: 'expand' });
        case 'index':
          indexCommand(services, session, request.prompt, stream);
          return meta({ command: 'index' });
      }
      if (!request.prompt.trim()) {
        stream.markdown('Ask me something about this workspace, or use `/search`, `/expand`, `/index` or `/new`.');
        return meta();
      }
      if (!request.model) {
        noModel(stream);
        return meta();
      }
      if (!vscode.workspace.isTrusted) {
        stream.markdown(
          'This workspace is not trusted, so @scroll does not run its agent (it would record, edit and run code). ' +
            'History still works: `/search`, `/expand` and `/index`. Trust the workspace to use the agent.',
        );
        return meta();
      }
      return await runAgent(services, sessionFor(session), request, stream, token, meta);
    } catch (e) {
      if (e instanceof CancelledError || token.isCancellationRequested) return meta();
      const message = e instanceof Error ? e.message : String(e);
      out.warn(`session ${session}: request failed: ${errorText(e)}`);
      if (e instanceof Error && (e.cause instanceof vscode.LanguageModelError) && e.cause.code === vscode.LanguageModelError.NotFound.name) noModel(stream);
      return { ...meta(), errorDetails: { message } }; // the chat view shows it under the answer
    } finally {
      services.sessions.turnDone();
      services.logs.notifyChanged();
    }
  };

  const participant = vscode.chat.createChatParticipant(PARTICIPANT_ID, handler);
  participant.iconPath = new vscode.ThemeIcon('history');
  participant.followupProvider = {
    provideFollowups(result: vscode.ChatResult) {
      const m = result.metadata as Partial<ScrollChatMetadata> | undefined;
      if (!m?.session || m.command) return [];
      return [{ prompt: '', command: 'index', label: 'Show the eviction index of this session' }];
    },
  };
  context.subscriptions.push(participant);
  return participant;
}

async function runAgent(
  services: ParticipantServices,
  agent: AgentSession,
  request: vscode.ChatRequest,
  stream: vscode.ChatResponseStream,
  token: vscode.CancellationToken,
  meta: (extra?: Partial<ScrollChatMetadata>) => vscode.ChatResult & { metadata: ScrollChatMetadata },
): Promise<vscode.ChatResult> {
  const text = new SeqLinkStreamer((md) => stream.markdown(trustedMarkdown(md)));
  const usedSeqs: number[] = [];
  const referenced = new Set<string>();
  let evictions = 0;
  const shown = new Set<string>();
  const reference = (p: unknown) => {
    try {
      const uri = resolveInWorkspace(p);
      if (referenced.has(uri.toString())) return;
      referenced.add(uri.toString());
      stream.reference(uri);
    } catch {
      /* not a workspace path: nothing to reference */
    }
  };
  const onProgress = (p: AgentProgress) => {
    switch (p.type) {
      case 'step':
        services.sessions.reportFigures({ session: agent.session, viewTokens: p.viewTokens, budget: p.budget, evictions });
        break;
      case 'text':
        text.push(p.text);
        break;
      case 'tool_call':
        text.flush();
        stream.progress((PROGRESS_LABELS[p.call.name] ?? (() => `Running ${p.call.name}…`))(p.call.input));
        break;
      case 'tool_result':
        usedSeqs.push(p.seq);
        if (p.isError && p.call.name === TOOL_NAMES.exec) execNotRun(services, agent, p.call.id, stream, shown);
        if (!p.isError && (p.call.name === TOOL_NAMES.readFile || p.call.name === TOOL_NAMES.editFile)) reference(p.call.input.path);
        services.logs.notifyChanged();
        break;
      case 'eviction':
        evictions++;
        stream.progress(`Evicted seq ${p.fromSeq}–${p.toSeq} from the working view (kept in the log)…`);
        break;
      case 'answer':
        break;
    }
  };
  const showCell = (code: string) => {
    text.flush();
    const md = new vscode.MarkdownString('\n\nScroll asks before running this cell:\n\n');
    md.appendCodeblock(code, 'python');
    stream.markdown(md);
  };
  const toolReferences = request.toolReferences.map((r) => r.name);
  const result = await agent.run(request.prompt, request.model, { toolInvocationToken: request.toolInvocationToken, token, onProgress, showCell, toolReferences });
  text.flush();
  if (result.stopped === 'max_steps') stream.markdown(`\n\n_Stopped after ${result.steps} model calls without a final answer; ask me to continue._`);
  const links = seqRanges(usedSeqs).map((r) => (r.from === r.to ? `[seq ${r.from}](${openEventLink(r.from)})` : `[seq ${r.from}–${r.to}](${openRangeLink(r.from, r.to)})`));
  const footer = [`[seq ${result.userSeq}–${result.lastSeq}](${openRangeLink(result.userSeq, result.lastSeq)}) logged`];
  if (links.length) footer.push(`tool results: ${links.join(', ')}`);
  if (result.evictions) footer.push(`${result.evictions} eviction${result.evictions === 1 ? '' : 's'} (\`/index\`)`);
  footer.push(`model ${escapeMarkdown(request.model.name)}`);
  stream.markdown(trustedMarkdown(`\n\n---\n_Session \`${agent.session}\` · ${footer.join(' · ')}_`));
  services.logs.notifyChanged();
  return meta({ userSeq: result.userSeq, lastSeq: result.lastSeq });
}

/**
 * A scroll_exec cell that did not run because of the consent rules: `scroll.kernel.sandbox: require`
 * without a sandbox (the refusal says how to install one), or the user declined it. Said once a turn
 * in the chat; the model gets the same from the tool result.
 */
function execNotRun(services: ParticipantServices, agent: AgentSession, callId: string, stream: vscode.ChatResponseStream, shown: Set<string>): void {
  if (agent.declined(callId)) {
    if (shown.has('declined')) return;
    shown.add('declined');
    stream.markdown('\n\n_You declined the Python cell: it did not run (logged as declined)._\n\n');
    return;
  }
  let confinement;
  try {
    confinement = services.kernels.cellConfinement(agent.session);
  } catch {
    return;
  }
  if (confinement.kind !== 'refused' || shown.has('refused')) return;
  shown.add('refused');
  const md = new vscode.MarkdownString('\n\n**Python did not run.** ');
  md.appendMarkdown(escapeMarkdown(confinement.refusal));
  md.appendMarkdown('\n\n');
  stream.markdown(md);
  stream.button({ command: 'workbench.action.openSettings', arguments: ['scroll.kernel.sandbox'], title: 'Open the sandbox setting' });
}

function noModel(stream: vscode.ChatResponseStream): void {
  stream.markdown(prompt('chat/model-setup'));
  stream.button({ command: 'workbench.action.openSettings', arguments: ['scroll.openai'], title: 'Open Scroll model settings' });
}

function searchCommand(services: ParticipantServices, query: string, stream: vscode.ChatResponseStream): void {
  if (!query.trim()) {
    stream.markdown('Usage: `/search <words>` — full-text search over every logged message, tool call and output.');
    return;
  }
  const log = services.logs.existingLog();
  if (!log) {
    stream.markdown('This workspace has no Scroll history yet.');
    return;
  }
  stream.progress('Searching history…');
  const r = log.search(query, { k: SEARCH_HITS, snippet: true });
  const note = r.message !== undefined ? forEditor(r.message) : (r.broadened ? 'no event has every word; showing events with any of them' : undefined);
  stream.markdown(trustedMarkdown(renderHits(query, r.hits, openEventLink, note)));
  if (r.hits.length >= SEARCH_HITS) stream.button({ command: 'scroll.searchHistory', arguments: [query], title: 'All hits in Search History' });
}

function expandCommand(services: ParticipantServices, spec: string, stream: vscode.ChatResponseStream): void {
  let parsed;
  try {
    parsed = parseSeqSpec(spec);
  } catch (e) {
    stream.markdown(`${(e as Error).message}. Usage: \`/expand 42\` or \`/expand 40..45\`.`);
    return;
  }
  const log = services.logs.existingLog();
  if (!log) {
    stream.markdown('This workspace has no Scroll history yet.');
    return;
  }
  const from = 'seq' in parsed ? parsed.seq : parsed.from;
  const to = 'seq' in parsed ? parsed.seq : Math.min(parsed.to, parsed.from + MAX_RANGE_EVENTS - 1);
  const events = log.range(from, to, { keepPreview: true });
  if (!events.length) {
    stream.markdown(`No event at seq ${from === to ? from : `${from}..${to}`}. The log holds seq 1..${log.maxSeq()}.`);
    return;
  }
  const heading = from === to ? '' : `Events ${from}..${to}${to > log.maxSeq() ? ` (the log ends at seq ${log.maxSeq()})` : ''}:\n\n`;
  let md = heading + renderEventsForChat(events);
  if (md.length > EXPAND_CHAT_CHARS) md = `${md.slice(0, EXPAND_CHAT_CHARS)}\n\n…_cut here in chat; the tab below shows everything._`;
  // Logged text is escaped line by line: shown literally, and it wraps in a narrow chat view.
  stream.markdown(md);
  stream.button({ command: OPEN_EVENT_COMMAND, arguments: [from === to ? from : `${from}..${to}`], title: 'Open in editor' });
}

function indexCommand(services: ParticipantServices, session: string, arg: string, stream: vscode.ChatResponseStream): void {
  const log = services.logs.existingLog();
  if (!log) {
    stream.markdown('This workspace has no Scroll history yet.');
    return;
  }
  // `/index <session>` shows another session's index; bare `/index`, this chat's.
  const named = arg.trim();
  const target = named || session;
  if (named && !log.sessions().some((s) => s.session === named)) {
    stream.markdown(`No session \`${escapeMarkdown(named)}\` in this workspace's log. `);
    stream.markdown(trustedMarkdown(renderEvictedSessions(sessionsWithEvictions(log), indexLink)));
    return;
  }
  const index = sessionIndex(log, target, services.settings.config.indexLevelCap);
  if (!index.blocks().length) {
    // A new chat has nothing evicted yet: point at the sessions that do have an index.
    const others = sessionsWithEvictions(log).filter((s) => s.session !== target);
    stream.markdown(
      trustedMarkdown(
        `Nothing has been evicted from ${named ? `session \`${escapeMarkdown(target)}\`` : 'this session'}'s working view yet: it evicts once a long task fills its token budget. ` +
          (others.length ? `\`/index <session>\` shows another session's index.\n\n` : '') +
          renderEvictedSessions(others, indexLink),
      ),
    );
    return;
  }
  stream.markdown(trustedMarkdown(renderIndexMarkdown(target, index, (b) => openRangeLink(b.fromSeq, b.toSeq))));
  stream.button({ command: SHOW_INDEX_COMMAND, arguments: [target], title: 'Open the index in an editor' });
}

/** A chat link that opens a session's eviction index in an editor tab. */
function indexLink(session: string): string {
  return `command:${SHOW_INDEX_COMMAND}?${encodeURIComponent(JSON.stringify([session]))}`;
}
