/**
 * Reader for the chat sessions VS Code keeps for GitHub Copilot Chat (and every other chat
 * participant): `<user-data>/User/workspaceStorage/<workspace id>/chatSessions/<session id>.json`
 * (a whole `ISerializableChatData`, versions 1–3) or, since 2025, `<session id>.jsonl`: a mutation
 * log whose first line is `{kind: 0, v: <whole session>}` and every later line one change
 * (`kind` 1 set `v` at path `k`, 2 push `v` onto the array at `k` after cutting it to length `i`,
 * 3 delete `k`). Empty windows keep theirs in `<user-data>/User/globalStorage/emptyWindowChatSessions/`.
 * "Chat: Export Chat…" writes `IExportableChatData` (requests, no session id or version).
 *
 * A mutation log is read whole (its lines are patches of one object, not records), so the importer
 * hands this reader the file's text; a `.json` file it may hand parsed. Pure: no I/O, no clock.
 *
 * Mapping, per request: its message → `user_message`; each response part in order → markdown as
 * `model_turn`, thinking as `thinking`, each tool invocation as `tool_call` (name
 * the tool id, content its input JSON) followed by a `tool_result` when the file holds the output
 * (`resultDetails.output`, a terminal's output), else `meta.toolOutput = "not recorded by source"`;
 * every other part (inline references, code block URIs, edit groups, progress messages, confirmations,
 * …) a `note` holding the part's JSON. Result, timings, followups, votes, usage and references go in
 * one `note` named `copilot.response`. A response is read once it is complete (or a later request
 * exists), so a reply still streaming is never stored half.
 *
 * Requests answered by Scroll's own participant (`@scroll`, agent id `scroll.agent`) are skipped and
 * counted in `skipped`: VS Code writes them to the same files, but Scroll's log has recorded those
 * turns itself, in full, as they happened. A session holding only such requests gives no events.
 */
import type { CapturedBinary, CapturedEvent, CaptureProblem, CaptureReader, ReaderOutput, RecordOrigin } from './types';
import { KEPT_WHOLE, isObject, str } from './readerKit';
import {
  cleanMeta, contentHash, decodeBase64, fileUriToPath, imageNotes, type Json, omit, rawNote, thinkingEvent, toIso, UNKNOWN_TS,
} from './readerParts';

const SOURCE = 'copilot-chat' as const;
/** The chat participant id of Scroll's own `@scroll` agent (package.json contributes.chatParticipants). */
export const SCROLL_PARTICIPANT_ID = 'scroll.agent';
/** Why its requests are not captured (the import summary says so). */
export const SCROLL_OWN_TURNS = `requests answered by Scroll's own @scroll participant (${SCROLL_PARTICIPANT_ID}): the log records those turns itself`;
/** The newest `ISerializableChatData` version this reader knows. */
export const COPILOT_CHAT_VERSION = 3;

/** Request fields that belong to the response (written when it ends): they go in the `copilot.response` note. */
const RESPONSE_KEYS = [
  'responseId', 'responseTimestamp', 'result', 'responseMarkdownInfo', 'followups', 'modelState', 'vote',
  'voteDownReason', 'usedContext', 'contentReferences', 'codeCitations', 'timeSpentWaiting', 'completionTokens',
  'promptTokens', 'outputBuffer', 'promptTokenDetails', 'copilotCredits', 'modelTotals', 'sessionCopilotCredits',
  'elapsedMs', 'isCanceled', 'responseErrorDetails',
];
/** Response part kinds with a known meaning that are kept as a `note` with the part's JSON. */
const NOTE_PARTS = new Set([
  'inlineReference', 'codeblockUri', 'textEditGroup', 'notebookEditGroup', 'undoStop', 'progressMessage',
  'progressTaskSerialized', 'progressTask', 'confirmation', 'command', 'warning', 'info', 'treeData', 'multiDiffData',
  'elicitationSerialized', 'elicitation', 'mcpServersStarting', 'extensions', 'pullRequest', 'questionCarousel',
  'workspaceEdit', 'externalEdit', 'hook', 'systemNotification', 'planReview', 'autoModeResolution',
  'clearToPreviousToolInvocation', 'prepareToolInvocation', 'reference', 'usedContext', 'disabledClaudeHooks',
]);

/** The importer hands it every file's text (`.jsonl` logs and `.json` documents alike). */
export const copilotChatReader: CaptureReader = { source: SOURCE, format: 'text', read: (record, origin) => readCopilotChat(record, origin) };

/** Replays a `.jsonl` mutation log to the session object it describes. */
export function replayChatMutationLog(text: string, origin: RecordOrigin): { state?: Json; problems: CaptureProblem[] } {
  const problems: CaptureProblem[] = [];
  let state: Json | undefined;
  const lines = text.split('\n');
  // A last line with no newline yet may be half-written: it is read again when the file changes.
  const unfinished = text.endsWith('\n') ? -1 : lines.length - 1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (!line.trim()) continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch (e) {
      if (i === unfinished) continue;
      problems.push({ origin: { path: origin.path, line: i + 1 }, message: `not JSON: ${(e as Error).message}` });
      continue;
    }
    const at = { path: origin.path, line: i + 1 };
    if (!isObject(entry) || typeof entry.kind !== 'number') {
      problems.push({ origin: at, message: 'not a chat session log entry (no numeric "kind")' });
      continue;
    }
    if (entry.kind === 0) {
      if (!isObject(entry.v)) problems.push({ origin: at, message: 'initial entry without a session object' });
      else state = entry.v;
      continue;
    }
    if (!state) {
      problems.push({ origin: at, message: 'change before the initial entry (kind 0)' });
      continue;
    }
    const path = Array.isArray(entry.k) ? (entry.k as (string | number)[]) : undefined;
    if (!path || path.length === 0) {
      problems.push({ origin: at, message: `entry of kind ${entry.kind} without a path ("k")` });
      continue;
    }
    const parent = walk(state, path.slice(0, -1));
    if (!parent) {
      problems.push({ origin: at, message: `path ${JSON.stringify(path)} does not exist in the session` });
      continue;
    }
    const key = path[path.length - 1];
    const slot = parent as Record<string | number, unknown>;
    if (entry.kind === 1) slot[key] = entry.v;
    else if (entry.kind === 3) delete slot[key];
    else if (entry.kind === 2) {
      const arr = Array.isArray(slot[key]) ? (slot[key] as unknown[]) : [];
      if (typeof entry.i === 'number') arr.length = Math.min(arr.length, entry.i);
      if (Array.isArray(entry.v)) arr.push(...entry.v);
      slot[key] = arr;
    } else problems.push({ origin: at, message: `unknown log entry kind ${entry.kind}` });
  }
  if (!state && !problems.length) problems.push({ origin: { path: origin.path }, message: 'empty chat session log', perFile: true });
  return { state, problems };
}

function walk(root: unknown, path: (string | number)[]): unknown {
  let cur = root;
  for (const k of path) {
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[k];
  }
  return cur && typeof cur === 'object' ? cur : undefined;
}

/**
 * Reads one chat session file: `record` is a `.jsonl` mutation log's text, or a `.json` file's
 * text or parsed value (a stored session of version 1–3, or an export).
 */
export function readCopilotChat(record: unknown, origin: RecordOrigin): ReaderOutput {
  let data: unknown = record;
  const problems: CaptureProblem[] = [];
  if (typeof record === 'string') {
    if (/^\s*\{\s*"kind"\s*:\s*\d/.test(record.slice(0, 200)) || origin.path.endsWith('.jsonl')) {
      const replayed = replayChatMutationLog(record, origin);
      problems.push(...replayed.problems);
      if (!replayed.state) return { events: [], problems };
      data = replayed.state;
    } else {
      try {
        data = JSON.parse(record);
      } catch (e) {
        return { events: [], problems: [{ origin: { path: origin.path }, message: `not JSON: ${(e as Error).message}`, perFile: true }] };
      }
    }
  }
  if (!isObject(data) || !Array.isArray(data.requests)) {
    problems.push({ origin: { path: origin.path }, message: 'not a chat session (no "requests" array)', perFile: true });
    return { events: [], problems };
  }
  const out = mapSession(data, origin, problems);
  return {
    events: out.events, problems, cwd: out.cwd,
    ...(out.ownTurns ? { skipped: [{ reason: SCROLL_OWN_TURNS, records: out.ownTurns }] } : {}),
    ...(out.inProgress ? { inProgress: out.inProgress } : {}),
  };
}

/** A request (or a queued one's request) that Scroll's own participant answers. */
function isScrollOwn(r: unknown): boolean {
  return isObject(r) && isObject(r.agent) && r.agent.id === SCROLL_PARTICIPANT_ID;
}

function mapSession(data: Json, origin: RecordOrigin, problems: CaptureProblem[]): { events: CapturedEvent[]; cwd?: string; ownTurns: number; inProgress?: string } {
  const all = data.requests as unknown[];
  const requests = all.filter((r) => !isScrollOwn(r));
  const allPending = Array.isArray(data.pendingRequests) ? data.pendingRequests : [];
  const pending = allPending.filter((p) => !(isObject(p) && isScrollOwn(p.request)));
  const ownTurns = all.length - requests.length + allPending.length - pending.length;
  const version = data.version;
  const exported = data.sessionId === undefined && data.version === undefined && data.creationDate === undefined;
  if (version !== undefined && (typeof version !== 'number' || version < 2 || version > COPILOT_CHAT_VERSION)) {
    problems.push({
      origin: { path: origin.path },
      message: `unknown chat session format version ${JSON.stringify(version)} (this reader knows 1–${COPILOT_CHAT_VERSION}): read as version ${COPILOT_CHAT_VERSION}, check the events`,
      perFile: true,
    });
  }
  const firstRequestId = all.map((r) => (isObject(r) ? str(r.requestId) : undefined)).find(Boolean);
  const sessionId = str(data.sessionId)
    ?? (exported && firstRequestId ? `export-${firstRequestId.replace(/^request_/, '')}` : fileStem(origin.path));
  const session = `${SOURCE}:${sessionId}`;
  const creationTs = toIso(data.creationDate);
  const workingDirectory = str(data.workingDirectory);
  const cwd = workingDirectory ? fileUriToPath(workingDirectory) : undefined;
  const base: Json = cleanMeta({ source: SOURCE, sessionId, format: exported ? 'export' : `v${version ?? 1}`, cwd });
  const events: CapturedEvent[] = [];
  // Scroll's own session, seen through VS Code's file: nothing of it is another agent's.
  if (ownTurns > 0 && requests.length === 0 && pending.length === 0) return { events, cwd, ownTurns };

  // Session-level fields (title, location, responder, repository state): one note per distinct value.
  const header = omit(data, ['requests', 'pendingRequests', 'inputState', 'sessionId']);
  if (header) {
    events.push({
      kind: 'note', role: 'system', name: 'copilot.session', content: JSON.stringify(header), session,
      ts: creationTs ?? UNKNOWN_TS, recordId: `${sessionId}#session.${contentHash(header)}`,
      meta: cleanMeta({ ...base, title: str(data.customTitle) ?? str(data.computedTitle) }),
    });
  }

  let inProgress: string | undefined;
  all.forEach((r, i) => {
    if (isScrollOwn(r)) return;
    if (!isObject(r)) {
      problems.push({ origin: { path: origin.path }, message: `request ${i} is not an object: kept as a note` });
      events.push(rawNote(SOURCE, session, creationTs ?? UNKNOWN_TS, `${sessionId}/request-${i}#raw.${contentHash(r)}`, 'copilot.request', r, base));
      return;
    }
    const complete = i < all.length - 1 || isResponseComplete(r);
    // A reply still being written waits for its end, unless the file stopped changing: then its
    // window closed mid-reply and the reply is kept as it stands (types.ts, SETTLED_AFTER_MS).
    if (!complete && !origin.settled) inProgress = `the reply to request ${i + 1} is still being written`;
    const unfinished = !complete && origin.settled ? contentHash(omit(r, Object.keys(r).filter((k) => k !== 'response' && !RESPONSE_KEYS.includes(k)))) : undefined;
    events.push(...mapRequest(r, i, { session, sessionId, base, creationTs, complete: complete || unfinished !== undefined, unfinished }));
  });

  allPending.forEach((p, i) => {
    if (isObject(p) && isScrollOwn(p.request)) return;
    const req = isObject(p) && isObject(p.request) ? p.request : undefined;
    const id = (req && str(req.requestId)) ?? (isObject(p) ? str(p.id) : undefined) ?? `${sessionId}/pending-${i}`;
    events.push({
      kind: 'note', role: 'user', name: 'copilot.pendingRequest', content: req ? messageText(req.message) : JSON.stringify(p),
      session, ts: toIso(req?.timestamp) ?? creationTs ?? UNKNOWN_TS, recordId: `${id}#pending`,
      meta: cleanMeta({ ...base, pending: omit(isObject(p) ? p : {}, []) }),
    });
  });
  return { events, cwd, ownTurns, inProgress };
}

/** meta.unfinished of a reply kept as it stood when its file stopped changing mid-reply. */
export const UNFINISHED_NOTE = 'the reply was still being written when its session file stopped changing: kept as it stood';

/** Response state 1 complete, 2 cancelled, 3 failed; 0 pending and 4 waiting for input are not done. */
function isResponseComplete(r: Json): boolean {
  if (isObject(r.modelState) && typeof r.modelState.value === 'number') return [1, 2, 3].includes(r.modelState.value);
  return true; // files from before modelState were written whole
}

interface RequestContext {
  session: string;
  sessionId: string;
  base: Json;
  creationTs?: string;
  complete: boolean;
  /**
   * Set for a reply that stopped mid-way (its file settled while it was in progress): a hash of
   * the reply as it stands. Its events get ids of their own (`#unfinished.<hash>.…`), so if the
   * reply does end later its complete form is added beside this one, never dropped as present.
   */
  unfinished?: string;
}

function messageText(message: unknown): string {
  if (typeof message === 'string') return message;
  if (isObject(message) && typeof message.text === 'string') return message.text;
  return '';
}

function mapRequest(r: Json, index: number, ctx: RequestContext): CapturedEvent[] {
  const { session, sessionId, base } = ctx;
  const requestId = str(r.requestId) ?? `${sessionId}/request-${index}`;
  const ts = toIso(r.timestamp) ?? ctx.creationTs ?? UNKNOWN_TS;
  const agent = isObject(r.agent) ? r.agent : undefined;
  const agentId = agent ? str(agent.id) : undefined;
  const modelId = str(r.modelId);
  const common: Json = cleanMeta({
    ...base, requestId, modelId, agentId,
    agentExtension: agent && isObject(agent.extensionId) ? str(agent.extensionId.value) : undefined,
  });
  const events: CapturedEvent[] = [];

  // The request side: message, attachments (images as binaries), mode, agent, slash command, edits.
  const binaries: CapturedBinary[] = [];
  const requestFields = omit(r, [...RESPONSE_KEYS, 'response', 'requestId']) ?? {};
  if (isObject(requestFields.variableData)) requestFields.variableData = extractImages(requestFields.variableData, binaries);
  if (isObject(requestFields.message)) requestFields.message = omit(requestFields.message, ['text']);
  events.push({
    kind: 'user_message', role: 'user', content: messageText(r.message), session, ts, recordId: `${requestId}#message`,
    meta: cleanMeta({
      ...common,
      slashCommand: isObject(r.slashCommand) ? str(r.slashCommand.name) : undefined,
      mode: isObject(r.modeInfo) ? str(r.modeInfo.kind) : undefined,
      request: requestFields,
    }),
  });
  events.push(...imageNotes({ session, ts, role: 'user' }, `${requestId}#message`, binaries, common));
  if (!ctx.complete) return events;

  const responseId = str(r.responseId);
  const responseTs = toIso(r.responseTimestamp) ?? ts;
  const partMeta: Json = cleanMeta({ ...common, responseId, unfinished: ctx.unfinished ? UNFINISHED_NOTE : undefined });
  const at = ctx.unfinished ? `${requestId}#unfinished.${ctx.unfinished}.` : `${requestId}#`;
  const parts = Array.isArray(r.response) ? r.response : typeof r.response === 'string' ? [{ value: r.response }] : [];
  parts.forEach((part, j) => {
    events.push(...mapPart(part, `${at}response.${j}`, session, responseTs, partMeta));
  });

  const responseFields = omit(r, Object.keys(r).filter((k) => !RESPONSE_KEYS.includes(k)));
  if (responseFields) {
    const state = isObject(r.modelState) ? r.modelState : undefined;
    const result = isObject(r.result) ? r.result : undefined;
    events.push({
      kind: 'note', role: 'assistant', name: 'copilot.response', content: JSON.stringify(responseFields), session,
      ts: toIso(state?.completedAt) ?? responseTs, recordId: `${at}result`,
      meta: cleanMeta({
        ...partMeta,
        responseState: typeof state?.value === 'number' ? ['pending', 'complete', 'cancelled', 'failed', 'needsInput'][state.value] ?? state.value : undefined,
        isError: result && result.errorDetails ? true : undefined,
        errorMessage: result && isObject(result.errorDetails) ? str(result.errorDetails.message) : undefined,
        timings: result?.timings,
        elapsedMs: r.elapsedMs,
      }),
    });
  }
  return events;
}

/** Image attachments' bytes move to binaries; meta keeps `{ binary: n }` in their place. */
function extractImages(variableData: Json, binaries: CapturedBinary[]): Json {
  if (!Array.isArray(variableData.variables)) return variableData;
  const variables = variableData.variables.map((v) => {
    if (!isObject(v) || !(v.kind === 'image' || v.isImage === true)) return v;
    const bytes = bytesOf(v.value);
    if (!bytes) return v;
    binaries.push({ mediaType: str(v.mimeType) ?? 'image/png', data: bytes });
    return { ...v, value: { binary: binaries.length - 1 } };
  });
  return { ...variableData, variables };
}

/** A Uint8Array as JSON writes it (`{"0":137,…}` or `[137,…]`) or base64 text. */
function bytesOf(v: unknown): Uint8Array | undefined {
  if (typeof v === 'string') return decodeBase64(v.replace(/^data:[^,]*,/, ''));
  if (Array.isArray(v) && v.every((n) => typeof n === 'number')) return Uint8Array.from(v as number[]);
  if (isObject(v)) {
    const keys = Object.keys(v);
    if (keys.length && keys.every((k, i) => k === String(i) && typeof v[k] === 'number')) return Uint8Array.from(keys.map((k) => v[k] as number));
  }
  return undefined;
}

function mapPart(part: unknown, recordId: string, session: string, ts: string, meta: Json): CapturedEvent[] {
  if (!isObject(part)) {
    if (typeof part === 'string') return [{ kind: 'model_turn', role: 'assistant', content: part, session, ts, recordId, meta: { ...meta, part: 'markdown' } }];
    return [rawNote(SOURCE, session, ts, recordId, 'copilot.part', part, meta)];
  }
  const kind = str(part.kind);
  if (kind === undefined && typeof part.value === 'string') {
    return [{
      kind: 'model_turn', role: 'assistant', content: part.value, session, ts, recordId,
      meta: cleanMeta({ ...meta, part: 'markdown', markdown: omit(part, ['value']) }),
    }];
  }
  if ((kind === 'markdownContent' || kind === 'markdownVuln') && isObject(part.content) && typeof part.content.value === 'string') {
    return [{
      kind: 'model_turn', role: 'assistant', content: part.content.value, session, ts, recordId,
      meta: cleanMeta({ ...meta, part: kind, markdown: omit(part.content, ['value']), vulnerabilities: part.vulnerabilities }),
    }];
  }
  if (kind === 'thinking') {
    const text = Array.isArray(part.value) ? part.value.filter((s) => typeof s === 'string').join('') : str(part.value) ?? '';
    return [thinkingEvent(SOURCE, session, ts, recordId, text, { ...meta, part: kind, thinkingId: part.id, thinkingMeta: omit(part, ['kind', 'value', 'id']) })];
  }
  if (kind === 'toolInvocationSerialized' || kind === 'toolInvocation') return mapToolInvocation(part, recordId, session, ts, meta);
  return [{
    kind: 'note', role: 'assistant', name: `copilot.${kind ?? 'part'}`, content: JSON.stringify(part), session, ts, recordId,
    meta: cleanMeta({ ...meta, part: kind, kept: kind && NOTE_PARTS.has(kind) ? undefined : KEPT_WHOLE }),
  }];
}

function mapToolInvocation(part: Json, recordId: string, session: string, ts: string, meta: Json): CapturedEvent[] {
  const name = str(part.toolId) ?? 'unknown-tool';
  const toolCallId = str(part.toolCallId) ?? null;
  const details = part.resultDetails;
  const specific = isObject(part.toolSpecificData) ? part.toolSpecificData : undefined;
  let input: string | undefined;
  if (isObject(details) && typeof details.input === 'string') input = details.input;
  else if (specific && specific.rawInput !== undefined) input = JSON.stringify(specific.rawInput);
  else if (specific?.kind === 'terminal' && specific.commandLine !== undefined) input = JSON.stringify(specific.commandLine);

  // Output: the MCP/extension tool's result details, or a terminal command's captured output.
  let output: string | undefined;
  let isError: boolean | undefined;
  const binaries: CapturedBinary[] = [];
  let outputMeta: Json = {};
  // The details' fields no event holds (the raw MCP result, `mcpOutput`, and whatever VS Code adds).
  const detailsRest = isObject(details) ? omit(details, ['input', 'output', 'isError']) : undefined;
  if (isObject(details) && typeof details.output === 'string') {
    output = details.output;
    isError = details.isError === true;
  } else if (isObject(details) && isObject(details.output) && details.output.type === 'data') {
    // One data part (an image a tool returned), base64 in a serialized session (`base64Data`).
    const data = details.output.base64Data ?? details.output.value;
    const bytes = typeof data === 'string' ? decodeBase64(data) : bytesOf(data);
    if (bytes) binaries.push({ mediaType: str(details.output.mimeType) ?? 'application/octet-stream', data: bytes });
    output = '';
    outputMeta = cleanMeta({ outputKind: 'data', output: bytes ? undefined : details.output });
  } else if (isObject(details) && Array.isArray(details.output)) {
    const texts: string[] = [];
    for (const item of details.output) {
      if (!isObject(item)) continue;
      if (item.isText === false && typeof item.value === 'string') {
        binaries.push({ mediaType: str(item.mimeType) ?? 'application/octet-stream', data: decodeBase64(item.value) });
      } else if (typeof item.value === 'string') texts.push(item.value);
    }
    output = texts.join('\n');
    isError = details.isError === true;
    outputMeta = cleanMeta({ outputParts: details.output.length, outputItems: details.output.map((o) => (isObject(o) ? omit(o, ['value']) : o)) });
  } else if (Array.isArray(details)) {
    output = JSON.stringify(details);
    outputMeta = { outputKind: 'locations' };
  } else if (specific?.kind === 'terminal' && isObject(specific.terminalCommandOutput) && typeof specific.terminalCommandOutput.text === 'string') {
    output = specific.terminalCommandOutput.text;
    const state = isObject(specific.terminalCommandState) ? specific.terminalCommandState : undefined;
    isError = typeof state?.exitCode === 'number' ? state.exitCode !== 0 : undefined;
    outputMeta = cleanMeta({ exitCode: state?.exitCode, outputTruncated: specific.terminalCommandOutput.truncated });
  }

  const invocation = omit(part, ['toolId', 'toolCallId', 'resultDetails']);
  if (invocation && isObject(invocation.toolSpecificData) && isObject(invocation.toolSpecificData.terminalCommandOutput)) {
    invocation.toolSpecificData = { ...invocation.toolSpecificData, terminalCommandOutput: omit(invocation.toolSpecificData.terminalCommandOutput, ['text']) };
  }
  const callMeta = cleanMeta({
    ...meta, part: str(part.kind), invocation,
    input: input === undefined ? 'not recorded by source' : undefined,
    toolOutput: output === undefined ? 'not recorded by source' : undefined,
    // Details of a shape this reader does not know: kept whole, as they are the tool's result.
    resultDetails: output === undefined && isObject(details) ? details : undefined,
  });
  const events: CapturedEvent[] = [{
    kind: 'tool_call', role: 'assistant', name, toolCallId, content: input ?? '', session, ts, recordId, meta: callMeta,
  }];
  if (output !== undefined) {
    events.push({
      kind: 'tool_result', role: 'tool', name, toolCallId, content: output, session, ts, recordId: `${recordId}.result`,
      meta: cleanMeta({ ...meta, isError: isError ?? false, ...outputMeta, resultDetails: detailsRest, images: binaries.length || undefined }),
    });
    events.push(...imageNotes({ session, ts, role: 'tool', toolCallId, name }, `${recordId}.result`, binaries, meta));
  }
  return events;
}

function fileStem(p: string): string {
  const base = p.split(/[\\/]/).pop() ?? p;
  return base.replace(/\.jsonl?$/, '');
}
