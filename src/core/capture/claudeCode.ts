/**
 * Claude Code transcripts: the session files under `~/.claude/projects/<encoded cwd>/` (one JSON
 * record per line, sub-agent sidechains in the same folder) and the `stream-json` output of
 * `claude -p --output-format stream-json` (the same message shapes, keyed `session_id`).
 *
 * Mapping (docs/ARCHITECTURE.md, "Capture"): a user text → `user_message`; assistant text →
 * `model_turn`; `thinking` blocks → `thinking`; `tool_use` → `tool_call` (name, id, input as JSON);
 * `tool_result` → `tool_result` (full output, `meta.isError`), the record's `toolUseResult` details
 * in its meta or, when large, a `tool_detail` event beside it; compaction summaries and boundaries →
 * `compaction`; images → binaries. Anything else is kept whole as a `note`.
 */
import { basename, dirname } from 'node:path';
import { KEPT_WHOLE, base64Binary, contentId, isObject, jsonText, keptWhole, str, unmappedFields, type Json } from './readerKit';
import { SESSION_FROM_FILE, type CaptureProblem, type CaptureReader, type CapturedBinary, type CapturedEvent, type ReaderOutput, type RecordOrigin } from './types';

const SOURCE = 'claude-code' as const;
/** `toolUseResult` details up to this many characters of JSON go in the result's meta; larger, an event of their own. */
const DETAIL_IN_META_CHARS = 4096;
/** The newest major version of Claude Code whose record layout this reader was written for. */
const KNOWN_MAJOR = 2;

export const claudeCodeReader: CaptureReader = {
  source: SOURCE,
  format: 'jsonl',
  read: readClaudeCodeRecord,
};

export function readClaudeCodeRecord(record: unknown, origin: RecordOrigin): ReaderOutput {
  const problems: CaptureProblem[] = [];
  if (!isObject(record)) {
    const session = `${SOURCE}:${fileSession(origin)}`;
    return { events: [keptWhole(SOURCE, record, contentId(record), session, '', { sessionFrom: SESSION_FROM_FILE })], problems };
  }
  const ownSession = str(record.sessionId) ?? str(record.session_id);
  const sessionId = ownSession ?? fileSession(origin);
  const session = `${SOURCE}:${sessionId}`;
  const ts = str(record.timestamp) ?? '';
  const recordId = str(record.uuid) ?? contentId(record);
  const cwd = str(record.cwd);
  const version = str(record.version);
  if (version && Number(version.split('.')[0]) > KNOWN_MAJOR) {
    problems.push({ origin, perFile: true, message: `Claude Code version ${version} is newer than this reader knows (${KNOWN_MAJOR}.x): records are imported as far as they are understood, the rest kept whole` });
  }
  const meta: Json = { sessionId, sourceId: str(record.uuid) };
  const copy = (key: string, as = key) => {
    if (record[key] !== undefined && record[key] !== null) meta[as] = record[key];
  };
  copy('parentUuid', 'parentId');
  copy('cwd');
  copy('gitBranch');
  copy('version');
  copy('userType');
  copy('agentId');
  copy('isMeta');
  copy('requestId');
  copy('parent_tool_use_id', 'parentToolUseId');
  if (record.isSidechain === true) meta.sidechain = true;
  const type = record.type;
  // A mapped record's other fields ride on its first event, so none is dropped (keptWhole records
  // hold everything already).
  const out = (events: CapturedEvent[], mapped: readonly string[] = []): ReaderOutput => {
    // `session_id` names the session only when `sessionId` is absent; a different one is kept.
    const sessionKeys = record.session_id === undefined || record.session_id === ownSession ? RECORD_MAPPED : RECORD_MAPPED.filter((k) => k !== 'session_id');
    const rest = events.length && events[0].meta?.kept !== KEPT_WHOLE ? unmappedFields(record, [...sessionKeys, ...mapped]) : undefined;
    if (rest) events[0].meta = { ...events[0].meta, unmapped: { ...(events[0].meta?.unmapped as Json | undefined), record: rest } };
    // Summaries and file snapshots name no session: the file's name stands in, and the importer
    // puts them in the session the file's other records name (importer.ts placeInSession).
    if (ownSession === undefined) for (const e of events) e.meta = { ...e.meta, sessionFrom: SESSION_FROM_FILE };
    return { events, problems, ...(cwd ? { cwd } : {}) };
  };
  const message = isObject(record.message) ? record.message : undefined;

  if ((type === 'user' || type === 'assistant') && message) {
    const events = messageEvents(record, message, { session, ts, recordId, meta, assistant: type === 'assistant' });
    if (events) return out(events, ['message', 'toolUseResult', 'isCompactSummary']);
  }
  if (type === 'summary' && typeof record.summary === 'string') {
    return out([{ kind: 'note', role: 'system', content: record.summary, session, ts, recordId, meta: { ...meta, type: 'summary', leafId: record.leafUuid } }], ['summary', 'leafUuid']);
  }
  if (type === 'system' && record.subtype === 'compact_boundary') {
    return out([{ kind: 'compaction', role: 'system', content: str(record.content) ?? 'Conversation compacted', session, ts, recordId, meta: { ...meta, subtype: record.subtype, compactMetadata: record.compactMetadata } }], ['subtype', 'content', 'compactMetadata']);
  }
  if (type === 'system' && record.subtype === 'init') {
    // stream-json: the run's working directory, model and tools. Kept whole, with the model in meta.
    return out([keptWhole(SOURCE, record, recordId, session, ts, { ...meta, model: record.model, type: 'init' })]);
  }
  if (type === 'system' && typeof record.content === 'string') {
    return out([{ kind: 'note', role: 'system', content: record.content, session, ts, recordId, meta: { ...meta, type: 'system', subtype: record.subtype, level: record.level } }], ['subtype', 'content', 'level']);
  }
  return out([keptWhole(SOURCE, record, recordId, session, ts, { ...meta, type: str(type) })]);
}

/** Record fields every mapped record's meta holds (copied above) or its event's shape says. */
const RECORD_MAPPED = ['type', 'sessionId', 'session_id', 'uuid', 'timestamp', 'cwd', 'version', 'parentUuid', 'gitBranch', 'userType', 'agentId', 'isMeta', 'requestId', 'parent_tool_use_id', 'isSidechain'];
/** Message fields the events hold; the others go to the first event's `meta.unmapped.message`. */
const MESSAGE_MAPPED = ['type', 'role', 'content', 'model', 'id', 'stop_reason', 'usage'];
/** Per content block type, the fields its event holds; the others go to `meta.unmapped.blocks`. */
const BLOCK_MAPPED: Record<string, readonly string[]> = {
  text: ['type', 'text'],
  image: ['type', 'source'],
  thinking: ['type', 'thinking', 'signature'],
  redacted_thinking: ['type', 'data'],
  tool_use: ['type', 'id', 'name', 'input'],
  server_tool_use: ['type', 'id', 'name', 'input'],
  tool_result: ['type', 'tool_use_id', 'content', 'is_error'],
};

/** A session file's name is its session id; stdin has none (`stream-json` lines name theirs). */
function fileSession(origin: RecordOrigin): string {
  const name = basename(origin.path).replace(/\.jsonl$/, '');
  // A sub-agent's file (`<session>/subagents/agent-<id>.jsonl`) belongs to its parent session.
  const parent = basename(dirname(dirname(origin.path)));
  if (basename(dirname(origin.path)) === 'subagents' && parent) return parent;
  return name || 'stdin';
}

interface MessageContext {
  session: string;
  ts: string;
  recordId: string;
  meta: Json;
  assistant: boolean;
}

/** The events of one user or assistant message; undefined when its content has no known shape. */
function messageEvents(record: Json, message: Json, c: MessageContext): CapturedEvent[] | undefined {
  const meta: Json = { ...c.meta };
  if (c.assistant) {
    if (message.model !== undefined) meta.model = message.model;
    if (message.id !== undefined) meta.messageId = message.id;
    if (message.stop_reason !== undefined && message.stop_reason !== null) meta.stopReason = message.stop_reason;
  }
  const events: CapturedEvent[] = [];
  const push = (e: Omit<CapturedEvent, 'session' | 'ts' | 'recordId'>) => {
    events.push({ ...e, session: c.session, ts: c.ts, recordId: `${c.recordId}#${events.length}` });
  };
  const textKind = c.assistant ? 'model_turn' : record.isCompactSummary === true ? 'compaction' : 'user_message';
  const role = c.assistant ? 'assistant' : 'user';
  if (record.isCompactSummary === true) meta.compactSummary = true;
  const content = message.content;
  if (typeof content === 'string') {
    push({ kind: textKind, role, content, meta });
  } else if (Array.isArray(content)) {
    // Text and images that follow each other are one message; tool calls and results their own events.
    let texts: string[] = [];
    let binaries: CapturedBinary[] = [];
    let textExtras: Json[] = [];
    const withExtras = (m: Json, extras: Json[]): Json => (extras.length ? { ...m, unmapped: { blocks: extras } } : m);
    const flushText = () => {
      if (texts.length === 0 && binaries.length === 0) return;
      push({ kind: textKind, role, content: texts.join('\n\n'), meta: withExtras(meta, textExtras), ...(binaries.length ? { binaries } : {}) });
      texts = [];
      binaries = [];
      textExtras = [];
    };
    // A block's fields beyond those its event holds (citations, cache_control, caller, …).
    const extrasOf = (block: Json, index: number): Json[] => {
      const mapped = BLOCK_MAPPED[str(block.type) ?? ''] ?? (str(block.type)?.endsWith('_tool_result') ? BLOCK_MAPPED.tool_result : undefined);
      if (!mapped) return [];
      const rest = unmappedFields(block, mapped);
      const sourceRest = block.type === 'image' && isObject(block.source) ? unmappedFields(block.source, ['type', 'data', 'media_type']) : undefined;
      return rest || sourceRest ? [{ block: index, ...rest, ...(sourceRest ? { source: sourceRest } : {}) }] : [];
    };
    let detailDone = false;
    for (const [index, block] of content.entries()) {
      if (!isObject(block)) {
        flushText();
        push({ kind: 'note', role: 'system', content: jsonText(block), meta: { ...meta, kept: 'content block (not mapped)' } });
        continue;
      }
      const type = block.type;
      const extras = extrasOf(block, index);
      if (type === 'text' && typeof block.text === 'string') {
        texts.push(block.text);
        textExtras.push(...extras);
      } else if (type === 'image' && isObject(block.source) && base64Binary(block.source.data, block.source.media_type)) {
        binaries.push(base64Binary(block.source.data, block.source.media_type)!);
        textExtras.push(...extras);
      } else if (type === 'thinking' || type === 'redacted_thinking') {
        flushText();
        const text = type === 'thinking' ? str(block.thinking) ?? '' : str(block.data) ?? '';
        push({ kind: 'thinking', role: 'assistant', content: text, meta: withExtras({ ...meta, ...(block.signature ? { signature: block.signature } : {}), ...(type === 'redacted_thinking' ? { redacted: true } : {}) }, extras) });
      } else if ((type === 'tool_use' || type === 'server_tool_use') && typeof block.name === 'string') {
        flushText();
        push({ kind: 'tool_call', role: 'assistant', name: block.name, toolCallId: str(block.id) ?? null, content: jsonText(block.input ?? {}), meta: withExtras(type === 'server_tool_use' ? { ...meta, server: true } : meta, extras) });
      } else if (type === 'tool_result' || (typeof type === 'string' && type.endsWith('_tool_result'))) {
        flushText();
        const { text, binaries: images } = resultContent(block.content);
        const resultMeta: Json = { ...meta, isError: block.is_error === true };
        if (type !== 'tool_result') resultMeta.resultType = type;
        let detail: string | undefined;
        if (!detailDone && record.toolUseResult !== undefined) {
          detailDone = true;
          const json = JSON.stringify(record.toolUseResult) ?? '';
          if (json.length <= DETAIL_IN_META_CHARS) resultMeta.toolUseResult = record.toolUseResult;
          else detail = json;
        }
        const toolCallId = str(block.tool_use_id) ?? null;
        push({ kind: 'tool_result', role: 'tool', toolCallId, content: text, meta: withExtras(resultMeta, extras), ...(images.length ? { binaries: images } : {}) });
        if (detail !== undefined) push({ kind: 'tool_detail', role: 'tool', toolCallId, content: detail, meta: { ...meta, detailOf: 'toolUseResult' } });
      } else {
        flushText();
        push({ kind: 'note', role: 'system', content: jsonText(block), meta: { ...meta, kept: 'content block (not mapped)' } });
      }
    }
    flushText();
  } else return undefined;
  // Usage and the like once per message, on its first event.
  if (c.assistant && events.length && message.usage !== undefined) events[0].meta = { ...events[0].meta, usage: message.usage };
  if (events.length === 0) push({ kind: textKind, role, content: '', meta });
  const messageRest = unmappedFields(message, MESSAGE_MAPPED);
  if (messageRest) events[0].meta = { ...events[0].meta, unmapped: { ...(events[0].meta?.unmapped as Json | undefined), message: messageRest } };
  return events;
}

/** A tool result's content: text as given, or the texts of its blocks (images as binaries). */
function resultContent(content: unknown): { text: string; binaries: CapturedBinary[] } {
  if (typeof content === 'string') return { text: content, binaries: [] };
  if (content === undefined || content === null) return { text: '', binaries: [] };
  if (!Array.isArray(content)) return { text: jsonText(content), binaries: [] };
  const texts: string[] = [];
  const binaries: CapturedBinary[] = [];
  for (const b of content) {
    if (isObject(b) && b.type === 'text' && typeof b.text === 'string') texts.push(b.text);
    else if (isObject(b) && b.type === 'image' && isObject(b.source) && base64Binary(b.source.data, b.source.media_type)) binaries.push(base64Binary(b.source.data, b.source.media_type)!);
    else texts.push(jsonText(b));
  }
  return { text: texts.join('\n'), binaries };
}
