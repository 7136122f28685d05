/**
 * Reader for Gemini CLI's saved history under `~/.gemini/tmp/<project hash>/` (the hash is sha256 of
 * the project root, so it gives workspace scope: `geminiProjectHash`):
 *  - `chats/session-<time>-<id8>.jsonl` (current): line 1 the session's metadata (`sessionId`,
 *    `projectHash`, `startTime`, …), then message records (`id`, `timestamp`, `type` user | gemini |
 *    info | error | warning, `content` as Gemini `Part`s or a string, on gemini messages `toolCalls`
 *    with `args`, `result` and `status`, `thoughts`, `tokens`, `model`). A message is appended again
 *    whole each time it changes (tokens, tool results), `{"$set": {...}}` updates the metadata and
 *    `{"$rewindTo": id}` marks a rewind. Sub-agents write `chats/<parent session>/<session id>.jsonl`.
 *  - `chats/session-*.json` (before): the whole `ConversationRecord` (`messages` array) in one document.
 *  - `checkpoint-<tag>.json` (`/chat save <tag>`): the API history, `Content[]` (`role` user | model,
 *    `parts`: text, `thought`, `functionCall`, `functionResponse`, `inlineData`), or `{history: …}`.
 *  - `checkpoints/*.json` (restorable tool checkpoints): `{history, clientHistory, toolCall, commitHash, filePath}`.
 *  - `logs.json`: the prompts typed, `{sessionId, messageId, timestamp, type, message}[]`.
 *
 * A line of a `.jsonl` is read on its own: a message's events have ids made of the message id, so the
 * same message appended again adds only what it did not hold before (a tool's result, the tokens).
 * Session `gemini-cli:<id8>`: the 8-character id Gemini names files by, which every line knows from
 * the path (the full id is in meta where the record holds it). Pure: no I/O, no clock.
 */
import { createHash } from 'node:crypto';
import type { CapturedBinary, CapturedEvent, CaptureProblem, CaptureReader, ReaderOutput, RecordOrigin } from './types';
import { isObject, str } from './readerKit';
import { cleanMeta, contentHash, decodeBase64, imageNotes, type Json, omit, rawNote, thinkingEvent, toIso, UNKNOWN_TS } from './readerParts';

const SOURCE = 'gemini-cli' as const;

/** Chats are streamed line by line; checkpoints, logs and legacy chats are whole documents. */
export const geminiReader: CaptureReader = {
  source: SOURCE,
  format: 'jsonl',
  formatOf: (p) => (p.endsWith('.jsonl') ? 'jsonl' : 'json'),
  read: (record, origin) => readGemini(record, origin),
};

/** Gemini CLI's name for a project's folder under `~/.gemini/tmp`: sha256 (hex) of its root path. */
export function geminiProjectHash(projectRoot: string): string {
  return createHash('sha256').update(projectRoot).digest('hex');
}

/** What a path under `~/.gemini/tmp/<hash>/` holds. */
export type GeminiFileKind = 'chat-jsonl' | 'chat-json' | 'checkpoint' | 'restore-checkpoint' | 'logs';

export function geminiFileKind(p: string): GeminiFileKind | undefined {
  const parts = p.split(/[\\/]/);
  const name = parts[parts.length - 1] ?? '';
  if (parts.includes('chats')) return name.endsWith('.jsonl') ? 'chat-jsonl' : name.endsWith('.json') ? 'chat-json' : undefined;
  if (parts[parts.length - 2] === 'checkpoints' && name.endsWith('.json')) return 'restore-checkpoint';
  if (/^checkpoint-.+\.json$/.test(name)) return 'checkpoint';
  if (name === 'logs.json') return 'logs';
  return undefined;
}

/** The project hash folder of a path under `~/.gemini/tmp/` (the folder right under `tmp`). */
export function geminiProjectOfPath(p: string): string | undefined {
  const parts = p.split(/[\\/]/);
  const i = parts.lastIndexOf('tmp');
  return i >= 0 ? parts[i + 1] : undefined;
}

function stem(p: string): string {
  return (p.split(/[\\/]/).pop() ?? p).replace(/\.jsonl?$/, '');
}

/** `session-2026-01-02T10-00-ab12cd34` → `ab12cd34`; a sub-agent's `<session id>` → its first 8 characters. */
export function geminiShortSessionId(p: string): string {
  const s = stem(p);
  if (s.startsWith('session-')) return s.split('-').pop() ?? s;
  return s.slice(0, 8);
}

/** Reads one record: a `.jsonl` line's parsed value, or a whole `.json` file's, by the path's kind. */
export function readGemini(record: unknown, origin: RecordOrigin): ReaderOutput {
  const kind = geminiFileKind(origin.path);
  let data = record;
  if (typeof record === 'string') {
    try {
      data = JSON.parse(record);
    } catch (e) {
      return { events: [], problems: [{ origin, message: `not JSON: ${(e as Error).message}`, perFile: kind !== 'chat-jsonl' }] };
    }
  }
  switch (kind) {
    case 'chat-jsonl': return readChatLine(data, origin);
    case 'chat-json': return readChatDocument(data, origin);
    case 'checkpoint': return readCheckpoint(data, origin);
    case 'restore-checkpoint': return readRestoreCheckpoint(data, origin);
    case 'logs': return readLogs(data, origin);
  }
  return { events: [], problems: [{ origin, message: 'not a Gemini CLI history file (chats/*.json[l], checkpoint-*.json, checkpoints/*.json, logs.json)', perFile: true }] };
}

interface ChatContext {
  session: string;
  shortId: string;
  base: Json;
}

function chatContext(origin: RecordOrigin): ChatContext {
  const shortId = geminiShortSessionId(origin.path);
  const parts = origin.path.split(/[\\/]/);
  const parent = parts[parts.length - 2] !== 'chats' ? parts[parts.length - 2] : undefined;
  return {
    shortId, session: `${SOURCE}:${shortId}`,
    base: cleanMeta({ source: SOURCE, projectHash: geminiProjectOfPath(origin.path), parentSession: parent }),
  };
}

function readChatLine(data: unknown, origin: RecordOrigin): ReaderOutput {
  const ctx = chatContext(origin);
  const problems: CaptureProblem[] = [];
  if (!isObject(data)) {
    problems.push({ origin, message: 'line is not a JSON object: kept as a note' });
    return { events: [rawNote(SOURCE, ctx.session, UNKNOWN_TS, `${ctx.shortId}#line.${origin.line ?? 0}.${contentHash(data)}`, 'gemini.record', data, ctx.base)], problems };
  }
  if (typeof data.$rewindTo === 'string') {
    return {
      events: [{
        kind: 'note', role: 'system', name: 'gemini.rewind', content: data.$rewindTo, session: ctx.session, ts: UNKNOWN_TS,
        recordId: `${ctx.shortId}#rewind.${data.$rewindTo}.${origin.line ?? 0}`,
        meta: { ...ctx.base, rewindTo: data.$rewindTo, note: 'messages from this id on were rewound (removed from the conversation); they stay in the log' },
      }],
      problems,
    };
  }
  if (isObject(data.$set)) {
    const events: CapturedEvent[] = [];
    const set = data.$set;
    if (Array.isArray(set.messages)) for (const m of set.messages) events.push(...mapMessage(m, ctx, problems, origin));
    // `lastUpdated` alone is the file's clock tick, not a record of anything said or done.
    const rest = omit(set, ['messages', 'lastUpdated']);
    if (rest) {
      events.push({
        kind: 'note', role: 'system', name: 'gemini.metadata', content: JSON.stringify(rest), session: ctx.session,
        ts: toIso(set.lastUpdated) ?? UNKNOWN_TS, recordId: `${ctx.shortId}#set.${contentHash(rest)}`,
        meta: cleanMeta({ ...ctx.base, summary: str(rest.summary), sessionId: str(rest.sessionId) }),
      });
    }
    return { events, problems };
  }
  if (typeof data.id === 'string') return { events: mapMessage(data, ctx, problems, origin), problems };
  if (typeof data.sessionId === 'string') return { events: [sessionNote(data, ctx)], problems };
  problems.push({ origin, message: 'unknown chat record (no id, sessionId, $set or $rewindTo): kept as a note' });
  return { events: [rawNote(SOURCE, ctx.session, UNKNOWN_TS, `${ctx.shortId}#line.${origin.line ?? 0}.${contentHash(data)}`, 'gemini.record', data, ctx.base)], problems };
}

function sessionNote(meta: Json, ctx: ChatContext): CapturedEvent {
  const header = omit(meta, ['messages']) ?? {};
  return {
    kind: 'note', role: 'system', name: 'gemini.session', content: JSON.stringify(header), session: ctx.session,
    ts: toIso(meta.startTime) ?? UNKNOWN_TS, recordId: `${ctx.shortId}#session.${contentHash(header)}`,
    meta: cleanMeta({ ...ctx.base, sessionId: str(meta.sessionId), kind: str(meta.kind), directories: meta.directories }),
  };
}

function readChatDocument(data: unknown, origin: RecordOrigin): ReaderOutput {
  const ctx = chatContext(origin);
  const problems: CaptureProblem[] = [];
  if (!isObject(data) || !Array.isArray(data.messages)) {
    return { events: [], problems: [{ origin, message: 'not a Gemini CLI conversation record (no "messages" array)', perFile: true }] };
  }
  const events = [sessionNote(data, ctx)];
  for (const m of data.messages) events.push(...mapMessage(m, ctx, problems, origin));
  return { events, problems };
}

/** A `PartListUnion` (string, Part, or array of either) as a list of Part objects. */
function partsOf(v: unknown): unknown[] {
  if (v === undefined || v === null) return [];
  const list = Array.isArray(v) ? v : [v];
  return list.map((p) => (typeof p === 'string' ? { text: p } : p));
}

const TOOL_DONE = new Set(['success', 'error', 'cancelled']);
/** A recorded tool call's fields its events hold; any other (a newer version's) goes to the call's `meta.callExtra`. */
const TOOL_CALL_MAPPED = ['id', 'name', 'args', 'result', 'status', 'timestamp', 'displayName', 'description', 'agentId', 'resultDisplay', 'renderOutputAsMarkdown'];

function mapMessage(m: unknown, ctx: ChatContext, problems: CaptureProblem[], origin: RecordOrigin): CapturedEvent[] {
  if (!isObject(m) || typeof m.id !== 'string') {
    problems.push({ origin, message: 'message without an id: kept as a note' });
    return [rawNote(SOURCE, ctx.session, UNKNOWN_TS, `${ctx.shortId}#message.${contentHash(m)}`, 'gemini.message', m, ctx.base)];
  }
  const id = m.id;
  const type = str(m.type) ?? 'unknown';
  const ts = toIso(m.timestamp) ?? UNKNOWN_TS;
  const meta: Json = cleanMeta({ ...ctx.base, messageId: id, messageType: type, model: str(m.model) });
  const events: CapturedEvent[] = [];
  const known = new Set(['id', 'timestamp', 'type', 'content', 'displayContent', 'toolCalls', 'thoughts', 'tokens', 'model']);
  const extra = omit(m, [...known]);

  (Array.isArray(m.thoughts) ? m.thoughts : []).forEach((t, k) => {
    if (!isObject(t)) return;
    const subject = str(t.subject);
    const description = str(t.description) ?? '';
    events.push(thinkingEvent(SOURCE, ctx.session, toIso(t.timestamp) ?? ts, `${id}#thought.${k}`, subject ? `${subject}\n${description}` : description, { ...meta, subject }));
  });

  const textKind = type === 'user' ? 'user_message' : type === 'gemini' ? 'model_turn' : 'note';
  const role = type === 'user' ? 'user' : type === 'gemini' ? 'assistant' : 'system';
  partsOf(m.content).forEach((p, k) => {
    const rid = `${id}#part.${k}`;
    const partMeta = cleanMeta({ ...meta, displayContent: k === 0 ? m.displayContent : undefined, messageExtra: k === 0 ? extra : undefined });
    events.push(...mapPart(p, rid, ctx.session, ts, partMeta, textKind, role, type));
  });
  if (!partsOf(m.content).length && (m.displayContent !== undefined || extra)) {
    events.push(rawNote(SOURCE, ctx.session, ts, `${id}#extra`, 'gemini.message', omit(m, ['toolCalls', 'thoughts', 'tokens']), meta));
  }

  for (const tc of Array.isArray(m.toolCalls) ? m.toolCalls : []) {
    if (!isObject(tc) || typeof tc.id !== 'string') {
      events.push(rawNote(SOURCE, ctx.session, ts, `${id}#tool.${contentHash(tc)}`, 'gemini.toolCall', tc, meta));
      continue;
    }
    const name = str(tc.name) ?? 'unknown-tool';
    const callTs = toIso(tc.timestamp) ?? ts;
    const status = str(tc.status);
    const hasResult = tc.result !== undefined && tc.result !== null;
    events.push({
      kind: 'tool_call', role: 'assistant', name, toolCallId: tc.id, content: JSON.stringify(tc.args ?? {}), session: ctx.session,
      ts: callTs, recordId: `${id}#tool.${tc.id}`,
      meta: cleanMeta({ ...meta, displayName: tc.displayName, description: tc.description, agentId: tc.agentId, callExtra: omit(tc, TOOL_CALL_MAPPED) }),
    });
    if (hasResult && (!status || TOOL_DONE.has(status))) {
      const out = toolOutput(tc.result);
      events.push({
        kind: 'tool_result', role: 'tool', name, toolCallId: tc.id, content: out.text, session: ctx.session, ts: callTs,
        recordId: `${id}#tool.${tc.id}.result`,
        meta: cleanMeta({
          ...meta, status, isError: status === 'error' || out.error, resultDisplay: tc.resultDisplay,
          renderOutputAsMarkdown: tc.renderOutputAsMarkdown, resultParts: out.parts, images: out.binaries.length || undefined,
        }),
      });
      events.push(...imageNotes({ session: ctx.session, ts: callTs, role: 'tool', toolCallId: tc.id, name }, `${id}#tool.${tc.id}.result`, out.binaries, meta));
    }
  }

  if (isObject(m.tokens)) {
    events.push({
      kind: 'note', role: 'system', name: 'gemini.tokens', content: JSON.stringify(m.tokens), session: ctx.session, ts,
      recordId: `${id}#tokens`, meta: { ...meta, tokens: m.tokens },
    });
  }
  return events;
}

function mapPart(p: unknown, recordId: string, session: string, ts: string, meta: Json, textKind: string, role: string, type: string): CapturedEvent[] {
  if (!isObject(p)) return [rawNote(SOURCE, session, ts, recordId, 'gemini.part', p, meta)];
  if (typeof p.text === 'string') {
    if (p.text === '' && Object.keys(p).length === 1) return []; // a tool-call-only message's empty content
    if (p.thought === true) return [thinkingEvent(SOURCE, session, ts, recordId, p.text, { ...meta, thoughtSignature: p.thoughtSignature })];
    return [{
      kind: textKind, role, name: textKind === 'note' ? `gemini.${type}` : undefined, content: p.text, session, ts, recordId,
      meta: cleanMeta({ ...meta, partExtra: omit(p, ['text']) }),
    }];
  }
  // A part's fields beside its data (the thought signature Gemini 2.5 and later put beside a
  // function call) go to `partExtra`, as a text part's do.
  if (isObject(p.inlineData) && typeof p.inlineData.data === 'string') {
    const mediaType = str(p.inlineData.mimeType) ?? 'application/octet-stream';
    return [{
      kind: 'note', role, name: 'image', content: '', session, ts, recordId,
      meta: cleanMeta({ ...meta, binaries: 1, displayName: p.inlineData.displayName, partExtra: omit(p, ['inlineData']) }),
      binaries: [{ mediaType, data: decodeBase64(p.inlineData.data) }],
    }];
  }
  if (isObject(p.functionCall)) {
    const fc = p.functionCall;
    return [{
      kind: 'tool_call', role: 'assistant', name: str(fc.name) ?? 'unknown-tool', toolCallId: str(fc.id) ?? null,
      content: JSON.stringify(fc.args ?? {}), session, ts, recordId,
      meta: cleanMeta({ ...meta, partExtra: omit(p, ['functionCall']), callExtra: omit(fc, ['id', 'name', 'args']) }),
    }];
  }
  if (isObject(p.functionResponse)) {
    const fr = p.functionResponse;
    const out = toolOutput([p]);
    return [{
      kind: 'tool_result', role: 'tool', name: str(fr.name) ?? null, toolCallId: str(fr.id) ?? null, content: out.text, session, ts, recordId,
      meta: cleanMeta({ ...meta, isError: out.error, partExtra: omit(p, ['functionResponse']), responseExtra: omit(fr, ['id', 'name', 'response']) }),
    }];
  }
  return [rawNote(SOURCE, session, ts, recordId, 'gemini.part', p, meta)];
}

/**
 * A tool's result parts as text: a `functionResponse` whose response is `{output: "…"}` gives the
 * output itself, `{error: "…"}` the error (isError); any other response its JSON; text parts their text;
 * images binaries.
 */
function toolOutput(result: unknown): { text: string; error: boolean; binaries: CapturedBinary[]; parts: number } {
  const texts: string[] = [];
  const binaries: CapturedBinary[] = [];
  let error = false;
  const parts = partsOf(result);
  for (const p of parts) {
    if (!isObject(p)) {
      texts.push(JSON.stringify(p));
      continue;
    }
    if (isObject(p.functionResponse)) {
      const r = p.functionResponse.response;
      if (isObject(r) && Object.keys(r).length === 1 && typeof r.output === 'string') texts.push(r.output);
      else if (isObject(r) && Object.keys(r).length === 1 && typeof r.error === 'string') {
        texts.push(r.error);
        error = true;
      } else {
        texts.push(JSON.stringify(r ?? null));
        if (isObject(r) && r.error !== undefined) error = true;
      }
    } else if (typeof p.text === 'string') texts.push(p.text);
    else if (isObject(p.inlineData) && typeof p.inlineData.data === 'string') {
      binaries.push({ mediaType: str(p.inlineData.mimeType) ?? 'application/octet-stream', data: decodeBase64(p.inlineData.data) });
    } else texts.push(JSON.stringify(p));
  }
  return { text: texts.join('\n'), error, binaries, parts: parts.length };
}

/** API history (`Content[]`) of a saved or restorable checkpoint: ids from content hashes, as it has none. */
function mapContents(contents: unknown[], idBase: string, session: string, ts: string, meta: Json, problems: CaptureProblem[], origin: RecordOrigin): CapturedEvent[] {
  const events: CapturedEvent[] = [];
  const seen = new Map<string, number>();
  contents.forEach((c, i) => {
    const h = contentHash(c);
    const n = seen.get(h) ?? 0;
    seen.set(h, n + 1);
    const id = `${idBase}/${h}.${n}`;
    if (!isObject(c) || !Array.isArray(c.parts)) {
      problems.push({ origin, message: `history entry ${i} has no parts: kept as a note` });
      events.push(rawNote(SOURCE, session, ts, `${id}#raw`, 'gemini.content', c, meta));
      return;
    }
    const role = c.role === 'model' ? 'assistant' : 'user';
    c.parts.forEach((p, k) => {
      events.push(...mapPart(p, `${id}#${k}`, session, ts, { ...meta, historyIndex: i, contentRole: c.role }, role === 'user' ? 'user_message' : 'model_turn', role, String(c.role)));
    });
  });
  return events;
}

function readCheckpoint(data: unknown, origin: RecordOrigin): ReaderOutput {
  const tag = stem(origin.path).replace(/^checkpoint-/, '');
  const project = geminiProjectOfPath(origin.path) ?? 'unknown-project';
  const history = Array.isArray(data) ? data : isObject(data) && Array.isArray(data.history) ? data.history : undefined;
  if (!history) return { events: [], problems: [{ origin, message: 'not a Gemini CLI checkpoint (no history array)', perFile: true }] };
  const session = `${SOURCE}:checkpoint-${tag}`;
  const problems: CaptureProblem[] = [];
  const meta = cleanMeta({ source: SOURCE, projectHash: project, checkpointTag: tag, authType: isObject(data) ? data.authType : undefined });
  const events = mapContents(history, `checkpoint:${project}:${tag}`, session, UNKNOWN_TS, meta, problems, origin);
  return { events, problems };
}

function readRestoreCheckpoint(data: unknown, origin: RecordOrigin): ReaderOutput {
  const name = stem(origin.path);
  const project = geminiProjectOfPath(origin.path) ?? 'unknown-project';
  if (!isObject(data)) return { events: [], problems: [{ origin, message: 'not a Gemini CLI restorable checkpoint (not an object)', perFile: true }] };
  const session = `${SOURCE}:restore-${name}`;
  const problems: CaptureProblem[] = [];
  const meta = cleanMeta({ source: SOURCE, projectHash: project, checkpoint: name, commitHash: str(data.commitHash), filePath: str(data.filePath) });
  const events: CapturedEvent[] = [];
  const rest = omit(data, ['clientHistory', 'history']);
  if (rest) {
    events.push({
      kind: 'note', role: 'system', name: 'gemini.checkpoint', content: JSON.stringify(rest), session, ts: UNKNOWN_TS,
      recordId: `restore:${project}:${name}#checkpoint.${contentHash(rest)}`, meta,
    });
  }
  if (Array.isArray(data.clientHistory)) events.push(...mapContents(data.clientHistory, `restore:${project}:${name}`, session, UNKNOWN_TS, meta, problems, origin));
  if (data.history !== undefined) {
    // The UI's history items (what the terminal showed): kept whole, one note.
    events.push({
      kind: 'note', role: 'system', name: 'gemini.uiHistory', content: JSON.stringify(data.history), session, ts: UNKNOWN_TS,
      recordId: `restore:${project}:${name}#ui.${contentHash(data.history)}`, meta,
    });
  }
  return { events, problems };
}

function readLogs(data: unknown, origin: RecordOrigin): ReaderOutput {
  if (!Array.isArray(data)) return { events: [], problems: [{ origin, message: 'logs.json is not a JSON array', perFile: true }] };
  const project = geminiProjectOfPath(origin.path);
  const problems: CaptureProblem[] = [];
  const events: CapturedEvent[] = [];
  data.forEach((e, i) => {
    if (!isObject(e) || typeof e.sessionId !== 'string') {
      problems.push({ origin, message: `log entry ${i} has no sessionId: kept as a note` });
      events.push(rawNote(SOURCE, `${SOURCE}:logs`, UNKNOWN_TS, `log:${project}:${contentHash(e)}`, 'gemini.log', e, { source: SOURCE, projectHash: project }));
      return;
    }
    events.push({
      kind: 'note', role: e.type === 'user' ? 'user' : 'system', name: `gemini.log.${str(e.type) ?? 'entry'}`, content: str(e.message) ?? JSON.stringify(e),
      session: `${SOURCE}:${e.sessionId.slice(0, 8)}`, ts: toIso(e.timestamp) ?? UNKNOWN_TS,
      recordId: `log:${e.sessionId}:${String(e.messageId ?? contentHash(e))}`,
      meta: cleanMeta({ source: SOURCE, projectHash: project, sessionId: e.sessionId, messageId: e.messageId, logExtra: omit(e, ['sessionId', 'messageId', 'timestamp', 'type', 'message']) }),
    });
  });
  return { events, problems };
}
