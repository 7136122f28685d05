/**
 * Titles of evicted segments: {task, state, next}. Written by the model in a short JSON side
 * request; when that fails (no answer, bad JSON, error, no model), a deterministic title is built
 * from the segment's own events so an eviction never waits on, or fails because of, the model.
 * The request's instructions are src/prompts/title.md; the transcript around the segment and the
 * fallback title's words are templates in src/prompts/title-request.md.
 */
import { fill, template, TITLE_PROMPT } from '../../prompts';
import type { IndexTitle } from './evictionIndex';
import { clampTitle } from './evictionIndex';
import type { ModelClient } from './model';

export interface SegmentEvent {
  seq: number;
  kind: string;
  name: string | null;
  content: string;
  step: number | null;
}

/** Characters of segment transcript sent with a title request (head and tail kept). */
const TITLE_TRANSCRIPT_CHARS = 6_000;
const EVENT_EXCERPT_CHARS = 400;

const T = {
  transcript: template('title-request', 'transcript'),
  transcriptWithRequest: template('title-request', 'transcript-with-request'),
  transcriptLine: template('title-request', 'transcript-line'),
  transcriptCut: template('title-request', 'transcript-cut'),
  fallbackUntitled: template('title-request', 'fallback-untitled'),
  fallbackStep: template('title-request', 'fallback-step'),
  fallbackSteps: template('title-request', 'fallback-steps'),
  fallbackNoSteps: template('title-request', 'fallback-no-steps'),
  fallbackTools: template('title-request', 'fallback-tools'),
  fallbackTool: template('title-request', 'fallback-tool'),
  fallbackToolCount: template('title-request', 'fallback-tool-count'),
  fallbackLastResult: template('title-request', 'fallback-last-result'),
  fallbackNextAfterCall: template('title-request', 'fallback-next-after-call'),
  fallbackNext: template('title-request', 'fallback-next'),
};

export function fallbackTitle(events: SegmentEvent[], currentRequest: string | null): IndexTitle {
  const firstUser = events.find((e) => e.kind === 'user_message');
  const taskSource = firstUser?.content ?? currentRequest ?? events.find((e) => e.kind === 'model_turn' && e.content.trim())?.content ?? '';
  const steps = events.map((e) => e.step).filter((s): s is number => typeof s === 'number');
  const tools = new Map<string, number>();
  for (const e of events) if (e.kind === 'tool_call' && e.name) tools.set(e.name, (tools.get(e.name) ?? 0) + 1);
  const toolText = [...tools].map(([name, count]) => fill(count > 1 ? T.fallbackToolCount : T.fallbackTool, { name, count })).join(', ');
  const lastResult = [...events].reverse().find((e) => e.kind === 'tool_result');
  const first = Math.min(...steps);
  const last = Math.max(...steps);
  const stepText = steps.length
    ? first === last
      ? fill(T.fallbackStep, { step: steps[0] })
      : fill(T.fallbackSteps, { first, last })
    : T.fallbackNoSteps;
  const stateParts = [stepText];
  if (toolText) stateParts.push(fill(T.fallbackTools, { tools: toolText }));
  if (lastResult) stateParts.push(fill(T.fallbackLastResult, { line: firstLine(lastResult.content, 60) }));
  const lastTurn = [...events].reverse().find((e) => e.kind === 'model_turn' && e.content.trim());
  const lastCall = [...events].reverse().find((e) => e.kind === 'tool_call');
  const next = lastTurn
    ? firstLine(lastTurn.content, 80)
    : lastCall
      ? fill(T.fallbackNextAfterCall, { name: String(lastCall.name), args: firstLine(lastCall.content, 50) })
      : T.fallbackNext;
  return clampTitle({ task: firstLine(taskSource, 100) || T.fallbackUntitled, state: stateParts.join('; '), next });
}

/** The segment as compact text for the title request: one excerpt per event, head and tail kept. */
export function segmentTranscript(events: SegmentEvent[], currentRequest: string | null): string {
  const lines = events.map((e) => {
    const who = e.kind === 'tool_call' || e.kind === 'tool_result' ? `${e.kind} ${e.name ?? ''}`.trim() : e.kind;
    return fill(T.transcriptLine, { seq: e.seq, who, excerpt: excerpt(e.content, EVENT_EXCERPT_CHARS) });
  });
  let text = lines.join('\n');
  if (text.length > TITLE_TRANSCRIPT_CHARS) {
    const half = Math.floor(TITLE_TRANSCRIPT_CHARS / 2);
    text = fill(T.transcriptCut, { head: text.slice(0, half), chars: text.length - 2 * half, tail: text.slice(-half) });
  }
  return currentRequest
    ? fill(T.transcriptWithRequest, { request: excerpt(currentRequest, 500), lines: text })
    : fill(T.transcript, { lines: text });
}

/** Asks the model for a title; throws when the answer is missing or not the JSON asked for. */
export async function modelTitle(
  model: ModelClient,
  events: SegmentEvent[],
  currentRequest: string | null,
  signal?: AbortSignal,
): Promise<IndexTitle> {
  let text = '';
  for await (const chunk of model.send(
    [
      { role: 'system', content: TITLE_PROMPT() },
      { role: 'user', content: segmentTranscript(events, currentRequest) },
    ],
    [],
    { json: true, maxOutputTokens: 200, signal },
  )) {
    if (chunk.type === 'text') text += chunk.text;
  }
  return parseTitle(text);
}

export function parseTitle(text: string): IndexTitle {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) throw new Error(`title answer is not a JSON object: ${text.slice(0, 120)}`);
  let v: unknown;
  try {
    v = JSON.parse(text.slice(start, end + 1));
  } catch (e) {
    throw new Error(`title answer is not valid JSON: ${text.slice(0, 120)}`);
  }
  const o = v as Record<string, unknown>;
  for (const k of ['task', 'state', 'next']) {
    if (typeof o?.[k] !== 'string' || !(o[k] as string).trim()) throw new Error(`title answer lacks a "${k}" string`);
  }
  return clampTitle({ task: o.task as string, state: o.state as string, next: o.next as string });
}

function firstLine(s: string, max: number): string {
  const line = s.split('\n').map((l) => l.trim()).find((l) => l) ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function excerpt(s: string, max: number): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}
