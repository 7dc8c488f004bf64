// The request log's SQLite insert path alone (the store the writer thread runs, on a fresh data
// directory): CPU per record once the table already holds many rows, with generated (time-ordered)
// or random trace ids. It is why generated trace ids are UUID version 7 (docs/decisions.md).
// Run: node bench/log-insert-bench.ts [--rows 1000000] [--records 40000] [--batch 2000] [--trace time|random] [--hooks] [--page-size N]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { RecordBatch } from '../runtime/core/record-batch.ts';
import { newRecordId, newRequestRecord, newTraceId, type RequestRecord } from '../runtime/core/request-record.ts';
import { SqlRequestLogStore } from '../runtime/store/sql/sql-request-log-store.ts';
import { openSqliteDatabase, SQLITE_FILE_NAME } from '../runtime/store/sqlite/database.ts';
import { SqliteDatabase } from '../runtime/store/sqlite/sqlite-database.ts';

const HELP = `Usage: node bench/log-insert-bench.ts [options]

Fills a request log on a fresh SQLite file with --rows records, then times --records more written as
the writer thread writes them (batches of --batch, one transaction each) and prints the process's
CPU per record (user and system) and the file's size per stored record.

Options:
  --rows N       records stored before the measurement (default 1000000)
  --records N    records measured (default 40000)
  --batch N      records per batch (default 500, the request log's batch size)
  --trace KIND   time: trace ids as the gateway generates them (UUID v7); random: UUID v4, as a
                 client might send them (default time)
  --page-size N  bytes per SQLite page of the file (default: what the gateway gives a new file)
  --hooks        records of a guarded route: hook_results of two hooks with three checks each
                 (~2.2 KB of JSON a record instead of ~0.9)
  -h, --help     show this help
`;

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    records: { type: 'string', default: '40000' },
    batch: { type: 'string', default: '500' },
    trace: { type: 'string', default: 'time' },
    hooks: { type: 'boolean', default: false },
    'page-size': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
const rows = Number(values.rows);
const measured = Number(values.records);
const batch = Number(values.batch);
if (values.trace !== 'time' && values.trace !== 'random') throw new Error('--trace is time or random');
const traceId = values.trace === 'time' ? () => newTraceId() : () => crypto.randomUUID();

/** What the bench's guarded route logs: an input and an output hook, each with three passing checks. */
function hookResults(): NonNullable<RequestRecord['hookResults']> {
  const check = (id: string, explanation: string, executionTimeMs: number) => ({ id, verdict: true, explanation, error: null, executionTimeMs });
  const hook = (id: string, words: number, characters: number) => ({
    id, type: null, verdict: true, deny: false, async: false, executionTimeMs: 0.441,
    checks: [
      check('default.wordCount', `${words} ${words === 1 ? 'word' : 'words'}; 1 to 2000 words allowed`, 0.02),
      check('default.regexMatch', 'does not match (?i)ignore (all )?previous instructions (inverted by not)', 0.374),
      check('default.characterCount', `${characters} characters; 0 to 20000 characters allowed`, 0.008),
    ],
  });
  return { beforeRequestHooks: [hook('bench-input', 1, 5)], afterRequestHooks: [hook('bench-output', 7, 32)] };
}

/** A record as the single-route benchmark leaves it: a chat answer with usage and cost. */
function recordText(createdAt: number): string {
  const record = newRequestRecord(traceId(), 'POST', '/v1/chat/completions', 'http', createdAt);
  return JSON.stringify({
    ...record, id: newRecordId(createdAt), routeKind: 'inference', operationId: 'createChatCompletion', status: 200, latencyMs: 0.41, ttfbMs: 0.39,
    configId: 'single', targetPath: 'config', provider: 'openai', modelRequested: 'gpt-4o-mini', modelAnswered: 'gpt-4o-mini', cacheStatus: 'DISABLED',
    usage: { inputTokens: 9, outputTokens: 9, cachedInputTokens: 0, totalTokens: 18, estimated: false }, costUsd: 0.0000068, apiKeyId: 'bench-key',
    hookResults: values.hooks ? hookResults() : null,
  });
}

const dir = mkdtempSync(join(tmpdir(), 'gateway-log-bench-'));
try {
  if (values['page-size'] !== undefined) {
    // The page size is fixed once the file has a page: make the file with it, then let the store open it.
    const { DatabaseSync } = await import('node:sqlite');
    const file = new DatabaseSync(join(dir, SQLITE_FILE_NAME));
    file.exec(`PRAGMA page_size = ${Number(values['page-size'])}`);
    file.exec('CREATE TABLE page_size_fixed (x); DROP TABLE page_size_fixed');
    file.close();
  }
  const db = new SqliteDatabase(openSqliteDatabase(dir), join(dir, SQLITE_FILE_NAME));
  const store = new SqlRequestLogStore(db);
  const started = Date.now() - 86_400_000;
  for (let done = 0; done < rows; done += batch) {
    const texts: string[] = [];
    for (let i = 0; i < Math.min(batch, rows - done); i++) texts.push(recordText(started + Math.floor((done + i) / 50)));
    await store.insert(RecordBatch.of(texts));
    if ((done / batch) % 50 === 0) process.stderr.write(`\rfilling: ${done.toLocaleString('en')} of ${rows.toLocaleString('en')} rows`);
  }
  process.stderr.write(`\rfilled ${rows.toLocaleString('en')} rows${' '.repeat(20)}\n`);
  db.connection.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  const pageSize = (db.connection.prepare('PRAGMA page_size').get() as { page_size: number }).page_size;
  const batches: RecordBatch[] = [];
  for (let done = 0; done < measured; done += batch) batches.push(RecordBatch.of(Array.from({ length: Math.min(batch, measured - done) }, () => recordText(Date.now()))));
  const before = process.cpuUsage();
  const wall = performance.now();
  for (const records of batches) await store.insert(records);
  const cpu = process.cpuUsage(before);
  const per = (micros: number) => (micros / measured).toFixed(1);
  process.stdout.write(`${pageSize}-byte pages, trace ids ${values.trace}${values.hooks ? ', records with hook_results' : ''}, ${rows.toLocaleString('en')} rows stored, ${measured.toLocaleString('en')} measured in batches of ${batch}: ` +
    `${per(cpu.user + cpu.system)} CPU µs/record (user ${per(cpu.user)}, system ${per(cpu.system)}), wall ${per((performance.now() - wall) * 1000)} µs/record\n`);
  db.connection.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  const pages = (db.connection.prepare('PRAGMA page_count').get() as { page_count: number }).page_count;
  process.stdout.write(`file: ${Math.round((pages * pageSize) / (rows + measured))} bytes per record (${((pages * pageSize) / 2 ** 20).toFixed(1)} MB for ${(rows + measured).toLocaleString('en')})\n`);
  await db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
