/**
 * Optional hybrid search (issue 23, point 3) against a deterministic fake embeddings server on
 * loopback: vectors stored per (seq, model) from the redacted text, filled incrementally; fusion by
 * reciprocal rank; an endpoint that is down, slow or broken gives BM25's answer unchanged (said
 * once); another model gets its own vectors; the table is rebuilt from the log.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../src/core/log/eventLog';
import { EmbeddingClient, EmbeddingError } from '../../../src/core/search/embeddingClient';
import { VectorBackfill } from '../../../src/core/search/embedBackfill';
import { FUSION_DEPTH, HybridSearch, RRF_K, fusedSearch, reciprocalRankFusion } from '../../../src/core/search/hybrid';
import { dropVectors, vectorStats } from '../../../src/core/search/vectorStore';
import { DIMS, FakeEmbeddingServer } from './fakeEmbeddingServer';

const SECRET = 'ghp_1234567890abcdefghijABCDEFGHIJ123456';

const EVENTS = [
  { session: 'a', content: 'the car park ticket printer jammed again' },
  { session: 'b', content: 'we moved the build to the new runner' },
  { session: 'c', content: 'the automobile would not start after the update' },
  { session: 'd', content: 'left the car keys in the office' },
  { session: 'e', content: `deploy token is ${SECRET} for the staging push` },
  { session: 'f', content: 'lunch was late today' },
];

async function withSetup(fn: (ctx: { log: EventLog; server: FakeEmbeddingServer; url: string; dir: string }) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'scroll-hybrid-'));
  const log = EventLog.open({ path: join(dir, 'scroll.db'), onWarning: () => undefined });
  const server = new FakeEmbeddingServer();
  server.concepts = { car: 'vehicle', automobile: 'vehicle' };
  const url = await server.listen();
  try {
    log.appendMany(EVENTS.map((e) => ({ kind: 'user_message', role: 'user', ...e })));
    await fn({ log, server, url, dir });
  } finally {
    await server.close();
    log.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const rows = (log: EventLog) =>
  log.database.prepare('SELECT model, seq, dims, length(vector) AS bytes FROM event_vectors ORDER BY model, seq').all() as { model: string; seq: number; dims: number; bytes: number }[];

test('reciprocal rank fusion: Σ 1/(60 + rank); an event high in both lists beats one first in only one', () => {
  assert.equal(RRF_K, 60);
  const fused = reciprocalRankFusion([
    [10, 20, 30],
    [20, 30, 10],
  ]);
  // 20 (second, then first) passes the lexical first 10 (first, then third): 1/62 + 1/61 > 1/61 + 1/63.
  assert.deepEqual(fused.map((f) => f.seq), [20, 10, 30]);
  assert.ok(Math.abs(fused[0].score - (1 / 62 + 1 / 61)) < 1e-12);
  assert.ok(Math.abs(fused[1].score - (1 / 61 + 1 / 63)) < 1e-12);
  assert.deepEqual(reciprocalRankFusion([[1], [2]]).map((f) => f.seq), [2, 1], 'ties: newest seq first');
});

test('vectors are stored per (seq, model), filled incrementally, from the redacted text only', async () => {
  await withSetup(async ({ log, server, url }) => {
    const client = new EmbeddingClient({ endpoint: url, model: 'fake-a' });
    const fill = new VectorBackfill(log.database, client, { batchSize: 4 });
    assert.equal(fill.missing(), EVENTS.length);
    const first = await fill.fill();
    assert.deepEqual(first, { embedded: EVENTS.length, missing: EVENTS.length });
    assert.deepEqual(rows(log).map((r) => [r.model, r.seq, r.dims, r.bytes]), log.range(1, EVENTS.length).map((e) => ['fake-a', e.seq, DIMS, DIMS * 4]));
    assert.equal(server.requests.length, 2, 'batches of 4: two requests for six events');
    // Redaction happens before anything is written, so the endpoint never sees the secret: it is
    // sent exactly the text the log stores.
    assert.ok(!server.inputs.some((t) => t.includes(SECRET)), 'the secret was sent to the endpoint');
    assert.deepEqual(server.inputs, log.range(1, EVENTS.length).map((e) => e.content));
    assert.match(server.inputs[4], /deploy token is \S+ for the staging push/);

    // Again: nothing is missing, nothing is sent.
    const before = server.requests.length;
    assert.deepEqual(await fill.fill(), { embedded: 0, missing: 0 });
    assert.equal(server.requests.length, before);
    // A new event: only it is embedded.
    const e = log.append({ kind: 'model_turn', role: 'assistant', content: 'the vehicle inspection is due', session: 'a' });
    assert.deepEqual(await fill.fill(), { embedded: 1, missing: 1 });
    assert.deepEqual(server.requests.at(-1)?.input, ['the vehicle inspection is due']);
    assert.equal(rows(log).at(-1)?.seq, e.seq);
  });
});

test('fusion lists an event BM25 cannot find (same meaning, other words) and changes the order', async () => {
  await withSetup(async ({ log, url }) => {
    const client = new EmbeddingClient({ endpoint: url, model: 'fake-a' });
    await new VectorBackfill(log.database, client).fill();
    const lexical = log.search('car', { k: 3 });
    assert.deepEqual(lexical.hits.map((h) => h.seq).sort(), [1, 4], 'BM25 finds the two events that say "car"');
    const hybrid = await new HybridSearch(client).search(log.database, 'car', { k: 3 });
    assert.equal(hybrid.hybrid?.model, 'fake-a');
    const automobile = hybrid.hits.find((h) => h.seq === 3);
    assert.ok(automobile, `the automobile event is listed: ${JSON.stringify(hybrid.hits.map((h) => h.seq))}`);
    assert.equal(automobile.match, 'similar');
    assert.equal(automobile.broadened, true);
    assert.equal(hybrid.hybrid?.similarOnly, 1);
    // Both lexical hits are also the nearest vectors, so they stay on top, in fused order.
    assert.deepEqual(hybrid.hits.slice(0, 2).map((h) => h.seq).sort(), [1, 4]);
    for (const h of hybrid.hits.slice(0, 2)) assert.equal(h.match, 'every');
    assert.ok(hybrid.hits.every((h, i) => i === 0 || hybrid.hits[i - 1].score >= h.score), 'in score order');
    assert.match(hybrid.hits[0].snippet, /«car»/, 'snippets mark the query words as a BM25 search does');
    // Filters hold for the vector side too.
    const onlyC = await new HybridSearch(client).search(log.database, 'car', { k: 5, session: 'c' });
    assert.deepEqual(onlyC.hits.map((h) => h.seq), [3]);
  });
});

test('a query of no words is still searched by its meaning in hybrid mode', async () => {
  await withSetup(async ({ log, url, server }) => {
    const client = new EmbeddingClient({ endpoint: url, model: 'fake-a' });
    await new VectorBackfill(log.database, client).fill();
    const vector = Float32Array.from(server.vectorOf('fake-a', 'automobile'), (x) => x);
    const norm = Math.hypot(...vector);
    const r = fusedSearch(log.database, '🚗', { k: 2 }, 'fake-a', vector.map((x) => x / norm));
    assert.equal(r.message, undefined);
    assert.deepEqual(r.hits.map((h) => h.match), ['similar', 'similar']);
  });
});

test('endpoint down, slow or broken: the same results as BM25, said once, not per query', async () => {
  await withSetup(async ({ log, server, url }) => {
    const client = new EmbeddingClient({ endpoint: url, model: 'fake-a' });
    await new VectorBackfill(log.database, client).fill();
    for (const mode of ['error', 'garbage', 'slow'] as const) {
      server.mode = mode;
      server.slowMs = 3_000;
      const notes: string[] = [];
      const hybrid = new HybridSearch(client, { queryTimeoutMs: 200, onNote: (m) => notes.push(m) });
      for (const q of ['car', 'build runner', 'lunch']) {
        const t0 = Date.now();
        const got = await hybrid.search(log.database, q, { k: 5 });
        assert.ok(Date.now() - t0 < 1_500, `${mode}: a search waits at most the query deadline`);
        assert.deepEqual(got, log.search(q, { k: 5 }), `${mode}: ${q}`);
      }
      assert.equal(notes.length, 1, `${mode}: ${JSON.stringify(notes)}`);
      assert.match(notes[0], mode === 'slow' ? /did not answer within 200 ms/ : mode === 'error' ? /HTTP 500/ : /not embeddings/);
      assert.match(notes[0], /searching with BM25 only/);
      assert.equal(hybrid.fallingBack, true);
    }
    // Unreachable (nothing listens): the same.
    await server.close();
    const notes: string[] = [];
    const hybrid = new HybridSearch(client, { onNote: (m) => notes.push(m) });
    assert.deepEqual(await hybrid.search(log.database, 'car', { k: 5 }), log.search('car', { k: 5 }));
    assert.deepEqual(await hybrid.search(log.database, 'keys', { k: 5 }), log.search('keys', { k: 5 }));
    assert.equal(notes.length, 1);
    assert.match(notes[0], /could not be reached/);
  });
});

test('the endpoint answers again after the retry delay: said once, and searches fuse again', async () => {
  await withSetup(async ({ log, server, url }) => {
    const client = new EmbeddingClient({ endpoint: url, model: 'fake-a' });
    await new VectorBackfill(log.database, client).fill();
    let now = 1_000;
    const notes: string[] = [];
    const hybrid = new HybridSearch(client, { retryAfterMs: 60_000, now: () => now, onNote: (m) => notes.push(m) });
    server.mode = 'error';
    assert.equal((await hybrid.search(log.database, 'car', { k: 3 })).hybrid, undefined);
    server.mode = 'ok';
    const asked = server.requests.length;
    assert.equal((await hybrid.search(log.database, 'keys', { k: 3 })).hybrid, undefined, 'within the retry delay the endpoint is not asked');
    assert.equal(server.requests.length, asked);
    now += 60_001;
    assert.equal((await hybrid.search(log.database, 'keys', { k: 3 })).hybrid?.model, 'fake-a');
    assert.equal(notes.length, 2);
    assert.match(notes[1], /answers again/);
  });
});

test('another model gets its own vectors; the old ones stay until dropped; search uses the configured model', async () => {
  await withSetup(async ({ log, server, url }) => {
    server.dimsOf = { 'fake-b': 64 };
    await new VectorBackfill(log.database, new EmbeddingClient({ endpoint: url, model: 'fake-a' })).fill();
    const b = new EmbeddingClient({ endpoint: url, model: 'fake-b' });
    const fill = new VectorBackfill(log.database, b);
    assert.equal(fill.missing(), EVENTS.length, 'no vector of fake-b yet');
    assert.equal((await fill.fill()).embedded, EVENTS.length);
    assert.deepEqual(server.requests.filter((r) => r.model === 'fake-b').flatMap((r) => r.input).length, EVENTS.length);
    assert.deepEqual(vectorStats(log.database, 'fake-a'), { vectors: EVENTS.length, dims: DIMS, events: EVENTS.length });
    assert.deepEqual(vectorStats(log.database, 'fake-b'), { vectors: EVENTS.length, dims: 64, events: EVENTS.length });
    const r = await new HybridSearch(b).search(log.database, 'car', { k: 3 });
    assert.equal(r.hybrid?.model, 'fake-b');
    assert.ok(r.hits.some((h) => h.seq === 3));
  });
});

test('the vector table is derived: dropped and refilled from the log, it holds the same vectors', async () => {
  await withSetup(async ({ log, url }) => {
    const client = new EmbeddingClient({ endpoint: url, model: 'fake-a' });
    await new VectorBackfill(log.database, client).fill();
    const snapshot = () => log.database.prepare('SELECT model, seq, dims, hex(vector) AS v, text_hash FROM event_vectors ORDER BY seq').all();
    const before = snapshot();
    const hybridBefore = await new HybridSearch(client).search(log.database, 'car', { k: 5 });
    assert.equal(dropVectors(log.database), EVENTS.length);
    assert.equal(vectorStats(log.database, 'fake-a').vectors, 0);
    // Without vectors, hybrid search is BM25's.
    assert.deepEqual(await new HybridSearch(client).search(log.database, 'car', { k: 5 }), log.search('car', { k: 5 }));
    await new VectorBackfill(log.database, client).fill();
    assert.deepEqual(snapshot(), before);
    assert.deepEqual(await new HybridSearch(client).search(log.database, 'car', { k: 5 }), hybridBefore);
  });
});

test('a purge drops the vectors of the events it rewrote; the refill embeds the purged text', async () => {
  await withSetup(async ({ log, server, url }) => {
    const client = new EmbeddingClient({ endpoint: url, model: 'fake-a' });
    await new VectorBackfill(log.database, client).fill();
    log.purge({ seqs: [6], texts: ['lunch'] });
    assert.deepEqual(rows(log).map((r) => r.seq), [1, 2, 3, 4, 5], 'seq 6 lost its vector; the purge event has none yet');
    await new VectorBackfill(log.database, client).fill();
    const sent = server.requests.at(-1)?.input ?? [];
    assert.ok(sent.some((t) => /was late today/.test(t) && !/lunch/.test(t)), JSON.stringify(sent));
  });
});

test('background fill: batches while appends go on, backoff after a failure, said once per outage', async () => {
  await withSetup(async ({ log, server, url }) => {
    const client = new EmbeddingClient({ endpoint: url, model: 'fake-a', timeoutMs: 2_000 });
    const notes: string[] = [];
    server.mode = 'error';
    const fill = new VectorBackfill(log.database, client, { batchSize: 2, delayMs: 0, backoffMs: 20, maxBackoffMs: 40, onNote: (m) => notes.push(m) });
    fill.kick();
    // Appends are not held up while the fill fails and retries.
    const until = Date.now() + 300;
    while (Date.now() < until) {
      log.append({ kind: 'note', role: 'user', content: `tick ${Date.now()}`, session: 'z' });
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(server.requests.length >= 3, `retried: ${server.requests.length} requests`);
    assert.equal(notes.length, 1, JSON.stringify(notes));
    assert.match(notes[0], /paused: .*HTTP 500/);
    server.mode = 'ok';
    const deadline = Date.now() + 5_000;
    while (fill.missing() > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await fill.idle();
    assert.equal(fill.missing(), 0);
    assert.equal(notes.length, 2);
    assert.match(notes[1], /resumed/);
    fill.dispose();
  });
});

test('the client refuses what is not a usable configuration or answer, with a clear message', async () => {
  assert.throws(() => new EmbeddingClient({ endpoint: 'ftp://x', model: 'm' }), /must be http/);
  assert.throws(() => new EmbeddingClient({ endpoint: 'not a url', model: 'm' }), /not a valid URL/);
  assert.throws(() => new EmbeddingClient({ endpoint: 'http://127.0.0.1:1/v1', model: ' ' }), /model name is required/);
  assert.equal(new EmbeddingClient({ endpoint: 'http://h:1/v1/', model: 'm' }).url, 'http://h:1/v1/embeddings');
  assert.equal(new EmbeddingClient({ endpoint: 'http://h:1/v1/embeddings', model: 'm' }).url, 'http://h:1/v1/embeddings');
  const server = new FakeEmbeddingServer();
  const url = await server.listen();
  try {
    const c = new EmbeddingClient({ endpoint: url, model: 'm', apiKey: 'k-123', maxInputChars: 10 });
    const [v] = await c.embed(['a fairly long text that is cut']);
    assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-5, 'unit length');
    assert.equal(server.requests[0].authorization, 'Bearer k-123');
    assert.deepEqual(server.requests[0].input, ['a fairly l']);
    server.mode = 'garbage';
    await assert.rejects(c.embed(['x']), (e: unknown) => e instanceof EmbeddingError && /no "data" list/.test(e.message));
  } finally {
    await server.close();
  }
  assert.ok(FUSION_DEPTH >= 20);
});
