// The one place that picks a store backend and puts the record stores together. SQLite (one file
// under the data directory) is the default; PostgreSQL when a database URL is given (DATABASE_URL),
// so several gateway processes can share it. Every record store is written once against SqlDatabase.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ApiKeyStore } from './api-key-store.ts';
import type { BatchStore } from './batch-store.ts';
import type { CachePurgeLog } from './cache-purge-log.ts';
import { ChangeFeed, type ChangeFeedOptions } from './change-feed.ts';
import type { SavedConfigStore } from './config-store.ts';
import type { GatewayFileStore } from './file-store.ts';
import type { PromptStore } from './prompt-store.ts';
import type { GuardrailStore } from './guardrail-store.ts';
import type { RateLimitPolicyStore } from './rate-limit-policy-store.ts';
import type { RequestLogStore } from './request-log-store.ts';
import type { ResponseStore } from './response-store.ts';
import { SqlApiKeyStore } from './sql/sql-api-key-store.ts';
import { SqlBatchStore } from './sql/sql-batch-store.ts';
import { SqlCachePurgeLog } from './sql/sql-cache-purge-log.ts';
import { SqlConfigStore } from './sql/sql-config-store.ts';
import type { SqlDatabase } from './sql/sql-database.ts';
import { SqlFileStore } from './sql/sql-file-store.ts';
import { SqlPromptStore } from './sql/sql-prompt-store.ts';
import { SqlGuardrailStore } from './sql/sql-guardrail-store.ts';
import { SqlRateLimitPolicyStore } from './sql/sql-rate-limit-policy-store.ts';
import { SqlResponseStore } from './sql/sql-response-store.ts';
import { SqlRequestLogStore } from './sql/sql-request-log-store.ts';
import { type LogWriterPlacement, SqliteRequestLogStore } from './sqlite/sqlite-request-log-store.ts';
import { SqlUsageLimitPolicyStore } from './sql/sql-usage-limit-policy-store.ts';
import { openSqliteDatabase, SQLITE_FILE_NAME } from './sqlite/database.ts';
import { SqliteDatabase } from './sqlite/sqlite-database.ts';
import type { UsageLimitPolicyStore } from './usage-limit-policy-store.ts';
import type { UsageBudgetStore } from './usage-budget-store.ts';
import { SqlUsageBudgetStore } from './sql/sql-usage-budget-store.ts';
import { SqlVirtualKeyStore } from './sql/sql-virtual-key-store.ts';
import type { VirtualKeyStore } from './virtual-key-store.ts';

export const DEFAULT_DATA_DIR = './data';

export interface GatewayStore {
  readonly backend: 'sqlite' | 'postgres';
  readonly apiKeys: ApiKeyStore;
  readonly configs: SavedConfigStore;
  readonly prompts: PromptStore;
  readonly guardrails: GuardrailStore;
  readonly rateLimits: RateLimitPolicyStore;
  readonly usageLimits: UsageLimitPolicyStore;
  /** What usage-limit groups spent, so budgets survive a restart (runtime/pipeline/limits/budget-journal.ts). */
  readonly usageBudgets: UsageBudgetStore;
  readonly virtualKeys: VirtualKeyStore;
  /** Files, batches and stored responses the gateway keeps itself (docs/jobs.md). */
  readonly files: GatewayFileStore;
  readonly batches: BatchStore;
  readonly responses: ResponseStore;
  /** The request log (written in batches by runtime/telemetry/request-log.ts). */
  readonly requestLogs: RequestLogStore;
  /** Purges of the in-memory response caches, told to every process (runtime/store/cache-purge-log.ts). */
  readonly cachePurges: CachePurgeLog;
  /** Revisions of every record kind, polled to keep in-memory copies current across processes. */
  readonly changes: ChangeFeed;
  /** The process is stopping: from now on statements give up on a database that does not answer within seconds. */
  stopping(): void;
  /** Stops the change feed, then closes the connection(s). */
  close(): Promise<void>;
}

export interface OpenStoreOptions {
  /** Where the SQLite file lives (ignored with a database URL). */
  dataDir?: string;
  /** A PostgreSQL URL selects the PostgreSQL backend; null or empty keeps SQLite. */
  databaseUrl?: string | null;
  changeFeed?: ChangeFeedOptions;
  /** SQLite only: where request-log inserts run (GATEWAY_LOG_WRITER; default auto). */
  logWriter?: LogWriterPlacement;
  /**
   * SQLite only: open the store only if it exists (a command that reads it, run from another folder
   * than serve's, must not create an empty store there and report that it holds nothing).
   */
  existing?: boolean;
}

/** `existing` was asked for and there is no SQLite store in the data directory. */
export class StoreMissingError extends Error {
  override readonly name = 'StoreMissingError';
}

/** The embedded SQLite store under `dataDir`, opened (and migrated) synchronously. */
export function openStore(dataDir: string = DEFAULT_DATA_DIR, options: { changeFeed?: ChangeFeedOptions; logWriter?: LogWriterPlacement } = {}): GatewayStore {
  const dir = resolve(dataDir);
  const db = new SqliteDatabase(openSqliteDatabase(dir), join(dir, SQLITE_FILE_NAME));
  // node:sqlite is synchronous: request-log batches go to a writer thread's own connection, or in slices on this one.
  return composeStore(db, options.changeFeed, new SqliteRequestLogStore(dir, new SqlRequestLogStore(db), options.logWriter));
}

/** SQLite by default; PostgreSQL when `databaseUrl` is set. */
export async function openGatewayStore(options: OpenStoreOptions = {}): Promise<GatewayStore> {
  if (options.databaseUrl) {
    // Imported here so the SQLite default never loads the pg driver (about 12 MB of a serving process).
    const { openPostgresDatabase } = await import('./postgres/open-postgres.ts');
    return composeStore(await openPostgresDatabase({ connectionString: options.databaseUrl }), options.changeFeed);
  }
  const dataDir = options.dataDir ?? DEFAULT_DATA_DIR;
  if (options.existing === true && !existsSync(join(dataDir, SQLITE_FILE_NAME))) {
    throw new StoreMissingError(`no gateway store in ${resolve(dataDir)}: give the data folder \`gateway serve\` uses (--data DIR), or set DATABASE_URL to its PostgreSQL store.`);
  }
  return openStore(dataDir, { changeFeed: options.changeFeed, logWriter: options.logWriter });
}

/** Adding a record kind: one field above and one line here, for both backends (docs/store.md). */
export function composeStore(db: SqlDatabase, changeFeed?: ChangeFeedOptions, requestLogs?: RequestLogStore & { close(): Promise<void> }): GatewayStore {
  const changes = new ChangeFeed(db, changeFeed);
  let closing: Promise<void> | null = null;
  return {
    backend: db.dialect,
    apiKeys: new SqlApiKeyStore(db),
    configs: new SqlConfigStore(db),
    prompts: new SqlPromptStore(db),
    guardrails: new SqlGuardrailStore(db),
    rateLimits: new SqlRateLimitPolicyStore(db),
    usageLimits: new SqlUsageLimitPolicyStore(db),
    usageBudgets: new SqlUsageBudgetStore(db),
    virtualKeys: new SqlVirtualKeyStore(db),
    files: new SqlFileStore(db),
    batches: new SqlBatchStore(db),
    responses: new SqlResponseStore(db),
    requestLogs: requestLogs ?? new SqlRequestLogStore(db),
    cachePurges: new SqlCachePurgeLog(db),
    changes,
    stopping: () => db.stopping(),
    close() {
      closing ??= changes.close().then(() => requestLogs?.close()).finally(() => db.close());
      return closing;
    },
  };
}
