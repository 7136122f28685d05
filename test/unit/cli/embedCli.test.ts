/**
 * `scroll embed` and `scroll search --hybrid` against the loopback fake embeddings server: the
 * vectors are filled and refilled (--rebuild), a hybrid search says it fused and lists what only
 * the meaning finds, and with the endpoint down the output is BM25's plus one note on stderr.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { main } from '../../../src/cli/main';
import type { CliIO } from '../../../src/cli/command';
import { EventLog } from '../../../src/core/log/eventLog';
import { FakeEmbeddingServer } from '../search/fakeEmbeddingServer';

function memoryIO(cwd: string, env: NodeJS.ProcessEnv = {}, stdin = ''): CliIO & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    stdout: (t: string) => void (io.out += t),
    stderr: (t: string) => void (io.err += t),
    stdin: Readable.from([stdin]),
    cwd,
    env,
  };
  return io;
}

test('scroll embed fills the vectors, scroll search --hybrid fuses them; endpoint down: BM25 output and one note', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-embed-cli-'));
  const server = new FakeEmbeddingServer();
  server.concepts = { car: 'vehicle', automobile: 'vehicle' };
  const url = await server.listen();
  try {
    const log = EventLog.open({ workspace: dir, onWarning: () => undefined });
    log.appendMany(
      ['the car park ticket printer jammed', 'we moved the build to the new runner', 'the automobile would not start', 'left the car keys at home'].map((content, i) => ({
        kind: 'user_message', role: 'user', content, session: `s${i}`,
      })),
    );
    log.close();

    // Without an endpoint: a usage error naming the flag and the variable.
    let io = memoryIO(dir);
    assert.equal(await main(['embed'], io), 2);
    assert.match(io.err, /--embeddings-url URL \(or SCROLL_EMBEDDINGS_URL\)/);

    io = memoryIO(dir);
    assert.equal(await main(['embed', '--embeddings-url', url, '--embeddings-model', 'fake-a', '--json'], io), 0, io.err);
    assert.deepEqual(JSON.parse(io.out), { embedded: 4, vectors: 4, events: 4, model: 'fake-a', dims: 256 });
    // The environment works as the flags do; nothing is missing, so nothing is sent.
    const env = { SCROLL_EMBEDDINGS_URL: url, SCROLL_EMBEDDINGS_MODEL: 'fake-a' };
    const sent = server.requests.length;
    io = memoryIO(dir, env);
    assert.equal(await main(['embed'], io), 0, io.err);
    assert.equal(io.out, 'embedded 0 events with fake-a; 4 of 4 events have a vector of it\n');
    assert.equal(server.requests.length, sent);
    io = memoryIO(dir, env);
    assert.equal(await main(['embed', '--rebuild', '--json'], io), 0, io.err);
    assert.equal(JSON.parse(io.out).embedded, 4);
    assert.match(io.err, /dropped 4 stored vectors/);

    io = memoryIO(dir, env);
    assert.equal(await main(['search', 'car', '--k', '3', '--hybrid', '--json'], io), 0, io.err);
    const hybrid = JSON.parse(io.out);
    assert.deepEqual(hybrid.hybrid, { model: 'fake-a', similarOnly: 1 });
    assert.ok(hybrid.hits.some((h: { seq: number; match: string }) => h.seq === 3 && h.match === 'similar'));
    io = memoryIO(dir, env);
    assert.equal(await main(['search', 'car', '--k', '3', '--hybrid'], io), 0, io.err);
    assert.match(io.out, /\(hybrid: BM25 fused with fake-a vectors; 1 of 3 hits are listed for their meaning alone: \[similar meaning\]\)/);
    assert.match(io.out, /#3 .*\[similar meaning\]/);

    // The endpoint down: the plain search's output, and the fallback said once for the whole batch.
    io = memoryIO(dir);
    assert.equal(await main(['search', 'car', '--k', '3', '--json'], io), 0);
    const plain = io.out;
    await server.close();
    io = memoryIO(dir, env);
    assert.equal(await main(['search', 'car', '--k', '3', '--hybrid', '--json'], io), 0, io.err);
    assert.equal(io.out, plain);
    assert.match(io.err, /hybrid search: .*could not be reached.*searching with BM25 only/);
    const batch = join(dir, 'q.jsonl');
    writeFileSync(batch, ['car', 'keys', 'runner'].map((q, i) => JSON.stringify({ id: i, query: q })).join('\n') + '\n');
    io = memoryIO(dir);
    assert.equal(await main(['search', '--batch', batch], io), 0);
    const plainBatch = io.out;
    io = memoryIO(dir, env);
    assert.equal(await main(['search', '--batch', batch, '--hybrid'], io), 0, io.err);
    assert.equal(io.out, plainBatch);
    assert.equal(io.err.match(/searching with BM25 only/g)?.length, 1, io.err);
  } finally {
    await server.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
});
