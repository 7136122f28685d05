/**
 * Losslessness, checked generically: every leaf value of every record of a transcript (a string,
 * number or boolean anywhere inside it) reaches an event of that record, in its content, name,
 * tool call id, ts or meta. Values the event's shape itself says are left out: the discriminators
 * a reader turns into the event's kind (`type`, `role`), `isSidechain: false`, and the base64 of
 * an image that went to the payload store.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { claudeCodeReader, codexReader, importFiles, type CaptureReader } from '../../../src/core/capture';
import { capturedEvents, fakeHome, openLog, redacted } from './captureTestKit';

const FIXTURES = join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'capture');
const STRUCTURAL = new Set(['type', 'role', 'record_type']);

function jsonlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? jsonlFiles(p) : n.endsWith('.jsonl') ? [p] : [];
  });
}

async function lostValues(reader: CaptureReader, files: string[]): Promise<string[]> {
  const h = fakeHome();
  const log = openLog(h.dbPath);
  try {
    await importFiles(log, reader, files);
    const events = capturedEvents(log);
    const lost: string[] = [];
    for (const file of files) {
      readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
        if (!line.trim()) return;
        const record = JSON.parse(line) as unknown;
        const mine = events.filter((e) => (e.meta.capture as { path: string; line: number }).path === file && (e.meta.capture as { line: number }).line === i + 1);
        const hay = mine.map((e) => [e.content, e.name, e.toolCallId, e.ts, JSON.stringify(e.meta)].join('\u0000')).join('\u0001');
        const withBinary = mine.some((e) => e.meta.binaries !== undefined);
        const walk = (v: unknown, path: string, key: string): void => {
          if (Array.isArray(v)) return v.forEach((x) => walk(x, `${path}[]`, key));
          if (v !== null && typeof v === 'object') {
            for (const [k, x] of Object.entries(v)) walk(x, path ? `${path}.${k}` : k, k);
            return;
          }
          if (v === null || v === '' || STRUCTURAL.has(key) || (key === 'isSidechain' && v === false)) return;
          const text = typeof v === 'string' ? v : JSON.stringify(v);
          if (withBinary && /^(data:[^,]*,)?[A-Za-z0-9+/=]{16,}$/.test(text)) return;
          const r = redacted(text);
          if (!hay.includes(r) && !hay.includes(JSON.stringify(r).slice(1, -1))) lost.push(`${file.slice(FIXTURES.length)}:${i + 1} ${path} = ${text.slice(0, 40)}`);
        };
        walk(record, '', '');
      });
    }
    return lost;
  } finally {
    log.close();
    h.dispose();
  }
}

test('claude-code: no value of any fixture record is lost', async () => {
  const dir = join(FIXTURES, 'claude-code');
  assert.deepEqual(await lostValues(claudeCodeReader, jsonlFiles(dir)), []);
});

test('codex: no value of any fixture record is lost', async () => {
  assert.deepEqual(await lostValues(codexReader, jsonlFiles(join(FIXTURES, 'codex'))), []);
});
