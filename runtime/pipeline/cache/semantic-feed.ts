// Keeps every process's semantic index in step through Redis: each stored vector is appended to one
// Redis stream (capped at the index's bound), and each process reads that stream from its start when
// it comes up, then follows it, adding what other processes stored to its own index. A process
// skips its own entries (it added them when it stored them). Redis down: the feed waits and resumes;
// this process's own vectors still hit here. Each outage is logged when it starts and when it ends.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { GatewayLogger } from '../../core/log.ts';
import { Outage } from '../../core/outage.ts';
import { frame, unframe } from './framed.ts';
import type { SemanticCache, SemanticPublisher, SemanticVector } from './semantic-cache.ts';

const STREAM = 'gw:cache:semantic';
const READ_BLOCK_MS = 1000;
const READ_COUNT = 500;
const RETRY_MS = 1000;

interface Head {
  o: string;
  s: string;
  k: string;
  e: number;
}

export class RedisSemanticFeed implements SemanticPublisher {
  readonly #redis: Redis;
  readonly #reader: Redis;
  readonly #origin = randomBytes(8).toString('hex');
  readonly #maxEntries: number;
  readonly #publishing: Outage;
  readonly #following: Outage;
  readonly #now: () => number;
  #lastId = '0-0';
  #stopped = false;
  #reading: Promise<void> | null = null;

  /** `reader`: a connection of its own, since a blocking read holds it. */
  constructor(redis: Redis, reader: Redis, maxEntries: number, logger: GatewayLogger, now: () => number = Date.now) {
    this.#redis = redis;
    this.#reader = reader;
    this.#maxEntries = maxEntries;
    this.#publishing = new Outage(logger, 'semantic_cache_publish_failed', 'semantic_cache_publish_recovered');
    this.#following = new Outage(logger, 'semantic_cache_feed_failed', 'semantic_cache_feed_recovered');
    this.#now = now;
  }

  publish(entry: SemanticVector): void {
    const head: Head = { o: this.#origin, s: entry.scope, k: entry.entryKey, e: entry.expiresAt };
    const data = frame(head, new Uint8Array(entry.vector.buffer, entry.vector.byteOffset, entry.vector.byteLength));
    this.#redis.xadd(STREAM, 'MAXLEN', '~', String(this.#maxEntries), '*', 'd', data).then(
      () => this.#publishing.recovered(),
      (error: Error) => this.#publishing.failed(() => ({ error: error.message, note: 'vectors stored here are not shared until Redis answers' })),
    );
  }

  /** Reads what is in the stream, then follows it until `stop`. */
  follow(cache: SemanticCache): void {
    this.#reading = this.#loop(cache);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#reader.disconnect();
    await this.#reading;
  }

  async #loop(cache: SemanticCache): Promise<void> {
    while (!this.#stopped) {
      try {
        const batches = await this.#reader.xreadBuffer('COUNT', READ_COUNT, 'BLOCK', READ_BLOCK_MS, 'STREAMS', STREAM, this.#lastId);
        this.#following.recovered();
        if (batches === null) continue;
        const taken: SemanticVector[] = [];
        for (const [, messages] of batches) {
          for (const [id, fields] of messages) {
            this.#lastId = id.toString();
            const entry = this.#take(fields);
            if (entry !== null) taken.push(entry);
          }
        }
        cache.index.addMany(taken);
        // At the index thread's pace: a backlog waits in Redis, not as queued vectors in memory.
        if (taken.length > 0) await cache.index.settled();
      } catch (error) {
        if (this.#stopped) return;
        this.#following.failed(() => ({ error: (error as Error).message, note: 'vectors other processes store are not seen until Redis answers' }));
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS).unref());
      }
    }
  }

  /** A stream entry another process stored and that still lives; null otherwise. */
  #take(fields: Buffer[]): SemanticVector | null {
    const framed = fields[1] === undefined ? null : unframe(fields[1]);
    if (framed === null) return null;
    const head = framed.head as Head;
    if (typeof head !== 'object' || head === null || head.o === this.#origin || !(head.e > this.#now()) || typeof head.s !== 'string' || typeof head.k !== 'string') return null;
    const bytes = framed.bytes;
    if (bytes.length === 0 || bytes.length % 4 !== 0) return null;
    // A copy: the reply's buffer may not be 4-byte aligned.
    const vector = new Float32Array(new Uint8Array(bytes).buffer);
    return { scope: head.s, vector, entryKey: head.k, expiresAt: head.e };
  }
}
