// CachePurgeLog on SqlDatabase: a purge is one change-feed entry, written in its own transaction.
import { CACHE_PURGES_KIND, type AnnouncedPurge, type CachePurgeLog, encodePurge } from '../cache-purge-log.ts';
import type { SqlDatabase } from './sql-database.ts';
import { recordChange } from './record-change.ts';

export class SqlCachePurgeLog implements CachePurgeLog {
  readonly #db: SqlDatabase;

  constructor(db: SqlDatabase) {
    this.#db = db;
  }

  async announce(purge: AnnouncedPurge): Promise<void> {
    await this.#db.transaction((tx) => recordChange(tx, CACHE_PURGES_KIND, encodePurge(purge)));
  }
}
