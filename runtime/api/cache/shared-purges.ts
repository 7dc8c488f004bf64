// `DELETE /v1/cache` when every process caches in its own memory (no REDIS_URL): the process that
// answers purges its entries at once and logs the purge in the store; the change feed hands it to
// every other process sharing the store (PostgreSQL, or one SQLite file), which purges the same
// scope within a poll (GATEWAY_STORE_POLL_MS). Before, a purge reached only the process that
// answered, and the others went on serving what the admin had purged.
import { randomUUID } from 'node:crypto';
import { GatewayError } from '../../core/errors.ts';
import { describeError, type GatewayLogger } from '../../core/log.ts';
import type { MemoryResponseCache } from '../../pipeline/cache/memory-cache.ts';
import type { CachePurge } from '../../pipeline/cache/response-cache.ts';
import { CACHE_PURGES_KIND, type CachePurgeLog, decodePurge } from '../../store/cache-purge-log.ts';
import type { ChangeFeed } from '../../store/change-feed.ts';

/** The admin's purge: how many live entries it removed where it was answered. */
export type CachePurger = (filter: CachePurge) => Promise<number>;

/**
 * Follows the purges other processes log, and returns the purge that logs its own. A purge this
 * process logged is not applied again when the feed brings it back: entries stored since are newer
 * than the purge.
 */
export async function purgeEveryProcess(cache: MemoryResponseCache, log: CachePurgeLog, changes: ChangeFeed, logger: GatewayLogger): Promise<CachePurger> {
  const own = new Set<string>();
  await changes.watch(CACHE_PURGES_KIND, (change) => {
    if (change.all) {
      // Further behind than the change log reaches: some purge was missed, so nothing held is known good.
      own.clear();
      cache.clear();
      logger.warn('cache_purges_missed', { note: 'more purges were logged than the change log keeps since this process last read it; its in-memory cache was emptied' });
      return;
    }
    for (const id of change.ids) {
      const purge = decodePurge(id);
      if (purge === null || own.delete(purge.id)) continue;
      void cache.purge(purge);
    }
  });
  return async (filter) => {
    const purged = await cache.purge(filter);
    const id = randomUUID();
    own.add(id);
    try {
      await log.announce({ id, ...filter });
    } catch (error) {
      own.delete(id);
      logger.warn('cache_purge_not_told', { error: describeError(error) });
      throw new GatewayError('store_unavailable', `Purged ${purged} cached answer(s) held by this gateway process, but the store did not answer, so the other processes sharing it were not told to purge theirs: try again (a purge is safe to repeat).`);
    }
    return purged;
  };
}
