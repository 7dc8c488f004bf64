// Settings of files, batches, fine-tuning and responses, read from the environment once at start.
import { envInteger } from '../core/env-integer.ts';
import { maxBodyBytesFromEnv } from '../server/server.ts';

export type ContractMode = 'lenient' | 'strict';

export interface JobSettings {
  /** Largest file an upload may carry (GATEWAY_FILE_MAX_BYTES); past it, 413 `file_too_large`. */
  fileMaxBytes: number;
  /** Lines of one gateway-managed batch in flight at once (GATEWAY_BATCH_CONCURRENCY). */
  batchConcurrency: number;
  /** Gateway-managed batches one process runs at once (GATEWAY_BATCH_MAX_RUNNING). */
  maxRunningBatches: number;
  /** How long a process's claim on a batch lasts without renewal (GATEWAY_BATCH_LEASE_MS). */
  batchLeaseMs: number;
  /** How often a process looks for batches to run or take over (GATEWAY_BATCH_POLL_MS). */
  batchPollMs: number;
  /** Provider answers that break their schema: passed on and counted, or 502 (GATEWAY_PROVIDER_CONTRACT). */
  contractMode: ContractMode;
  /** A model catalog file replacing the built-in one (GATEWAY_MODEL_CATALOG); null: built in. */
  modelCatalogPath: string | null;
  /** Days a stored response is kept (GATEWAY_RESPONSE_RETENTION_DAYS); 0 keeps them for ever. */
  responseRetentionDays: number;
  /**
   * Bytes of files the gateway keeps for one organisation, all its files together
   * (GATEWAY_FILE_STORAGE_MAX_BYTES); an upload past it is 400 `file_storage_full`. 0: no limit.
   */
  fileStorageMaxBytes: number;
  /**
   * Bytes of stored responses the gateway keeps for one organisation (GATEWAY_RESPONSE_STORAGE_MAX_BYTES);
   * while they fill it, a response to store is 400 `response_storage_full`. 0: no limit.
   */
  responseStorageMaxBytes: number;
}

/** Room for the form fields, part headers and boundaries around an uploaded file. */
export const FORM_OVERHEAD = 1024 * 1024;
/**
 * The largest file limit that works: the server refuses any body over its limit (GATEWAY_MAX_BODY_BYTES)
 * before a handler runs, so a file limit that leaves no room for the form around the file would not be met.
 */
export function maxFileMaxBytes(env: NodeJS.ProcessEnv): number {
  return maxBodyBytesFromEnv(env) - FORM_OVERHEAD;
}

export const DEFAULT_JOB_SETTINGS: JobSettings = {
  fileMaxBytes: 25 * 1024 * 1024,
  batchConcurrency: 8,
  maxRunningBatches: 4,
  batchLeaseMs: 30_000,
  batchPollMs: 1000,
  contractMode: 'lenient',
  modelCatalogPath: null,
  responseRetentionDays: 30,
  // 10 GiB: four hundred of the largest uploads; the vendor keeps 100 GB per organisation, but here
  // the files are rows of the gateway's own database, on the operator's disk.
  fileStorageMaxBytes: 10 * 1024 ** 3,
  // As much again for stored responses: each is at most ~8 MiB (truncation.ts), so over a thousand
  // of the largest, and hundreds of thousands of ordinary turns, within the retention.
  responseStorageMaxBytes: 10 * 1024 ** 3,
};

export function jobSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): JobSettings {
  const mode = env.GATEWAY_PROVIDER_CONTRACT;
  if (mode !== undefined && mode !== '' && mode !== 'lenient' && mode !== 'strict') {
    throw new Error(`GATEWAY_PROVIDER_CONTRACT must be "lenient" or "strict", not ${JSON.stringify(mode)}`);
  }
  return {
    fileMaxBytes: fileMaxBytesFromEnv(env),
    batchConcurrency: envInteger(env, 'GATEWAY_BATCH_CONCURRENCY', DEFAULT_JOB_SETTINGS.batchConcurrency, 1),
    maxRunningBatches: envInteger(env, 'GATEWAY_BATCH_MAX_RUNNING', DEFAULT_JOB_SETTINGS.maxRunningBatches, 1),
    batchLeaseMs: envInteger(env, 'GATEWAY_BATCH_LEASE_MS', DEFAULT_JOB_SETTINGS.batchLeaseMs, 300),
    batchPollMs: envInteger(env, 'GATEWAY_BATCH_POLL_MS', DEFAULT_JOB_SETTINGS.batchPollMs, 10),
    contractMode: mode === 'strict' ? 'strict' : 'lenient',
    modelCatalogPath: env.GATEWAY_MODEL_CATALOG || null,
    responseRetentionDays: envInteger(env, 'GATEWAY_RESPONSE_RETENTION_DAYS', DEFAULT_JOB_SETTINGS.responseRetentionDays, 0),
    fileStorageMaxBytes: envInteger(env, 'GATEWAY_FILE_STORAGE_MAX_BYTES', DEFAULT_JOB_SETTINGS.fileStorageMaxBytes, 0),
    responseStorageMaxBytes: envInteger(env, 'GATEWAY_RESPONSE_STORAGE_MAX_BYTES', DEFAULT_JOB_SETTINGS.responseStorageMaxBytes, 0),
  };
}

function fileMaxBytesFromEnv(env: NodeJS.ProcessEnv): number {
  const most = maxFileMaxBytes(env);
  // Unset, it follows a body limit lowered below the default's room; set, it must fit in the body limit.
  const limit = envInteger(env, 'GATEWAY_FILE_MAX_BYTES', Math.min(DEFAULT_JOB_SETTINGS.fileMaxBytes, most), 1);
  if (limit > most) {
    throw new Error(`GATEWAY_FILE_MAX_BYTES must be at most ${most}, not ${limit}: the server refuses request bodies over ${most + FORM_OVERHEAD} bytes (GATEWAY_MAX_BODY_BYTES), so a larger file would never arrive`);
  }
  return limit;
}
