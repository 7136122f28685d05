/**
 * Redaction of every stored field of an event: identifiers (session, name, tool call id, kind,
 * role, meta keys) get keyed markers, distinct for distinct secrets and the same for the same one;
 * the key lives in a file beside the log, never in it; the bulk path (a worker thread) stores the
 * same rows as appendMany; meta.redaction records the rule set.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../src/core/log/eventLog';
import { REDACTION_RULESET_VERSION, Redactor } from '../../../src/core/log/redaction';
import type { LogEvent, NewEvent } from '../../../src/core/types';

const GH = 'ghp_1234567890abcdefghijABCDEFGHIJ123456';
const GH2 = 'ghp_abcdefghijABCDEFGHIJ1234567890zyxwvu';
const NPM = 'npm_aB3dE7fG2hJ4kLmN8pQ1rS5tU9vW0xY6zC2d';
const KEYED = /^\[REDACTED:[a-z0-9_]+:[0-9a-f]{12}\]$/;

function withDir(fn: (dir: string) => void | Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scroll-redact-fields-'));
    try {
      await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

test('identifier markers are keyed hashes: same secret, same marker; different secrets or keys, different markers', () => {
  const a = new Redactor({ key: Buffer.alloc(32, 1) });
  const b = new Redactor({ key: Buffer.alloc(32, 1) });
  const c = new Redactor({ key: Buffer.alloc(32, 2) });
  const m1 = a.redactId(GH);
  assert.match(m1, /^\[REDACTED:github_token:[0-9a-f]{12}\]$/);
  assert.equal(b.redactId(GH), m1);
  assert.equal(a.redactId(`session ${GH}`), `session ${m1}`);
  assert.notEqual(a.redactId(GH2), m1);
  assert.notEqual(c.redactId(GH), m1);
  // Text fields keep the plain marker: no per-secret tag that could be checked against guesses.
  assert.equal(a.redact(GH), '[REDACTED:github_token]');
  // 10,000 distinct secrets, 10,000 distinct markers.
  const seen = new Set<string>();
  for (let i = 0; i < 10_000; i++) seen.add(a.redactId(`ghp_${String(i).padStart(8, '0')}abcdefghijABCDEFGHIJ12345678`));
  assert.equal(seen.size, 10_000);
  assert.throws(() => new Redactor({ key: Buffer.alloc(8) }), /at least 16 bytes/);
});

test('ids of model tool calls and messages are not secrets', () => {
  const r = new Redactor();
  for (const id of ['toolu_01A09q90qw90lq917835lq9', 'call_DdmSWGNCGVcULAFRxmQDGEZb', 'call_7', 'msg_01XFDUDYJgAACzvnptvVoYEL', 'chatcmpl-9fK2LmN4pQ7rS9tU2vW5xY8zA1bC4', 'srvtoolu_014hJH82Qum7Td6UV8gDXThB', 'session-2026-12-01T10:00:00Z-3f9a']) {
    assert.equal(r.redactId(id), id);
  }
});

test('the key file is created on first use only, 0600, and every redactor of the log reads the same key', withDir((dir) => {
  const keyFile = join(dir, 'redaction.key');
  const first = new Redactor({ keyFile });
  assert.equal(first.redactId('no secret here'), 'no secret here');
  assert.ok(!existsSync(keyFile), 'no key file while no identifier held a secret');
  const marker = first.redactId(GH);
  assert.match(marker, KEYED);
  assert.match(readFileSync(keyFile, 'utf8'), /^[0-9a-f]{64}\n$/);
  if (process.platform !== 'win32') assert.equal(statSync(keyFile).mode & 0o777, 0o600);
  assert.deepEqual(readdirSync(dir), ['redaction.key'], 'no temporary file left');
  // Another process (a later open, the ingest worker) gets the same marker.
  assert.equal(new Redactor({ keyFile }).redactId(GH), marker);
  // Its options name the file, not the key: the worker reads the same file.
  assert.equal(first.options.key, undefined);
  writeFileSync(keyFile, 'not hex\n');
  assert.throws(() => new Redactor({ keyFile }).redactId(GH), /redaction key file .* is damaged/);
}));

test('without a key or key file, the generated key travels with the options (the worker redacts alike)', () => {
  const r = new Redactor();
  assert.ok(r.options.key && r.options.key.length === 32);
  assert.equal(new Redactor(r.options).redactId(GH), r.redactId(GH));
  assert.equal(new Redactor(structuredClone(r.options)).redactId(GH), r.redactId(GH));
});

test('meta keys are identifiers: distinct secret keys stay distinct keys; values nested anywhere are redacted', () => {
  const r = new Redactor({ key: Buffer.alloc(32, 3) });
  const out = r.redactValue({ [`token ${GH}`]: 1, [`token ${GH2}`]: 2, nested: { list: [`DB_PASSWORD=hunter2-database`, { [NPM]: NPM }] }, when: new Date('2026-12-01T00:00:00Z') });
  const keys = Object.keys(out);
  assert.equal(keys.length, 4);
  assert.ok(keys.every((k) => !k.includes(GH) && !k.includes(GH2)));
  assert.equal(out.nested.list[0], 'DB_PASSWORD=[REDACTED:secret]');
  const inner = out.nested.list[1] as Record<string, string>;
  assert.deepEqual(Object.values(inner), ['[REDACTED:npm_token]']);
  assert.match(Object.keys(inner)[0], KEYED);
  assert.equal(out.when as unknown, '2026-12-01T00:00:00.000Z'); // as JSON would store it
});

function secretEvents(): NewEvent[] {
  return [
    { kind: 'tool_call', role: 'assistant', session: `deploy ${GH}`, name: `run ${NPM}`, toolCallId: `call_${GH}`, content: '{"cmd":"deploy"}', meta: { [`env ${GH2}`]: 'x', ok: `TOKEN=${GH2}` } },
    { kind: 'tool_result', role: 'tool', session: `deploy ${GH}`, name: 'run', toolCallId: `call_${GH}`, content: 'done', headline: `used ${GH2}` },
    { kind: 'tool_call', role: 'assistant', session: `deploy ${GH2}`, toolCallId: 'toolu_01A09q90qw90lq917835lq9', content: '{}' },
    { kind: `note ${NPM}`, role: `user ${NPM}`, session: 'plain', content: 'x' },
  ];
}

test('every stored field is redacted; sessions do not merge; a tool call stays paired with its result', withDir((dir) => {
  const keyFile = join(dir, '.scroll', 'redaction.key');
  const log = EventLog.open({ workspace: dir, session: 'S', redact: { keyFile } });
  const [call, result, other, odd] = log.appendMany(secretEvents()).map((e) => log.get(e.seq)!);
  for (const e of [call, result, other, odd]) {
    const stored = JSON.stringify(e);
    for (const s of [GH, GH2, NPM]) assert.ok(!stored.includes(s), `${s.slice(0, 8)} in ${stored}`);
    assert.equal(e.meta.redaction, REDACTION_RULESET_VERSION);
  }
  assert.match(call.session, /^deploy \[REDACTED:github_token:[0-9a-f]{12}\]$/);
  assert.equal(result.session, call.session, 'the same secret gives the same session');
  assert.notEqual(other.session, call.session, 'a different secret gives a different session');
  assert.equal(result.toolCallId, call.toolCallId, 'call and result stay paired');
  assert.match(call.toolCallId!, /^call_\[REDACTED:github_token:[0-9a-f]{12}\]$/);
  assert.equal(other.toolCallId, 'toolu_01A09q90qw90lq917835lq9');
  assert.match(call.name!, /^run \[REDACTED:npm_token:[0-9a-f]{12}\]$/);
  assert.equal(result.headline, 'used [REDACTED:github_token]');
  assert.deepEqual(Object.keys(call.meta).length, 3);
  assert.equal(call.meta.ok, 'TOKEN=[REDACTED:github_token]');
  assert.match(odd.kind, /^note \[REDACTED:npm_token:[0-9a-f]{12}\]$/);
  assert.match(odd.role, /^user \[REDACTED:npm_token:[0-9a-f]{12}\]$/);
  assert.equal(log.sessions().length, 3); // deploy <GH>, deploy <GH2>, plain
  log.close();
  // The key is beside the log, not in it; a reopened log marks the same secret the same way.
  const key = readFileSync(keyFile, 'utf8').trim();
  for (const f of readdirSync(join(dir, '.scroll'))) {
    if (f !== 'redaction.key' && statSync(join(dir, '.scroll', f)).isFile()) assert.equal(readFileSync(join(dir, '.scroll', f)).indexOf(key), -1, f);
  }
  const again = EventLog.open({ workspace: dir, session: 'S', redact: { keyFile } });
  const next = again.append({ kind: 'tool_result', role: 'tool', session: `deploy ${GH}`, toolCallId: `call_${GH}`, content: 'later' });
  assert.equal(next.session, call.session);
  assert.equal(next.toolCallId, call.toolCallId);
  again.close();
}));

test('with redaction off, fields are stored as given and meta records no rule set', withDir((dir) => {
  const log = EventLog.open({ workspace: dir, redact: false });
  const e = log.append({ kind: 'note', role: 'user', session: `s ${GH}`, content: GH, meta: { a: 1 } });
  assert.equal(log.get(e.seq)!.session, `s ${GH}`);
  assert.deepEqual(log.get(e.seq)!.meta, { a: 1 });
  log.close();
}));

test('bulk ingest on the worker thread stores the same rows as appendMany', withDir(async (dir) => {
  const key = Buffer.alloc(32, 9);
  const events = (round: number): NewEvent[] => secretEvents().map((e, i) => ({ ...e, ts: `2026-12-01T00:00:0${i}Z`, content: `${e.content} ${round} ${GH}` }));
  const here = EventLog.open({ path: join(dir, 'here.db'), session: 'S', redact: { key } });
  here.appendMany([...events(1), ...events(2), ...events(3)]);
  const bulkLog = EventLog.open({ path: join(dir, 'bulk.db'), session: 'S', redact: { key } });
  const bulk = bulkLog.beginBulk({ worker: true });
  await Promise.all([bulk.submit(events(1)), bulk.submit(events(2)), bulk.submit(events(3))]);
  await bulk.commit();
  assert.ok(bulk.prepared.worker > 0, 'some batches were prepared on the worker');
  const rows = (log: EventLog): Partial<LogEvent>[] => log.range(1, 12).map(({ seq, session, kind, role, name, toolCallId, content, headline, meta }) => ({ seq, session, kind, role, name, toolCallId, content, headline, meta }));
  assert.deepEqual(rows(bulkLog), rows(here));
  assert.ok(!JSON.stringify(rows(bulkLog)).includes(GH));
  here.close();
  bulkLog.close();
}));
