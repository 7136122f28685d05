/**
 * Codex CLI rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<session id>.jsonl`, one
 * `{timestamp, type, payload}` record per line: `session_meta` (id, cwd, version), `turn_context`
 * (model, cwd), `response_item`s (messages, `reasoning`, `function_call` / `function_call_output`,
 * custom and local shell calls), `compacted` summaries and `event_msg`s (what the UI showed; their
 * user and agent messages repeat the response items, so they are kept whole as notes, not mapped a
 * second time). Rollouts from before the `{type, payload}` wrapper (a first line of session fields,
 * then bare response items) are read too.
 *
 * Records carry no id of their own: the record id is the hash of the record (readerKit.contentId),
 * which every line's timestamp makes unique.
 */
import { basename } from 'node:path';
import { base64Binary, contentId, isObject, jsonText, keptWhole, str, unmappedFields, type Json } from './readerKit';
import { SESSION_FROM_FILE, type CaptureProblem, type CaptureReader, type CapturedBinary, type CapturedEvent, type ReaderOutput, type RecordOrigin } from './types';

const SOURCE = 'codex' as const;
const TOP_LEVEL = new Set(['session_meta', 'turn_context', 'response_item', 'event_msg', 'compacted']);
const ITEM_TYPES = new Set(['message', 'reasoning', 'function_call', 'function_call_output', 'custom_tool_call', 'custom_tool_call_output', 'local_shell_call', 'web_search_call', 'compaction']);

export const codexReader: CaptureReader = {
  source: SOURCE,
  format: 'jsonl',
  read: readCodexRecord,
};

/** The session id in a rollout's file name (`rollout-2025-10-29T00-59-38-<uuid>.jsonl`), else the name. */
export function codexSessionOf(path: string): string {
  const name = basename(path).replace(/\.jsonl$/, '');
  const m = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i.exec(name);
  return m ? m[1].toLowerCase() : name || 'stdin';
}

export function readCodexRecord(record: unknown, origin: RecordOrigin): ReaderOutput {
  const out = readRecord(record, origin);
  // A stream (`--path -`) has no name to stand for its session: its session_meta names it, and the
  // importer moves the records after it there (importer.ts placeInSession), so two rollouts piped
  // in one after the other are two sessions.
  if (origin.path === STDIN) {
    for (const e of out.events) if (e.meta?.type !== 'session_meta') e.meta = { ...e.meta, sessionFrom: SESSION_FROM_FILE };
  }
  return out;
}

/** The origin path of a stream (importStream's label in `scroll import … --path -`). */
const STDIN = 'stdin';

function readRecord(record: unknown, origin: RecordOrigin): ReaderOutput {
  const problems: CaptureProblem[] = [];
  const recordId = contentId(record);
  const fileSession = codexSessionOf(origin.path);
  if (!isObject(record)) return { events: [keptWhole(SOURCE, record, recordId, `${SOURCE}:${fileSession}`, '')], problems };
  const ts = str(record.timestamp) ?? '';
  const type = str(record.type);
  const payload = isObject(record.payload) ? record.payload : undefined;
  // Wrapped records ({type, payload}); a legacy file's lines are the payload themselves.
  const wrapped = type !== undefined && TOP_LEVEL.has(type) && payload !== undefined;
  // Every record of a file is in the file's session: the other records carry no id of their own,
  // and a reader sees one record at a time (a cursor may start mid-file). A rollout named as Codex
  // names it has its session_meta's id in its name; a renamed file is one session under its name,
  // each session_meta keeping its own id in meta. A stream is its session_meta's session.
  if (type === 'session_meta' && payload) {
    const id = str(payload.id) ?? fileSession;
    const cwd = str(payload.cwd);
    return {
      events: [keptWhole(SOURCE, record, recordId, `${SOURCE}:${origin.path === STDIN ? id : fileSession}`, ts, { type: 'session_meta', sessionId: id, cwd, version: payload.cli_version, originator: payload.originator })],
      problems,
      ...(cwd ? { cwd } : {}),
    };
  }
  if (!wrapped && type === undefined && typeof record.id === 'string' && typeof record.timestamp === 'string' && !('record_type' in record)) {
    // A legacy rollout's first line: the session's own fields.
    return { events: [keptWhole(SOURCE, record, recordId, `${SOURCE}:${origin.path === STDIN ? record.id : fileSession}`, ts, { type: 'session_meta', sessionId: record.id })], problems };
  }
  const session = `${SOURCE}:${fileSession}`;
  const meta: Json = { sessionId: fileSession };
  if (type === 'turn_context' && payload) {
    const cwd = str(payload.cwd);
    return { events: [keptWhole(SOURCE, record, recordId, session, ts, { ...meta, type: 'turn_context', model: payload.model, cwd })], problems, ...(cwd ? { cwd } : {}) };
  }
  if (type === 'compacted' && payload) {
    const message = str(payload.message);
    // The summary is the content; the rest (the replacement history) is kept in meta.
    const rest = message !== undefined ? unmappedFields(payload, ['message']) : undefined;
    return { events: [{ kind: 'compaction', role: 'system', content: message ?? jsonText(payload), session, ts, recordId: `${recordId}#0`, meta: { ...meta, type: 'compacted', ...(rest ? { unmapped: { payload: rest } } : {}) } }], problems };
  }
  const item = wrapped && type === 'response_item' ? payload : !wrapped && type !== undefined && ITEM_TYPES.has(type) ? record : undefined;
  if (item) {
    const events = itemEvents(item, { session, ts, recordId, meta });
    if (events) {
      // The item's fields its event does not hold (status, and whatever a newer Codex adds).
      const rest = unmappedFields(item, itemMapped(item));
      if (rest) events[0].meta = { ...events[0].meta, unmapped: { ...(events[0].meta?.unmapped as Json | undefined), item: rest } };
      return { events, problems };
    }
  }
  if (type !== undefined && !TOP_LEVEL.has(type) && !ITEM_TYPES.has(type) && !('record_type' in record)) {
    problems.push({ origin, perFile: true, message: `unknown Codex record type "${type.slice(0, 40)}" (a newer rollout format?): such records are kept whole` });
  }
  return { events: [keptWhole(SOURCE, record, recordId, session, ts, { ...meta, type: type ?? str(record.record_type), eventType: payload ? str(payload.type) : undefined })], problems };
}

/** The fields of a response item its event holds (content, name, call id, …). */
function itemMapped(item: Json): readonly string[] {
  switch (item.type) {
    case 'message':
      return ['type', 'role', 'content', 'id'];
    case 'reasoning':
      return ['type', 'summary', 'content', 'encrypted_content', 'id'];
    case 'function_call':
      return ['type', 'name', 'arguments', 'call_id', 'id'];
    case 'custom_tool_call':
      return ['type', 'name', 'input', 'call_id', 'id'];
    case 'local_shell_call':
    case 'web_search_call':
      return ['type', 'call_id', 'action', 'status', 'id'];
    case 'function_call_output':
    case 'custom_tool_call_output':
      return ['type', 'call_id', 'output'];
    case 'compaction':
      return item.summary !== undefined ? ['type', 'summary'] : item.encrypted_content !== undefined ? ['type', 'encrypted_content'] : Object.keys(item);
    default:
      return Object.keys(item);
  }
}

interface ItemContext {
  session: string;
  ts: string;
  recordId: string;
  meta: Json;
}

function itemEvents(item: Json, c: ItemContext): CapturedEvent[] | undefined {
  const one = (e: Omit<CapturedEvent, 'session' | 'ts' | 'recordId'>): CapturedEvent[] => [{ ...e, session: c.session, ts: c.ts, recordId: `${c.recordId}#0` }];
  const meta: Json = { ...c.meta, itemType: item.type };
  if (item.id !== undefined) meta.sourceId = item.id;
  switch (item.type) {
    case 'message': {
      const { text, binaries, extras } = messageText(item.content);
      const role = str(item.role) ?? 'user';
      const kind = role === 'assistant' ? 'model_turn' : role === 'user' ? 'user_message' : 'note';
      return one({ kind, role: kind === 'note' ? 'system' : role, content: text, meta: { ...meta, ...(kind === 'note' ? { messageRole: role } : {}), ...(extras ? { unmapped: { parts: extras } } : {}) }, ...(binaries.length ? { binaries } : {}) });
    }
    case 'reasoning': {
      const parts: string[] = [];
      for (const list of [item.summary, item.content]) {
        if (!Array.isArray(list)) continue;
        for (const p of list) if (isObject(p) && typeof p.text === 'string') parts.push(p.text);
      }
      const m: Json = { ...meta };
      if (item.encrypted_content !== undefined && item.encrypted_content !== null) m.encryptedContent = item.encrypted_content;
      return one({ kind: 'thinking', role: 'assistant', content: parts.join('\n\n'), meta: m });
    }
    case 'function_call':
    case 'custom_tool_call':
      return one({ kind: 'tool_call', role: 'assistant', name: str(item.name) ?? null, toolCallId: str(item.call_id) ?? null, content: jsonText(item.type === 'function_call' ? item.arguments ?? '' : item.input ?? ''), meta });
    case 'local_shell_call':
    case 'web_search_call':
      return one({ kind: 'tool_call', role: 'assistant', name: item.type === 'local_shell_call' ? 'local_shell' : 'web_search', toolCallId: str(item.call_id) ?? null, content: jsonText(item.action ?? {}), meta: { ...meta, status: item.status } });
    case 'function_call_output':
    case 'custom_tool_call_output': {
      const { text, isError, binaries, extras } = outputText(item.output);
      return one({ kind: 'tool_result', role: 'tool', toolCallId: str(item.call_id) ?? null, content: text, meta: { ...meta, isError, ...(extras ? { unmapped: { output: extras } } : {}) }, ...(binaries?.length ? { binaries } : {}) });
    }
    case 'compaction':
      return one({ kind: 'compaction', role: 'system', content: jsonText(item.summary ?? item.encrypted_content ?? item), meta });
    default:
      return undefined;
  }
}

function messageText(content: unknown): { text: string; binaries: CapturedBinary[]; extras?: Json[] } {
  if (typeof content === 'string') return { text: content, binaries: [] };
  if (!Array.isArray(content)) return { text: jsonText(content ?? ''), binaries: [] };
  const { texts, binaries, extras } = contentItems(content); // annotations, … in extras
  return { text: texts.join('\n\n'), binaries, ...(extras.length ? { extras } : {}) };
}

/**
 * A tool's output as Codex recorded it, exactly. Shell calls record a JSON string with the output
 * and an exit code, or (later versions) text whose header says it ("Exit code: 1", unified exec's
 * "Process exited with code 1"): the text stays as given, the exit code decides the error flag. An
 * output of content items (an image a tool viewed, an MCP result) gives their text, images as binaries.
 */
function outputText(output: unknown): { text: string; isError: boolean; binaries?: CapturedBinary[]; extras?: Json[] } {
  if (typeof output === 'string') {
    let isError = false;
    if (output.startsWith('{')) {
      try {
        const parsed = JSON.parse(output) as unknown;
        const code = isObject(parsed) && isObject(parsed.metadata) ? parsed.metadata.exit_code : undefined;
        if (typeof code === 'number') isError = code !== 0;
      } catch {
        // plain text that starts with a brace
      }
    } else {
      const code = headerExitCode(output);
      if (code !== undefined) isError = code !== 0;
    }
    return { text: output, isError };
  }
  if (Array.isArray(output)) {
    // Codex joins the text items with a newline when it reads such an output as text.
    const { texts, binaries, extras } = contentItems(output);
    return { text: texts.join('\n'), isError: false, binaries, ...(extras.length ? { extras } : {}) };
  }
  if (isObject(output)) {
    const text = typeof output.content === 'string' ? output.content : jsonText(output);
    return { text, isError: output.success === false };
  }
  return { text: jsonText(output ?? ''), isError: false };
}

/** The exit code in the header Codex writes above a shell command's output (up to its "Output:" line), if any. */
function headerExitCode(output: string): number | undefined {
  const end = output.indexOf('\nOutput:');
  if (end < 0 || end > 500) return undefined;
  const m = /^(?:Exit code: |Process exited with code )(-?\d+)$/m.exec(output.slice(0, end));
  return m ? Number(m[1]) : undefined;
}

/** Content items' texts (an item without text as its JSON), `data:` images as binaries, other fields as extras. */
function contentItems(items: unknown[]): { texts: string[]; binaries: CapturedBinary[]; extras: Json[] } {
  const texts: string[] = [];
  const binaries: CapturedBinary[] = [];
  const extras: Json[] = [];
  for (const [i, p] of items.entries()) {
    const image = isObject(p) && p.type === 'input_image' ? base64Binary(p.image_url, undefined) : undefined;
    if (isObject(p) && typeof p.text === 'string') {
      texts.push(p.text);
      const rest = unmappedFields(p, ['type', 'text']);
      if (rest) extras.push({ part: i, ...rest });
    } else if (image?.mediaType.includes('/')) {
      binaries.push(image);
      const rest = unmappedFields(p as Json, ['type', 'image_url']);
      if (rest) extras.push({ part: i, ...rest });
    } else texts.push(jsonText(p));
  }
  return { texts, binaries, extras };
}
