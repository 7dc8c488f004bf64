// The one place that picks a store backend. Only the embedded SQLite store exists for now; the
// PostgreSQL store will be chosen here when DATABASE_URL is set.
import { resolve } from 'node:path';
import type { ApiKeyStore } from './api-key-store.ts';
import { openSqliteDatabase } from './sqlite/database.ts';
import { SqliteApiKeyStore } from './sqlite/sqlite-api-key-store.ts';

export const DEFAULT_DATA_DIR = './data';

export interface GatewayStore {
  apiKeys: ApiKeyStore;
  close(): Promise<void>;
}

export function openStore(dataDir: string = DEFAULT_DATA_DIR): GatewayStore {
  const db = openSqliteDatabase(resolve(dataDir));
  const apiKeys = new SqliteApiKeyStore(db);
  return {
    apiKeys,
    async close() {
      if (db.isOpen) db.close();
    },
  };
}
