/** A real event log seeded with two sessions, agent-loop metadata, evictions and hostile text. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../../src/core/log/eventLog';
import type { NewEvent } from '../../../../src/core/types';

export const HOSTILE = [
  '<img src=x onerror="window.__pwned=1">',
  '</script><script>window.__pwned=2</script>',
  '<a href="javascript:window.__pwned=3">click me</a>',
];

export interface SeededLog {
  log: EventLog;
  dir: string;
  steps: number;
  evictions: number[];
  bigSeq: number;
  hostileSeqs: number[];
  cleanup(): void;
}

/** Session "alpha": `steps` agent steps (user, model_turn, tool_call, tool_result); every 10 steps an eviction. */
export function seedLog(steps = 40): SeededLog {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-panel-'));
  const log = EventLog.open({ path: join(dir, 'scroll.db'), session: 'alpha', onWarning: () => {} });
  const evictions: number[] = [];
  let ts = Date.parse('2026-03-01T10:00:00Z');
  const next = () => new Date((ts += 1000)).toISOString();
  let segmentStart = log.maxSeq() + 1;
  for (let step = 1; step <= steps; step++) {
    const batch: NewEvent[] = [
      { kind: 'user_message', role: 'user', content: `step ${step}: please fix the parser bug number ${step}`, ts: next(), step },
      { kind: 'model_turn', role: 'assistant', content: `Looking at parseConfig for step ${step}.`, ts: next(), step, meta: { viewTokens: 1000 + step * 37, budget: 2000, step } },
      { kind: 'tool_call', role: 'assistant', name: 'read_file', content: `{"path":"src/parser.ts","line":${step}}`, ts: next(), step },
      { kind: 'tool_result', role: 'tool', name: 'read_file', content: `export function parseConfig${step}() { return ${step}; }`, ts: next(), step },
    ];
    const written = log.appendMany(batch);
    if (step % 10 === 0) {
      const to = written[written.length - 1].seq;
      const ev = log.append({
        kind: 'eviction', role: 'system', content: `evicted ${segmentStart}-${to}`, ts: next(), step,
        meta: { from_seq: segmentStart, to_seq: to, title: { task: `fix parsers up to ${step}`, state: `done ${step}`, next: `step ${step + 1}` } },
      });
      evictions.push(ev.seq);
      segmentStart = ev.seq + 1;
    }
  }
  const big = log.append({ kind: 'tool_result', role: 'tool', name: 'run', session: 'beta', content: 'zebra '.repeat(10_000) + 'THE-END', ts: next() });
  const hostile = HOSTILE.map((h, i) => log.append({ kind: 'note', role: 'user', session: 'beta', content: `hostile sample ${i}: ${h}`, headline: h, ts: next() }).seq);
  return {
    log, dir, steps, evictions, bigSeq: big.seq, hostileSeqs: hostile,
    cleanup() {
      log.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
