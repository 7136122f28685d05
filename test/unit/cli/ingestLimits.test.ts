// Bad input to `scroll ingest` gets a clear error and loses nothing: a line over the size limit is
// refused with its line number (streamed: a 560 MB line never becomes a string), invalid UTF-8 is
// refused with its line and byte offset (never silently replaced by U+FFFD), and nothing is appended.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../src/core/log/eventLog';

const CLI = join(__dirname, '..', '..', '..', 'src', 'cli', 'main.js');

function scroll(cwd: string, args: string[], input?: Buffer): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, input, encoding: 'utf8', maxBuffer: 1 << 26 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function withDir(fn: (dir: string) => void): () => void {
  return () => {
    const dir = mkdtempSync(join(tmpdir(), 'scroll-ingest-limits-'));
    try {
      fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

const line = (content: string, extra: object = {}) => JSON.stringify({ kind: 'note', role: 'user', session: 's', content, ...extra });

function eventCount(dir: string): number {
  const log = EventLog.open({ workspace: dir, readonly: true });
  try {
    return log.maxSeq();
  } finally {
    log.close();
  }
}

test(
  'a 560 MB line is refused with its line number, without crashing (no RangeError), and nothing is appended',
  withDir((dir) => {
    // An earlier ingest's events, which must stay exactly as they are.
    writeFileSync(join(dir, 'first.jsonl'), [line('before one'), line('before two')].join('\n') + '\n');
    assert.equal(scroll(dir, ['ingest', 'first.jsonl']).code, 0);

    // Written in 1 MiB chunks: never held in memory here either.
    const path = join(dir, 'huge.jsonl');
    const fd = openSync(path, 'w');
    writeSync(fd, line('a normal first line') + '\n{"kind":"tool_result","role":"tool","content":"');
    const mib = Buffer.alloc(1 << 20, 'x');
    for (let i = 0; i < 560; i++) writeSync(fd, mib);
    writeSync(fd, '"}\n' + line('a line after it') + '\n');
    closeSync(fd);

    const t0 = Date.now();
    const r = scroll(dir, ['ingest', 'huge.jsonl']);
    assert.equal(r.code, 1, `refused: ${r.stdout}`);
    assert.doesNotMatch(r.stderr, /RangeError|Invalid string length/);
    assert.match(r.stderr, /line 2 of huge\.jsonl is at least \d+ bytes long, over the limit of 67108864 bytes \(--max-line-bytes\); nothing was appended/);
    assert.equal(eventCount(dir), 2, 'nothing appended: the first line of that file is not in the log either');
    assert.ok(Date.now() - t0 < 20_000, 'refused once the limit is passed, not after reading everything');

    // Raising the limit is a usage choice; the cap is the longest string Node can hold.
    const capped = scroll(dir, ['ingest', 'huge.jsonl', '--max-line-bytes', '2G']);
    assert.equal(capped.code, 2);
    assert.match(capped.stderr, /--max-line-bytes must be between 1 and \d+/);
  }),
);

test(
  '--max-line-bytes: a line over it is refused mid-file and the whole ingest rolls back; under it, accepted',
  withDir((dir) => {
    const lines = Array.from({ length: 4999 }, (_, i) => line(`event ${i}`));
    lines.push(line('y'.repeat(2000)));
    lines.push(line('after'));
    writeFileSync(join(dir, 'in.jsonl'), lines.join('\n') + '\n');
    const r = scroll(dir, ['ingest', 'in.jsonl', '--max-line-bytes', '1K']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /line 5000 of in\.jsonl is \d+ bytes long, over the limit of 1024 bytes/);
    assert.equal(eventCount(dir), 0, 'the 4,999 lines before it were not appended either');
    const ok = scroll(dir, ['ingest', 'in.jsonl', '--max-line-bytes', '64K']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.deepEqual(JSON.parse(ok.stdout), { appended: 5001, first_seq: 1, last_seq: 5001 });
    // An over-long first line: refused before the log is even created.
    const other = join(dir, 'other');
    writeFileSync(join(dir, 'long-first.jsonl'), line('z'.repeat(5000)) + '\n');
    const first = scroll(dir, ['ingest', 'long-first.jsonl', '--max-line-bytes', '1K', '--db', join(other, 'scroll.db')]);
    assert.match(first.stderr, /line 1 of long-first\.jsonl is \d+ bytes long/);
    assert.equal(existsSync(other), false);
    assert.equal(scroll(dir, ['ingest', 'in.jsonl', '--max-line-bytes', 'lots']).code, 2);
  }),
);

test(
  'invalid UTF-8 is refused with its line and byte offset (not replaced by U+FFFD); nothing is appended',
  withDir((dir) => {
    const good = Buffer.from(line('fine ✓ 日本語 🌱') + '\n');
    const cases: Array<[string, Buffer]> = [
      ['a stray 0xff byte', Buffer.from([0xff])],
      ['Latin-1 é', Buffer.from([0xe9, 0x74, 0xe9])],
      ['an overlong "/"', Buffer.from([0xc0, 0xaf])],
      ['an encoded surrogate', Buffer.from([0xed, 0xa0, 0x80])],
      ['a sequence cut short', Buffer.from([0xe6, 0x97])],
    ];
    for (const [what, bad] of cases) {
      const prefix = Buffer.from('{"kind":"note","role":"user","content":"ok ');
      const input = Buffer.concat([good, good, prefix, bad, Buffer.from('"}\n'), good]);
      writeFileSync(join(dir, 'bad.jsonl'), input);
      const r = scroll(dir, ['ingest', 'bad.jsonl']);
      assert.equal(r.code, 1, `${what}: refused (${r.stdout})`);
      const offset = prefix.length;
      const hex = `0x${bad[0].toString(16)}`;
      assert.match(r.stderr, new RegExp(`line 3 of bad\\.jsonl: invalid UTF-8 at byte ${offset} of the line \\(byte ${2 * good.length + offset} of the input: ${hex}`), what);
      assert.match(r.stderr, /nothing was appended/);
      assert.equal(existsSync(join(dir, '.scroll', 'scroll.db')) ? eventCount(dir) : 0, 0, `${what}: nothing appended`);
    }
    // The same from stdin.
    const stdin = scroll(dir, ['ingest', '-'], Buffer.concat([good, Buffer.from('{"kind":"note","role":"user","content":"\xff"}\n', 'latin1')]));
    assert.equal(stdin.code, 1);
    assert.match(stdin.stderr, /line 2 of stdin: invalid UTF-8 at byte 40 of the line/);
  }),
);

test(
  'valid UTF-8 is kept byte for byte (multi-byte characters, CRLF line ends, a BOM); a lone surrogate escape is refused',
  withDir((dir) => {
    const texts = ['fine ✓ 日本語 🌱', 'Ünïcödé — “quotes” …', 'tab\tand\u2028line separator', '\u{10FFFF} last code point'];
    writeFileSync(join(dir, 'in.jsonl'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(texts.map((t) => line(t)).join('\r\n') + '\r\n')]));
    const r = scroll(dir, ['ingest', 'in.jsonl']);
    assert.equal(r.code, 0, r.stderr);
    const log = EventLog.open({ workspace: dir, readonly: true });
    assert.deepEqual(log.range(1, 10).map((e) => Buffer.from(e.content).toString('hex')), texts.map((t) => Buffer.from(t).toString('hex')));
    log.close();

    writeFileSync(join(dir, 'pair.jsonl'), '{"kind":"note","role":"user","content":"\\ud83d\\ude00 a pair is fine"}\n');
    assert.equal(scroll(dir, ['ingest', 'pair.jsonl']).code, 0);
    writeFileSync(join(dir, 'lone.jsonl'), line('ok') + '\n{"kind":"note","role":"user","content":"x","meta":{"k":"\\ud800 alone"}}\n');
    const lone = scroll(dir, ['ingest', 'lone.jsonl']);
    assert.equal(lone.code, 1);
    assert.match(lone.stderr, /line 2 of lone\.jsonl: "meta\.k" holds half of a UTF-16 surrogate pair/);
    const again = EventLog.open({ workspace: dir, readonly: true });
    assert.equal(again.maxSeq(), 5);
    assert.equal(again.get(5)!.content, '😀 a pair is fine');
    again.close();
  }),
);
