/**
 * Reader for the task folders of Cline (`saoudrizwan.claude-dev`) and its forks Roo Code
 * (`rooveterinaryinc.roo-cline`) and Kilo Code (`kilocode.kilo-code`):
 * `<user-data>/User/globalStorage/<extension id>/tasks/<task id>/` holds
 *  - `api_conversation_history.json`: the model's conversation, Anthropic `MessageParam`s (role and
 *    content: a string or text / image / tool_use / tool_result / thinking blocks). Roo and Kilo add
 *    `ts` (epoch ms) to each message and markers of their context condensing; Cline's have no `ts`.
 *  - `ui_messages.json`: what the panel showed, `ClineMessage`s (`ts`, `type` say|ask, `say`/`ask`,
 *    `text`, `images` as data URLs, `partial` while streaming): command output, checkpoints,
 *    `api_req_started` with tokens and cost as JSON in `text`, completion results, user feedback.
 *  - `task_metadata.json` (Cline): files in context, model usage, environment history.
 * The formats agree across the three; the differences are the ones above, so one reader serves all,
 * told its source by the extension id in the path.
 *
 * Each file is read on its own (session `<source>:<task id>`, the task id the folder's name).
 * API history → user_message / model_turn / tool_call / tool_result / thinking / image notes (the
 * image a binary), Roo's condensing summaries → compaction;
 * ui messages → `note`s named `say.<type>` / `ask.<type>` (they repeat much of the conversation, so
 * they never count as its messages); metadata entries → notes. Pure: no I/O, no clock.
 */
import type { CapturedBinary, CapturedEvent, CaptureProblem, CaptureReader, CaptureSource, ReaderOutput, RecordOrigin } from './types';
import { isObject, str } from './readerKit';
import {
  cleanMeta, contentHash, dataUrlBinary, decodeBase64, imageNotes, type Json, omit, rawNote, thinkingEvent, toIso, UNKNOWN_TS,
} from './readerParts';

export type ClineFamilySource = Extract<CaptureSource, 'cline' | 'roo-code' | 'kilo-code'>;

/** The VS Code extension id of each source (its folder under globalStorage). */
export const CLINE_EXTENSION_IDS: Record<ClineFamilySource, string> = {
  cline: 'saoudrizwan.claude-dev',
  'roo-code': 'rooveterinaryinc.roo-cline',
  'kilo-code': 'kilocode.kilo-code',
};

export const CLINE_TASK_FILES = ['api_conversation_history.json', 'ui_messages.json', 'task_metadata.json'] as const;

/** One reader per extension: each task file is one JSON document. */
export function clineReader(source: ClineFamilySource): CaptureReader {
  return { source, format: 'json', read: (record, origin) => readClineTaskFile(record, origin, source) };
}

/** The source a task file belongs to, from the extension id in its path (case-insensitive). */
export function clineSourceOfPath(p: string): ClineFamilySource | undefined {
  const parts = p.toLowerCase().split(/[\\/]/);
  for (const [source, id] of Object.entries(CLINE_EXTENSION_IDS) as [ClineFamilySource, string][]) {
    if (parts.includes(id)) return source;
  }
  return undefined;
}

/** Task id (the task folder's name) and file name of a task file path. */
function taskOf(p: string): { taskId: string; file: string } {
  const parts = p.split(/[\\/]/).filter(Boolean);
  return { file: parts[parts.length - 1] ?? p, taskId: parts[parts.length - 2] ?? 'unknown-task' };
}

/** Cline's task ids are the creation time in epoch ms; Roo's and Kilo's are UUIDs. */
function taskIdTs(taskId: string): string | undefined {
  return /^\d{12,14}$/.test(taskId) ? toIso(Number(taskId)) : undefined;
}

/** The working directory Cline/Roo write into each request's environment details. */
export const CLINE_CWD_PATTERN = /# Current (?:Working|Workspace) Directory \(([^)\r\n]+)\)/;

/**
 * Reads one task file (`record` the parsed JSON, or its text). `source` defaults to the one named
 * by the extension id in the path.
 */
export function readClineTaskFile(record: unknown, origin: RecordOrigin, source?: ClineFamilySource): ReaderOutput {
  const src = source ?? clineSourceOfPath(origin.path) ?? 'cline';
  const { taskId, file } = taskOf(origin.path);
  let data = record;
  if (typeof record === 'string') {
    try {
      data = JSON.parse(record);
    } catch (e) {
      return { events: [], problems: [{ origin: { path: origin.path }, message: `not JSON: ${(e as Error).message}`, perFile: true }] };
    }
  }
  const ctx: TaskContext = { source: src, taskId, session: `${src}:${taskId}`, path: origin.path, fallbackTs: taskIdTs(taskId), settled: origin.settled === true };
  if (file === 'api_conversation_history.json') return readApiHistory(data, ctx);
  if (file === 'ui_messages.json') return readUiMessages(data, ctx);
  return readTaskMetadata(data, ctx, file);
}

interface TaskContext {
  source: ClineFamilySource;
  taskId: string;
  session: string;
  path: string;
  fallbackTs?: string;
  /** The file has stopped changing (RecordOrigin.settled): a message still marked partial will not go on. */
  settled: boolean;
}

function notArray(ctx: TaskContext, what: string): ReaderOutput {
  return { events: [], problems: [{ origin: { path: ctx.path }, message: `${what} is not a JSON array`, perFile: true }] };
}

function readApiHistory(data: unknown, ctx: TaskContext): ReaderOutput {
  if (!Array.isArray(data)) return notArray(ctx, 'api_conversation_history.json');
  const events: CapturedEvent[] = [];
  const problems: CaptureProblem[] = [];
  const toolNames = new Map<string, string>();
  for (const m of data) {
    if (isObject(m) && Array.isArray(m.content)) {
      for (const b of m.content) if (isObject(b) && b.type === 'tool_use' && typeof b.id === 'string' && typeof b.name === 'string') toolNames.set(b.id, b.name);
    }
  }
  // Record ids hash each message's role and content plus its occurrence, not its index: condensing and
  // checkpoint restores rewrite the array, and an unchanged message must keep its id.
  const seen = new Map<string, number>();
  let cwd: string | undefined;
  let lastTs = ctx.fallbackTs;
  data.forEach((m, i) => {
    if (!isObject(m) || (m.role !== 'user' && m.role !== 'assistant') || (typeof m.content !== 'string' && !Array.isArray(m.content))) {
      problems.push({ origin: { path: ctx.path }, message: `message ${i} is not a user or assistant message: kept as a note` });
      events.push(rawNote(ctx.source, ctx.session, lastTs ?? UNKNOWN_TS, `${ctx.taskId}/api/${contentHash(m)}.${occurrence(seen, contentHash(m))}#raw`, 'api.message', m, { taskId: ctx.taskId }));
      return;
    }
    const h = contentHash([m.role, m.content]);
    const id = `${ctx.taskId}/api/${h}.${occurrence(seen, h)}`;
    const ts = toIso(m.ts) ?? lastTs ?? UNKNOWN_TS;
    if (toIso(m.ts)) lastTs = ts;
    const meta: Json = cleanMeta({
      source: ctx.source, taskId: ctx.taskId, messageIndex: i,
      tsSource: toIso(m.ts) ? 'message' : ctx.fallbackTs ? 'task id' : 'none',
      message: omit(m, ['role', 'content', 'ts']),
      summary: m.isSummary === true ? true : undefined,
      model: isObject(m.modelInfo) ? str(m.modelInfo.modelId) : undefined,
    });
    const blocks: unknown[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    blocks.forEach((b, k) => {
      const rid = `${id}#${k}`;
      const ev = mapBlock(b, m.role as string, rid, ts, meta, ctx, toolNames);
      if (!cwd && m.role === 'user' && isObject(b) && typeof b.text === 'string') cwd = CLINE_CWD_PATTERN.exec(b.text)?.[1];
      events.push(...ev);
    });
  });
  return { events, problems, cwd };
}

function occurrence(seen: Map<string, number>, h: string): number {
  const n = seen.get(h) ?? 0;
  seen.set(h, n + 1);
  return n;
}

function imageBinary(b: Json): CapturedBinary | undefined {
  const src = isObject(b.source) ? b.source : undefined;
  if (src?.type === 'base64' && typeof src.data === 'string') return { mediaType: str(src.media_type) ?? 'application/octet-stream', data: decodeBase64(src.data) };
  return undefined;
}

function mapBlock(b: unknown, role: string, recordId: string, ts: string, meta: Json, ctx: TaskContext, toolNames: Map<string, string>): CapturedEvent[] {
  const { session } = ctx;
  if (!isObject(b)) return [rawNote(ctx.source, session, ts, recordId, 'api.block', b, meta)];
  const blockMeta = (extra: Json = {}) => cleanMeta({ ...meta, block: b.type, ...extra });
  switch (b.type) {
    case 'text':
      if (typeof b.text !== 'string') break;
      return [{
        kind: meta.summary === true ? 'compaction' : role === 'user' ? 'user_message' : 'model_turn', role, content: b.text, session, ts, recordId,
        meta: blockMeta({ blockExtra: omit(b, ['type', 'text']) }),
      }];
    case 'image': {
      const bin = imageBinary(b);
      if (!bin) break;
      return [{
        kind: 'note', role, name: 'image', content: '', session, ts, recordId,
        meta: blockMeta({ binaries: 1, blockExtra: omit(b, ['type', 'source']) }), binaries: [bin],
      }];
    }
    case 'tool_use':
      if (typeof b.name !== 'string') break;
      return [{
        kind: 'tool_call', role: 'assistant', name: b.name, toolCallId: str(b.id) ?? null,
        content: JSON.stringify(b.input ?? {}), session, ts, recordId, meta: blockMeta({ blockExtra: omit(b, ['type', 'name', 'id', 'input']) }),
      }];
    case 'tool_result': {
      const id = str(b.tool_use_id);
      const binaries: CapturedBinary[] = [];
      let content: string;
      const extra: Json[] = [];
      if (typeof b.content === 'string') content = b.content;
      else if (Array.isArray(b.content)) {
        const texts: string[] = [];
        for (const c of b.content) {
          if (isObject(c) && c.type === 'text' && typeof c.text === 'string') texts.push(c.text);
          else if (isObject(c) && c.type === 'image' && imageBinary(c)) binaries.push(imageBinary(c)!);
          else extra.push(c as Json);
        }
        content = texts.join('\n');
      } else content = b.content === undefined ? '' : JSON.stringify(b.content);
      const name = (id && toolNames.get(id)) ?? null;
      return [{
        kind: 'tool_result', role: 'tool', name, toolCallId: id ?? null, content, session, ts, recordId,
        meta: blockMeta({
          isError: b.is_error === true, images: binaries.length || undefined, otherContent: extra.length ? extra : undefined,
          parts: Array.isArray(b.content) ? b.content.length : undefined, blockExtra: omit(b, ['type', 'tool_use_id', 'content', 'is_error']),
        }),
      }, ...imageNotes({ session, ts, role: 'tool', toolCallId: id ?? null, name }, recordId, binaries, meta)];
    }
    case 'thinking':
      if (typeof b.thinking !== 'string') break;
      return [thinkingEvent(ctx.source, session, ts, recordId, b.thinking, blockMeta({ signature: b.signature, blockExtra: omit(b, ['type', 'thinking', 'signature']) }))];
    case 'reasoning': {
      // Roo/Kilo keep some providers' reasoning as its own block (text, or a summary list).
      const text = str(b.text) ?? (Array.isArray(b.summary) ? b.summary.map((x) => (isObject(x) ? str(x.text) ?? '' : String(x))).join('\n') : undefined);
      if (text === undefined) break;
      return [thinkingEvent(ctx.source, session, ts, recordId, text, blockMeta({ blockExtra: omit(b, ['type', 'text', 'summary']) }))];
    }
    case 'redacted_thinking':
      return [thinkingEvent(ctx.source, session, ts, recordId, '', blockMeta({ redacted: true, data: b.data, blockExtra: omit(b, ['type', 'data']) }))];
  }
  return [rawNote(ctx.source, session, ts, recordId, `api.${str(b.type) ?? 'block'}`, b, meta)];
}

const UI_USER_SAYS = new Set(['task', 'user_feedback', 'user_feedback_diff']);
const UI_SYSTEM_SAYS = new Set([
  'api_req_started', 'api_req_finished', 'api_req_retried', 'api_req_retry_delayed', 'api_req_deleted', 'deleted_api_reqs',
  'checkpoint_created', 'checkpoint_saved', 'error', 'error_retry', 'info', 'shell_integration_warning', 'diff_error',
  'clineignore_error', 'rooignore_error', 'condense_context', 'condense_context_error', 'sliding_window_truncation',
]);

function readUiMessages(data: unknown, ctx: TaskContext): ReaderOutput {
  if (!Array.isArray(data)) return notArray(ctx, 'ui_messages.json');
  const events: CapturedEvent[] = [];
  const problems: CaptureProblem[] = [];
  let cwd: string | undefined;
  let inProgress: string | undefined;
  data.forEach((m, i) => {
    if (!isObject(m) || (m.type !== 'say' && m.type !== 'ask')) {
      problems.push({ origin: { path: ctx.path }, message: `ui message ${i} has no type say/ask: kept as a note` });
      events.push(rawNote(ctx.source, ctx.session, ctx.fallbackTs ?? UNKNOWN_TS, `${ctx.taskId}/ui/${i}.${contentHash(m)}#raw`, 'ui.message', m, { taskId: ctx.taskId }));
      return;
    }
    // A message still streaming is read once it is final (or no longer the last one), or once the
    // file has settled: then the task stopped mid-message and it is kept as it stands. Its id is
    // its content's, so a message that does end later with more text is added beside it.
    const unfinished = m.partial === true && i === data.length - 1;
    if (unfinished && !ctx.settled) {
      inProgress = `ui message ${i + 1} is still being written`;
      return;
    }
    const what = str(m.type === 'say' ? m.say : m.ask) ?? 'unknown';
    const ts = toIso(m.ts) ?? ctx.fallbackTs ?? UNKNOWN_TS;
    const text = str(m.text) ?? '';
    const binaries: CapturedBinary[] = [];
    const otherImages: unknown[] = []; // an image given as a path or a URL has no bytes here: kept as written
    for (const u of Array.isArray(m.images) ? m.images : []) {
      const bin = typeof u === 'string' ? dataUrlBinary(u) : undefined;
      if (bin) binaries.push(bin);
      else otherImages.push(u);
    }
    let apiRequest: Json | undefined;
    if (what === 'api_req_started' || what === 'api_req_finished') {
      try {
        const parsed = JSON.parse(text);
        if (isObject(parsed)) {
          apiRequest = omit(parsed, ['request']);
          if (!cwd && typeof parsed.request === 'string') cwd = CLINE_CWD_PATTERN.exec(parsed.request)?.[1];
        }
      } catch { /* the text is kept as content whatever it is */ }
    }
    const recordId = `${ctx.taskId}/ui/${String(m.ts ?? i)}.${contentHash(omit(m, ['partial']) ?? {})}`;
    const rest = omit(m, ['ts', 'type', 'say', 'ask', 'text', 'images', 'partial']);
    const meta = cleanMeta({
      source: ctx.source, taskId: ctx.taskId, ui: true, type: m.type, [m.type as string]: what,
      apiRequest, binaries: binaries.length || undefined, images: otherImages.length ? otherImages : undefined, message: rest,
      partial: m.partial, unfinished: unfinished ? UNFINISHED_MESSAGE : undefined,
    });
    if (what === 'reasoning') {
      events.push({ ...thinkingEvent(ctx.source, ctx.session, ts, recordId, text, meta), binaries: binaries.length ? binaries : undefined });
      return;
    }
    events.push({
      // Cline and Roo Code open a task with say("text", <the user's task>); older versions said "task".
      kind: 'note', role: m.type === 'say' && (UI_USER_SAYS.has(what) || (i === 0 && what === 'text')) ? 'user' : UI_SYSTEM_SAYS.has(what) ? 'system' : 'assistant',
      // A message whose data is not in `text` (a condensing summary, a checkpoint) is searchable by its fields.
      name: `${m.type}.${what}`, content: text || (rest ? JSON.stringify(rest) : ''), session: ctx.session, ts, recordId, meta,
      binaries: binaries.length ? binaries : undefined,
    });
  });
  return { events, problems, cwd, ...(inProgress ? { inProgress } : {}) };
}

/** meta.unfinished of a message kept as it stood when its task's file stopped changing mid-message. */
export const UNFINISHED_MESSAGE = 'the message was still being written when its task file stopped changing: kept as it stood';

function readTaskMetadata(data: unknown, ctx: TaskContext, file: string): ReaderOutput {
  if (!isObject(data)) return { events: [], problems: [{ origin: { path: ctx.path }, message: `${file} is not a JSON object`, perFile: true }] };
  const events: CapturedEvent[] = [];
  const scalars: Json = {};
  // Each entry of a list (files in context, model usage, environment history) is its own note, so a
  // grown file adds only its new entries.
  for (const [key, value] of Object.entries(data)) {
    if (!Array.isArray(value)) {
      scalars[key] = value;
      continue;
    }
    const seen = new Map<string, number>();
    for (const entry of value) {
      const h = contentHash(entry);
      const ts = latestTs(entry) ?? ctx.fallbackTs ?? UNKNOWN_TS;
      events.push({
        kind: 'note', role: 'system', name: `metadata.${key}`, content: JSON.stringify(entry), session: ctx.session, ts,
        recordId: `${ctx.taskId}/metadata/${file}/${key}.${h}.${occurrence(seen, h)}`,
        meta: cleanMeta({
          source: ctx.source, taskId: ctx.taskId, file,
          model: isObject(entry) ? str(entry.model_id) : undefined, provider: isObject(entry) ? str(entry.model_provider_id) : undefined,
        }),
      });
    }
  }
  if (Object.keys(scalars).length) {
    events.push({
      kind: 'note', role: 'system', name: 'metadata', content: JSON.stringify(scalars), session: ctx.session, ts: ctx.fallbackTs ?? UNKNOWN_TS,
      recordId: `${ctx.taskId}/metadata/${file}.${contentHash(scalars)}`, meta: { source: ctx.source, taskId: ctx.taskId, file },
    });
  }
  return { events, problems: [] };
}

/** The latest epoch-ms field (`ts`, `*_date`) of a metadata entry, as ISO. */
function latestTs(entry: unknown): string | undefined {
  if (!isObject(entry)) return undefined;
  let best: number | undefined;
  for (const [k, v] of Object.entries(entry)) {
    if (typeof v === 'number' && (k === 'ts' || k.endsWith('_date')) && (best === undefined || v > best)) best = v;
  }
  return best === undefined ? undefined : toIso(best);
}
