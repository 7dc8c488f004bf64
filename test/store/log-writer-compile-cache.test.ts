// bin/gateway.js turns Node's compile cache on in code, which a worker thread does not inherit; the
// request log's writer thread is given it, so from the second start on it loads its TypeScript
// already stripped and compiled (Node's stripper never loads there: ~11 MB of RSS). Observed through
// Node's own compile-cache debug output (NODE_DEBUG_NATIVE=COMPILE_CACHE; Node is pinned in
// package.json, so its wording only changes with an upgrade that this test then flags).
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';

const temp = mkdtempSync(join(tmpdir(), 'gateway-writer-cache-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const module = (path: string) => JSON.stringify(new URL(`../../runtime/${path}`, import.meta.url).href);

// What serve does, reduced: the cache on in code, then one batch through the writer thread.
const SCRIPT = `
import { enableCompileCache } from 'node:module';
enableCompileCache(process.env.CACHE_DIR);
const { SqliteRequestLogStore } = await import(${module('store/sqlite/sqlite-request-log-store.ts')});
const { RecordBatch } = await import(${module('core/record-batch.ts')});
const { newRequestRecord, newTraceId } = await import(${module('core/request-record.ts')});
const store = new SqliteRequestLogStore(process.env.DATA_DIR, null, 'thread');
await store.insert(RecordBatch.of([JSON.stringify(newRequestRecord(newTraceId(), 'GET', '/v1/models'))]));
await store.close();
`;

async function writeOnce(run: number): Promise<string> {
  // A file, not --eval: a worker inherits its process's execArgv, and --input-type would refuse its file.
  const script = join(temp, 'write-once.mjs');
  writeFileSync(script, SCRIPT);
  const { stderr } = await promisify(execFile)(process.execPath, [script], {
    env: { ...process.env, NODE_COMPILE_CACHE: '', CACHE_DIR: join(temp, 'cache'), DATA_DIR: join(temp, `data-${run}`), NODE_DEBUG_NATIVE: 'COMPILE_CACHE' },
    timeout: 30_000,
  });
  return stderr;
}

it('the writer thread uses the compile cache the process turned on in code', async () => {
  await writeOnce(1);
  const second = await writeOnce(2);
  expect(second).toMatch(/retrieving transpile cache for StrippedTypeScript \S*\/runtime\/store\/sqlite\/log-writer-worker\.ts\.\.\.success/);
}, 60_000);
