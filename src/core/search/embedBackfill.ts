/**
 * Fills `event_vectors` for one embeddings model: every event without a vector of that model,
 * oldest first, in batches. What is embedded is the event's stored text (the `content` column:
 * the text after redaction, or the redacted preview of a payload), never anything the log does
 * not hold. Each batch's vectors are written in one short transaction, taken only when the write
 * lock is free, so appends never wait behind an embedding request.
 *
 * `fill()` runs to the end and throws on failure (`scroll embed`); `kick()` runs in the
 * background (the editor, after appends), retrying a failed batch with exponential backoff and
 * saying so once per outage.
 */
import type { Database } from '../db';
import { errorMessage } from '../errors';
import { writeLockFree } from '../log/recovery';
import type { EmbeddingClient } from './embeddingClient';
import { eventsWithoutVector, putVectors, textHash, vectorStats } from './vectorStore';

export interface BackfillOptions {
  /** Texts per request (default 32). */
  batchSize?: number;
  /** Background only: told once when embedding stops working and once when it works again. */
  onNote?: (message: string) => void;
  /** Background only: first retry delay after a failure, doubled up to `maxBackoffMs` (defaults 5 s, 5 min). */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Background only: how long after a kick the work starts (default 2 s), so a burst of appends is one run. */
  delayMs?: number;
}

export interface FillProgress {
  embedded: number;
  /** Events that had no vector when the fill began. */
  missing: number;
}

export class VectorBackfill {
  private readonly batchSize: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private backoff = 0;
  private failing = false;
  private disposed = false;
  private readonly abort = new AbortController();

  constructor(
    private readonly db: Database,
    private readonly client: Pick<EmbeddingClient, 'embed' | 'inputOf' | 'model' | 'url'>,
    private readonly opts: BackfillOptions = {},
  ) {
    this.batchSize = Math.max(1, opts.batchSize ?? 32);
  }

  get model(): string {
    return this.client.model;
  }

  /** Events that have no vector of this model yet. */
  missing(): number {
    const s = vectorStats(this.db, this.client.model);
    return Math.max(0, s.events - s.vectors);
  }

  /** Embeds every event without a vector of the model; throws the first failure (what was stored stays). */
  async fill(opts: { signal?: AbortSignal; onProgress?: (p: FillProgress) => void } = {}): Promise<FillProgress> {
    const progress: FillProgress = { embedded: 0, missing: this.missing() };
    let after = 0;
    for (;;) {
      if (opts.signal?.aborted) break;
      let step: { lastSeq: number; embedded: number } | undefined;
      try {
        step = await this.batch(after, opts.signal);
      } catch (e) {
        if (!(e instanceof LockBusy)) throw e;
        await new Promise((r) => setTimeout(r, 250)); // another writer holds the lock: this batch again
        continue;
      }
      if (step === undefined) break;
      after = step.lastSeq;
      progress.embedded += step.embedded;
      opts.onProgress?.(progress);
    }
    return progress;
  }

  /**
   * One batch after `after`: embedded and stored. Undefined when nothing is left; `embedded` 0
   * with a later `lastSeq` when the lock was taken (the caller comes back) or the texts were blank.
   */
  private async batch(after: number, signal?: AbortSignal): Promise<{ lastSeq: number; embedded: number } | undefined> {
    const rows = eventsWithoutVector(this.db, this.client.model, after, this.batchSize);
    if (rows.length === 0) return undefined;
    const lastSeq = rows[rows.length - 1].seq;
    const todo = rows.filter((r) => r.text.trim() !== '');
    if (todo.length === 0) return { lastSeq, embedded: 0 };
    const vectors = await this.client.embed(todo.map((r) => r.text), { signal });
    if (this.disposed) return undefined;
    // Written when the lock is free now; otherwise the whole batch is asked again later.
    if (this.db.inTransaction || !writeLockFree(this.db)) throw new LockBusy();
    putVectors(this.db, this.client.model, todo.map((r, i) => ({ seq: r.seq, vector: vectors[i], textHash: textHash(this.client.inputOf(r.text)) })));
    return { lastSeq, embedded: todo.length };
  }

  /** Starts (or continues) filling in the background soon; never throws. */
  kick(): void {
    if (this.disposed || this.timer || this.running) return;
    this.schedule(this.opts.delayMs ?? 2_000);
  }

  /** Resolves when the background run in progress (if any) has stopped. */
  async idle(): Promise<void> {
    while (this.running || this.timer) {
      if (this.running) await this.running;
      else await new Promise((r) => setTimeout(r, 10));
    }
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.runInBackground().finally(() => (this.running = undefined));
    }, ms);
    this.timer.unref?.();
  }

  private async runInBackground(): Promise<void> {
    let after = 0;
    for (;;) {
      if (this.disposed) return;
      let step: { lastSeq: number; embedded: number } | undefined;
      try {
        step = await this.batch(after, this.abort.signal);
      } catch (e) {
        if (this.disposed) return;
        if (e instanceof LockBusy) {
          this.schedule(1_000); // another writer: soon again, not a failure
          return;
        }
        const first = this.opts.backoffMs ?? 5_000;
        this.backoff = this.backoff ? Math.min(this.backoff * 2, this.opts.maxBackoffMs ?? 300_000) : first;
        if (!this.failing) {
          this.failing = true;
          this.opts.onNote?.(`embedding the history for hybrid search paused: ${errorMessage(e)}; retrying with backoff (search uses BM25 for the events not embedded yet)`);
        }
        this.schedule(this.backoff);
        return;
      }
      if (step === undefined) return;
      if (this.failing) {
        this.failing = false;
        this.opts.onNote?.(`embedding the history for hybrid search resumed (${this.client.model} at ${this.client.url})`);
      }
      this.backoff = 0;
      after = step.lastSeq;
    }
  }

  dispose(): void {
    this.disposed = true;
    this.abort.abort();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

class LockBusy extends Error {}
