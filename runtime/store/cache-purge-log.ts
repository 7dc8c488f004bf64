// Purges of the response cache, told to every process sharing the store. Without Redis each gateway
// process caches answers in its own memory, so `DELETE /v1/cache` answered by one process would leave
// the others serving what was purged. The purge's scope travels as the record ID of a change-feed
// entry (no table of its own: a purge is an event, and the change log keeps the last 1,000 of a kind);
// every process's feed hands it to its cache (runtime/api/cache/shared-purges.ts).
import { RECORD_KINDS } from './record-kinds.ts';

/** The change-feed kind of cache purges. */
export const CACHE_PURGES_KIND = RECORD_KINDS.cachePurges;

/** What one `DELETE /v1/cache` purged: the organisation's entries, of a namespace and/or saved config when given. */
export interface AnnouncedPurge {
  /** Tells the announcing process its own purge when the feed brings it back. */
  id: string;
  organisation: string;
  namespace?: string;
  configId?: string;
}

export interface CachePurgeLog {
  /** Logs the purge for every process's change feed; rejects (StoreUnavailableError) when the store does not answer. */
  announce(purge: AnnouncedPurge): Promise<void>;
}

/** The change's record ID: the purge as JSON, its members in one order. */
export function encodePurge(purge: AnnouncedPurge): string {
  return JSON.stringify({ id: purge.id, organisation: purge.organisation, namespace: purge.namespace ?? null, config_id: purge.configId ?? null });
}

/** A record ID of this kind read back; null for one that is not a purge this module wrote. */
export function decodePurge(recordId: string): AnnouncedPurge | null {
  let value: unknown;
  try {
    value = JSON.parse(recordId);
  } catch {
    return null;
  }
  if (value === null || typeof value !== 'object') return null;
  const { id, organisation, namespace, config_id: configId } = value as Record<string, unknown>;
  if (typeof id !== 'string' || typeof organisation !== 'string') return null;
  if ((namespace !== null && typeof namespace !== 'string') || (configId !== null && typeof configId !== 'string')) return null;
  const purge: AnnouncedPurge = { id, organisation };
  if (typeof namespace === 'string') purge.namespace = namespace;
  if (typeof configId === 'string') purge.configId = configId;
  return purge;
}
