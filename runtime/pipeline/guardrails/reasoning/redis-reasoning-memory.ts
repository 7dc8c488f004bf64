// Rewritten reasoning's originals in Redis (REDIS_URL), so that a later turn served by any gateway
// process puts back what another rewrote: one key per block (its scope's and signature's digest), holding the
// rewritten text's digest and the original, with a TTL a use extends (GETEX). A Redis that fails or
// does not answer loses nothing a request needs to be served: an original not kept or not found
// leaves the block as the client sent it, which the provider refuses as it would without the gateway.
// The first failure of an outage is logged, and the recovery.
import type { Redis } from 'ioredis';
import type { GatewayLogger } from '../../../core/log.ts';
import { Outage } from '../../../core/outage.ts';
import { REASONING_TTL_MS, type ReasoningMemory, signatureKey, textDigest } from './reasoning-memory.ts';
import type { RewrittenBlock, SignedText } from './signed-reasoning.ts';

const PREFIX = 'gw:reasoning:';

const NOTE = 'Redis failed or did not answer; rewritten reasoning a client sends back goes to the provider as the client sent it (which refuses its signature) until Redis answers';

export class RedisReasoningMemory implements ReasoningMemory {
  readonly #redis: Redis;
  readonly #outage: Outage;

  constructor(redis: Redis, logger: GatewayLogger) {
    this.#redis = redis;
    this.#outage = new Outage(logger, 'reasoning_memory_unavailable', 'reasoning_memory_shared_again');
  }

  async remember(scope: string, blocks: readonly RewrittenBlock[]): Promise<void> {
    if (blocks.length === 0) return;
    const pipeline = this.#redis.pipeline();
    for (const block of blocks) pipeline.set(PREFIX + signatureKey(scope, block.signature), JSON.stringify([textDigest(block.rewritten), block.original]), 'PX', REASONING_TTL_MS);
    await this.#run(() => pipeline.exec(), 'remember');
  }

  async recall(scope: string, blocks: readonly SignedText[]): Promise<Map<string, string>> {
    const originals = new Map<string, string>();
    if (blocks.length === 0) return originals;
    const pipeline = this.#redis.pipeline();
    for (const block of blocks) pipeline.getex(PREFIX + signatureKey(scope, block.signature), 'PX', REASONING_TTL_MS);
    const results = await this.#run(() => pipeline.exec(), 'recall');
    if (results === null) return originals;
    blocks.forEach((block, i) => {
      const value = results[i]?.[1];
      if (typeof value !== 'string') return;
      const kept = parseKept(value);
      if (kept !== null && kept[0] === textDigest(block.text)) originals.set(block.signature, kept[1]);
    });
    return originals;
  }

  /** The pipeline's results, or null (logged) when Redis failed any of it. */
  async #run(exec: () => Promise<Array<[Error | null, unknown]> | null>, operation: 'remember' | 'recall'): Promise<Array<[Error | null, unknown]> | null> {
    try {
      const results = await exec();
      const failed = results === null ? new Error('the pipeline was discarded') : results.find(([error]) => error !== null)?.[0] ?? null;
      if (failed !== null) throw failed;
      this.#outage.recovered({ operation });
      return results;
    } catch (error) {
      this.#outage.failed(() => ({ operation, error: (error as Error).message, note: NOTE }));
      return null;
    }
  }
}

/** A kept value: [rewritten text's digest, original], or null when it is not one (another writer's key). */
function parseKept(value: string): [string, string] | null {
  try {
    const kept: unknown = JSON.parse(value);
    return Array.isArray(kept) && kept.length === 2 && typeof kept[0] === 'string' && typeof kept[1] === 'string' ? [kept[0], kept[1]] : null;
  } catch {
    return null;
  }
}
