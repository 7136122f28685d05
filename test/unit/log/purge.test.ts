/**
 * Purge (issue 18, point 4's way out): a user-initiated, recorded rewrite that removes a secret
 * from the named events, their payload files and the search index, and keeps the chain verifiable.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { openDatabase } from '../../../src/core/db';
import { EventLog } from '../../../src/core/log/eventLog';
import { purgeInBackground } from '../../../src/core/log/maintenance';
import { main } from '../../../src/cli/main';

const SECRET = 'sk_live_51HqLyjWDarjtT1zdp7dcXYZsecretTail0042';
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

function withDir(fn: (dir: string) => void | Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scroll-purge-'));
    try {
      await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

async function scroll(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, { stdout: (t) => (out += t), stderr: (t) => (err += t), stdin: Readable.from([]), cwd: process.cwd(), env: {} });
  return { code, out, err };
}

/** A log into which the secret got anyway (redaction off: a format it did not know). */
function leakyLog(dir: string, mirror?: string): string {
  const path = join(dir, '.scroll', 'scroll.db');
  const log = EventLog.open({ path, redact: false, session: 'work', headMirrors: mirror ? [mirror] : undefined });
  log.append({ kind: 'user_message', role: 'user', content: 'set up the payment webhook' }); // 1
  log.append({ kind: 'tool_call', role: 'assistant', content: '{"cmd":"cat .env"}', name: 'run_command' }); // 2
  log.append({ kind: 'tool_result', role: 'tool', content: `STRIPE_KEY=${SECRET}\nPORT=8080`, name: 'run_command' }); // 3
  log.append({ kind: 'note', role: 'user', content: 'unrelated: the retry budget is 1500 ms' }); // 4
  log.append({ kind: 'tool_result', role: 'tool', content: 'log line\n'.repeat(2000) + `using key ${SECRET} for charges\n` + 'tail\n'.repeat(100) }); // 5: payload
  log.append({ kind: 'model_turn', role: 'assistant', content: 'I will use the key from the env file', meta: { note: `key ${SECRET}`, [SECRET]: 1 } }); // 6
  log.append({ kind: 'note', role: 'user', content: 'after' }); // 7
  log.close();
  return path;
}

function filesContaining(dir: string, needle: string): string[] {
  const hits: string[] = [];
  const walk = (d: string) => {
    for (const f of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, f.name);
      if (f.isDirectory()) walk(p);
      else if (readFileSync(p).includes(Buffer.from(needle))) hits.push(p);
    }
  };
  walk(dir);
  return hits;
}

test('purge replaces the text in the row, the payload and the index; search no longer finds it; check passes; the purge event holds no secret', withDir(async (dir) => {
  const mirror = join(dir, 'editor', 'head.json');
  const path = leakyLog(dir, mirror);
  const before = EventLog.open({ path, readonly: true });
  const oldPayload = before.get(5)!.payload!;
  assert.ok(before.search(SECRET).hits.length > 0, 'the secret is findable before');
  before.close();
  assert.ok(existsSync(join(dir, '.scroll', 'payloads', oldPayload.slice(0, 2), oldPayload)));

  const log = EventLog.open({ path, redact: false }); // no mirror: the editor's copy now predates the purge
  const r = log.purge({ seqs: [3, 5, 6], texts: [SECRET] });
  assert.equal(r.replacements, 4);
  assert.deepEqual(r.events.map((e) => e.seq), [3, 5, 6]);
  assert.equal(r.rechainedFrom, 3);
  assert.equal(r.seq, 8);
  assert.deepEqual(r.payloadsRemoved, [oldPayload]);
  assert.equal(log.get(3)!.content, 'STRIPE_KEY=[PURGED]\nPORT=8080');
  const five = log.get(5)!;
  assert.notEqual(five.payload, oldPayload);
  assert.match(five.content, /using key \[PURGED\] for charges/);
  assert.equal(five.bytes, Buffer.byteLength(five.content));
  assert.deepEqual(log.get(6)!.meta, { note: 'key [PURGED]', '[PURGED]': 1 });
  assert.equal(log.get(4)!.content, 'unrelated: the retry budget is 1500 ms', 'events not named are untouched');
  assert.equal(log.search(SECRET).hits.length, 0);
  assert.equal(log.search('dp7dcXYZsecretTail0042').hits.length, 0);
  assert.ok(log.search('charges').hits.some((h) => h.seq === 5), 'the rest of the event is still indexed');
  const purge = log.get(8)!;
  assert.equal(purge.kind, 'purge');
  const m = purge.meta as { seqs: number[]; replacements: number; textSha256: string[]; chain: { oldHead: { seq: number }; newHead: { seq: number }; rechainedFrom: number } };
  assert.deepEqual(m.seqs, [3, 5, 6]);
  assert.equal(m.replacements, 4);
  assert.deepEqual(m.textSha256, [sha(SECRET)]);
  assert.equal(m.chain.oldHead.seq, 7);
  assert.equal(m.chain.newHead.seq, 7);
  assert.equal(m.chain.rechainedFrom, 3);
  const row = log.database.prepare('SELECT * FROM events WHERE seq = 8').get() as Record<string, unknown>;
  assert.ok(!JSON.stringify(row).includes(SECRET) && !JSON.stringify(row).includes('secretTail'), 'the purge event never holds the text');
  log.close();

  const v = EventLog.open({ path, readonly: true });
  const check = v.verify({ headMirrors: [mirror] });
  v.close();
  assert.equal(check.ok, true, [...check.chain.problems, ...check.database, ...check.index].join('\n'));
  assert.equal(check.chain.heads.find((h) => h.file === mirror)?.state, 'explained', 'the editor copy from before the purge is explained by it');
  assert.equal((await scroll(['check', '--db', path, '--head', mirror])).code, 0);
  // Nowhere on disk: not in the database, its WAL, the index, or any payload file.
  assert.deepEqual(filesContaining(join(dir, '.scroll'), SECRET), []);
  assert.deepEqual(filesContaining(join(dir, '.scroll'), 'secretTail0042'), []);
}));

test('scroll purge --pattern from the command line; refused without --seq or text', withDir(async (dir) => {
  const path = leakyLog(dir);
  const r = await scroll(['purge', '--db', path, '--seq', '3,5..6', '--pattern', 'sk_live_[A-Za-z0-9]+']);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /purged +4 occurrence\(s\) in event\(s\) 3, 5, 6/);
  assert.match(r.out, /recorded +purge event 8/);
  assert.equal((await scroll(['check', '--db', path])).code, 0);
  assert.equal((await scroll(['purge', '--db', path, '--text', 'x'])).code, 2);
  assert.equal((await scroll(['purge', '--db', path, '--seq', '3'])).code, 2);
  const nothing = await scroll(['purge', '--db', path, '--seq', '4', '--text', SECRET]);
  assert.equal(nothing.code, 1);
  assert.match(nothing.err, /not found/);
  const log = EventLog.open({ path, readonly: true });
  assert.equal(log.maxSeq(), 8, 'a purge that matched nothing records nothing');
  assert.equal(log.get(8)!.kind, 'purge');
  log.close();
}));

test('a purge refuses to run over a chain already broken after the first purged seq (it would hide the tampering)', withDir((dir) => {
  const path = leakyLog(dir);
  const db = openDatabase(path);
  db.exec('DROP TRIGGER events_no_update');
  db.prepare("UPDATE events SET content = 'after, edited' WHERE seq = 7").run();
  db.exec("CREATE TRIGGER events_no_update BEFORE UPDATE ON events\nBEGIN SELECT RAISE(ABORT, 'scroll: the event log is append-only (UPDATE refused)'); END");
  db.close();
  const log = EventLog.open({ path, redact: false, onWarning: () => {} });
  try {
    assert.throws(() => log.purge({ seqs: [3], texts: [SECRET] }), /purge refused: seq 7 does not match/);
    assert.match(log.get(3)!.content, new RegExp(SECRET), 'nothing was changed');
    assert.equal(log.maxSeq(), 7);
  } finally {
    log.close();
  }
}));

test('a purge left half-done (its marker committed) is flagged by check; the next writable open records and clears it', withDir(async (dir) => {
  const path = leakyLog(dir);
  const db = openDatabase(path);
  db.exec(`INSERT INTO scroll_meta(key, value) VALUES ('purge_in_progress', '{"started":"2026-01-01T00:00:00Z","seqs":[3]}')`);
  db.exec('DROP TRIGGER events_no_update');
  db.close();
  const r = await scroll(['check', '--db', path]);
  assert.equal(r.code, 1);
  assert.match(r.out, /a purge began and did not finish/);
  assert.match(r.out, /missing events_no_update/);
  const log = EventLog.open({ path, onWarning: () => {} });
  assert.equal(log.recent(1)[0].kind, 'integrity');
  assert.match(log.recent(1)[0].content, /purge began and did not finish/);
  log.close();
  assert.equal((await scroll(['check', '--db', path])).code, 0);
}));

test('the editor runs a purge on the maintenance worker: same result, the editor log sees it', withDir(async (dir) => {
  const mirror = join(dir, 'editor', 'head.json');
  const path = leakyLog(dir, mirror);
  const log = EventLog.open({ path, redact: false, headMirrors: [mirror] });
  try {
    let where = '';
    const r = await purgeInBackground(log, { seqs: [3], texts: [SECRET] }, { onStarted: (w) => (where = w) });
    assert.equal(where, 'worker');
    assert.equal(r.replacements, 1);
    const indexed = (log.database.prepare('SELECT rowid FROM events_fts WHERE events_fts MATCH ?').all(`"${SECRET}"`) as { rowid: number }[]).map((x) => Number(x.rowid));
    assert.deepEqual(indexed, [5], 'the index no longer has the word for the purged event (5 was not named; 6 has it in meta only)');
    assert.ok(log.search(SECRET).hits.every((h) => h.seq !== 3 || !h.snippet.includes(SECRET)));
    assert.equal(log.get(3)!.content, 'STRIPE_KEY=[PURGED]\nPORT=8080');
    assert.equal(JSON.parse(readFileSync(mirror, 'utf8')).seq, r.seq, 'the worker wrote the new head to the mirror too');
    const appended = log.append({ kind: 'note', role: 'user', content: 'after the purge' });
    assert.equal(appended.seq, r.seq + 1);
    assert.equal(log.verify().ok, true, log.verify().chain.problems.join('\n'));
    assert.ok(statSync(mirror).size > 0);
  } finally {
    log.close();
  }
}));

test("a purge stopped before it removed the old payload file: check says the file still holds the purged text", withDir(async (dir) => {
  const path = leakyLog(dir);
  const log = EventLog.open({ path, redact: false });
  const old = log.get(5)!.payload!;
  const oldFile = join(dir, '.scroll', 'payloads', old.slice(0, 2), old);
  const kept = readFileSync(oldFile);
  log.purge({ seqs: [5], texts: [SECRET] });
  log.close();
  assert.equal(existsSync(oldFile), false);
  writeFileSync(oldFile, kept); // as if the process had died right after the commit
  const r = await scroll(['check', '--db', path]);
  assert.equal(r.code, 1);
  assert.match(r.out, /still holds the purged text/);
}));
