// Records the request log still held when the process stopped, because its store did not answer
// during the last flushes (a database outage over a deploy), are kept in a file under the data
// directory instead of being lost, and written to the store at the next start (or when the log's
// writes recover after an outage that spans that start). One file per stop,
// written under a temporary name and renamed, so a process starting beside a stopping one never
// reads half a file; records already written are the same records (the store ignores a second
// insert of an id), so two processes importing one file at once write each record once.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeError, type GatewayLogger } from '../core/log.ts';
import { RecordBatch } from '../core/record-batch.ts';
import type { RequestLogStore } from '../store/request-log-store.ts';

const PREFIX = 'request-log-pending-';
const SUFFIX = '.jsonl';
/** Records per insert when a file is written back (the log's own batch size). */
const RESTORE_BATCH = 500;

/** Writes the records' JSON texts, one a line, to a new file under `dataDir`; returns its path. */
export function spillRecords(dataDir: string, texts: readonly string[]): string {
  mkdirSync(dataDir, { recursive: true });
  const name = `${PREFIX}${Date.now()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  const temporary = join(dataDir, `.${name}.tmp`);
  const file = join(dataDir, `${name}${SUFFIX}`);
  // Records are JSON.stringify output: one line each (a newline inside a string is escaped).
  writeFileSync(temporary, `${texts.join('\n')}\n`, { mode: 0o600 });
  renameSync(temporary, file);
  return file;
}

/**
 * Writes every spilled file's records to the store and deletes the file; a file the store refuses
 * stays for the next start. Returns the records written.
 */
export async function restoreSpilled(dataDir: string, store: RequestLogStore, logger: GatewayLogger): Promise<number> {
  let files: string[];
  try {
    files = readdirSync(dataDir).filter((name) => name.startsWith(PREFIX) && name.endsWith(SUFFIX)).sort();
  } catch {
    return 0;
  }
  let restored = 0;
  for (const name of files) {
    const file = join(dataDir, name);
    try {
      const lines = readFileSync(file, 'utf8').split('\n').filter((line) => line !== '');
      for (let from = 0; from < lines.length; from += RESTORE_BATCH) await store.insert(RecordBatch.of(lines.slice(from, from + RESTORE_BATCH)));
      rmSync(file, { force: true });
      restored += lines.length;
      logger.info('request_log_spill_restored', { file: name, records: lines.length });
    } catch (error) {
      logger.error('request_log_spill_restore_failed', { file: name, error: describeError(error), note: 'the file is kept, and tried again when the store answers or at the next start' });
      return restored;
    }
  }
  return restored;
}
