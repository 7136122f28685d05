/**
 * Everything an append does to an event before SQL sees it: validation, secret redaction, the
 * payload file for large content, and the text the FTS index holds. Pure of the database, so it
 * runs either in the writer's thread (EventLog.appendMany) or on a worker thread while the writer
 * inserts the previous batch (bulk ingest, see prepareWorker.ts).
 */
import { InvalidInputError, errorMessage } from '../errors';
import { buildIndexDocument, type IndexDocument } from '../search/indexText';
import { estimateTokens, type NewEvent } from '../types';
import type { PayloadStore } from './payloadStore';
import { PRINTS_CREDENTIAL_COMMAND, REDACTION_RULESET_VERSION, type Redactor, type RedactionOptions } from './redaction';

/** Characters of content the event row keeps when the full text lives in the payload store. */
export const PREVIEW_CHARS = 512;

/**
 * One event, ready for the INSERT: every field checked, every string redacted: content, headline
 * and meta values as text (`[REDACTED:<type>]`), session, kind, role, name, tool call id and meta
 * keys as identifiers (`[REDACTED:<type>:<tag>]`, distinct for distinct secrets). With redaction
 * on, `meta.redaction` records the rule set (REDACTION_RULESET_VERSION).
 */
export interface PreparedEvent {
  session: string;
  kind: string;
  role: string;
  name: string | null;
  content: string;       // full, redacted
  stored: string;        // what the row holds: content or its preview
  payload: string | null;
  bytes: number;
  tokens: number;
  ts: string;
  step: number | null;
  toolCallId: string | null;
  parentSeq: number | null;
  headline: string | null;
  meta: Record<string, unknown>;
  metaJson: string;
}

export interface PreparedBatch {
  events: PreparedEvent[];
  docs: IndexDocument[];
}

/** What a preparer needs; plain data, so it can be posted to a worker thread. */
export interface PreparerConfig {
  redaction: RedactionOptions;
  payloadDir: string;
  payloadThreshold: number;
}

const ISO_TS = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

export function cutPreview(text: string): string {
  let end = Math.min(PREVIEW_CHARS, text.length);
  const c = text.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--; // never split a surrogate pair
  return text.slice(0, end);
}

/** How many recent tool calls that print a credential a preparer remembers, for the results that follow them. */
const CREDENTIAL_CALLS_KEPT = 256;
/** How much of a tool call's text is read for a command that prints a credential. */
const COMMAND_CHARS = 4096;

export class EventPreparer {
  /** Tool call ids (as given) of recent calls whose command prints a credential (PRINTS_CREDENTIAL_COMMAND). */
  private readonly credentialCalls = new Set<string>();

  constructor(
    private readonly redactor: Redactor,
    private readonly payloads: PayloadStore,
    private readonly payloadThreshold: number,
  ) {}

  /**
   * Prepares a batch; throws InvalidInputError naming the event ("event N" when there are
   * several). `deferSync`: payload files are written but not fsynced; the caller syncs them
   * (PayloadStore.syncPending) before the events that point at them commit.
   */
  prepare(events: NewEvent[], session: string, deferSync: boolean): PreparedBatch {
    if (!Array.isArray(events)) throw new InvalidInputError('appendMany expects an array of events');
    const prepared = events.map((e, i) => this.prepareEvent(e, events.length > 1 ? i : undefined, session, deferSync));
    return { events: prepared, docs: prepared.map((p) => buildIndexDocument(p.content, p.headline)) };
  }

  private prepareEvent(e: NewEvent, index: number | undefined, defaultSession: string, deferSync: boolean): PreparedEvent {
    const where = index === undefined ? 'event' : `event ${index + 1}`;
    if (!e || typeof e !== 'object') throw new InvalidInputError(`${where}: expected an object`);
    for (const field of ['kind', 'role', 'content'] as const) {
      if (typeof e[field] !== 'string') throw new InvalidInputError(`${where}: "${field}" must be a string`);
    }
    if (e.kind.length === 0) throw new InvalidInputError(`${where}: "kind" must not be empty`);
    const optString = (v: unknown, field: string): string | null => {
      if (v === undefined || v === null) return null;
      if (typeof v !== 'string') throw new InvalidInputError(`${where}: "${field}" must be a string`);
      return v;
    };
    const optInt = (v: unknown, field: string): number | null => {
      if (v === undefined || v === null) return null;
      if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new InvalidInputError(`${where}: "${field}" must be an integer`);
      return v;
    };
    const givenSession = optString(e.session, 'session') ?? defaultSession;
    if (givenSession.length === 0) throw new InvalidInputError(`${where}: "session" must not be empty`);
    let ts = optString(e.ts, 'ts');
    if (ts === null) ts = new Date().toISOString();
    else if (!ISO_TS.test(ts) || Number.isNaN(Date.parse(ts))) throw new InvalidInputError(`${where}: "ts" must be an ISO 8601 time (got "${ts.slice(0, 40)}")`);
    if (e.meta !== undefined && e.meta !== null && (typeof e.meta !== 'object' || Array.isArray(e.meta))) {
      throw new InvalidInputError(`${where}: "meta" must be an object`);
    }
    const r = this.redactor;
    const headline = optString(e.headline, 'headline');
    const name = optString(e.name, 'name');
    const toolCallId = optString(e.toolCallId, 'toolCallId');
    const content = this.credentialAware(e.kind, e.content, toolCallId, r.redact(e.content));
    let meta: Record<string, unknown>;
    let metaJson: string;
    try {
      // A new object when redaction is on (keys redacted too), so the caller's is never changed.
      meta = r.redactValue(e.meta ?? {});
      if (r.enabled) meta.redaction = REDACTION_RULESET_VERSION;
      metaJson = JSON.stringify(meta);
    } catch (err) {
      throw new InvalidInputError(`${where}: "meta" is not JSON-serialisable: ${errorMessage(err)}`);
    }
    const bytes = Buffer.byteLength(content, 'utf8');
    let stored = content;
    let payload: string | null = null;
    if (bytes > this.payloadThreshold) {
      payload = this.payloads.put(content, { deferSync }).handle;
      stored = cutPreview(content);
    }
    return {
      session: r.redactId(givenSession),
      kind: r.redactId(e.kind),
      role: r.redactId(e.role),
      name: name === null ? null : r.redactId(name),
      content,
      stored,
      payload,
      bytes,
      tokens: estimateTokens(content),
      ts,
      step: optInt(e.step, 'step'),
      toolCallId: toolCallId === null ? null : r.redactId(toolCallId),
      parentSeq: optInt(e.parentSeq, 'parentSeq'),
      headline: headline === null ? null : r.redact(headline),
      meta,
      metaJson,
    };
  }

  /**
   * A tool's output is a credential when its command prints one and it is one word (`aws ecr get-login-password`,
   * `op read …`): the command is in the tool call appended before it (remembered by its id, in this preparer), or on
   * the output's own first line (`$ <command>`, Scroll's run_command). Shapes alone would miss a password manager's
   * plain password.
   */
  private credentialAware(kind: string, raw: string, toolCallId: string | null, redacted: string): string {
    if (!this.redactor.enabled) return redacted;
    if (kind === 'tool_call') {
      // The command is at the start of a call's arguments; a file written or a patch further on is not one.
      if (toolCallId !== null && PRINTS_CREDENTIAL_COMMAND.test(raw.length > COMMAND_CHARS ? raw.slice(0, COMMAND_CHARS) : raw)) {
        if (this.credentialCalls.size >= CREDENTIAL_CALLS_KEPT) this.credentialCalls.delete(this.credentialCalls.values().next().value!);
        this.credentialCalls.add(toolCallId);
      }
      return redacted;
    }
    if (kind !== 'tool_result') return redacted;
    const fromCall = toolCallId !== null && this.credentialCalls.delete(toolCallId);
    const nl = raw.indexOf('\n');
    const firstLine = raw.startsWith('$ ') ? (nl < 0 ? raw : raw.slice(0, nl)) : '';
    return fromCall || PRINTS_CREDENTIAL_COMMAND.test(firstLine) ? this.redactor.redactCommandOutput(redacted) : redacted;
  }

}
