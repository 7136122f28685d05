/** Shared by the capture tests: a fake home folder holding copies of the fixtures, and log helpers. */
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../src/core/log/eventLog';
import { Redactor } from '../../../src/core/log/redaction';
import type { LogEvent } from '../../../src/core/types';

/** The fixtures in the source tree (tests run from out/test/unit/capture). */
export const FIXTURES = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'capture');

export interface FakeHome {
  home: string;
  dbPath: string;
  dispose(): void;
}

/** A temp folder with `home/.claude/projects` and `home/.codex/sessions` copied from the fixtures. */
export function fakeHome(): FakeHome {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-capture-'));
  const home = join(dir, 'home');
  cpSync(join(FIXTURES, 'claude-code', 'projects'), join(home, '.claude', 'projects'), { recursive: true });
  cpSync(join(FIXTURES, 'codex', 'sessions'), join(home, '.codex', 'sessions'), { recursive: true });
  return { home, dbPath: join(dir, 'ws', '.scroll', 'scroll.db'), dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

export function openLog(dbPath: string): EventLog {
  return EventLog.open({ path: dbPath, onWarning: () => undefined });
}

export function allEvents(log: EventLog): LogEvent[] {
  return log.range(1, log.maxSeq());
}

export function capturedEvents(log: EventLog): LogEvent[] {
  return allEvents(log).filter((e) => e.meta.capture !== undefined);
}

/** Text as the log stores it: redacted by the same rules as every append. */
const redactor = new Redactor({ enabled: true });
export function redacted(text: string): string {
  return redactor.redact(text);
}

export function jsonLines(path: string): unknown[] {
  return readFileSync(path, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as unknown);
}

/** What a fixture says must appear in the log: one entry per user message, assistant text, tool call, tool result. */
export interface Expected {
  kind: string;
  content: string;
  name?: string;
  /** The content is followed by the lines naming its binaries. */
  withBinary?: boolean;
}

/** Asserts every expected item is the content of exactly one event (byte-exact after redaction). */
export function missingOrDoubled(events: LogEvent[], expected: Expected[]): string[] {
  const wrong: string[] = [];
  for (const x of expected) {
    const want = redacted(x.content);
    const n = events.filter(
      (e) => e.kind === x.kind && (x.name === undefined || e.name === x.name) && (x.withBinary ? e.content.startsWith(want + '\n[') : e.content === want),
    ).length;
    if (n !== 1) wrong.push(`${x.kind} ${JSON.stringify(want.slice(0, 60))}: ${n} events`);
  }
  return wrong;
}
