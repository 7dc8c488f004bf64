// The request log with a real `gateway serve` process: 10,137 requests leave exactly 10,137 records,
// and SIGTERM loses none of them; with the log off, retention still deletes what earlier runs stored. The flush interval is set far beyond the test, so the records of
// the last partial batch are still queued when the signal arrives: only the flush on drain writes them.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';
import { createLocation, type StoreLocation } from '../store/backends.ts';
import { newRequestRecord } from '../../runtime/core/request-record.ts';
import { RecordBatch } from '../../runtime/core/record-batch.ts';
import { until } from '../jobs/harness.ts';
import { startServe } from './serve-processes.ts';

const BIN = fileURLToPath(new URL('../../bin/gateway.js', import.meta.url));
const ADMIN_KEY = 'gw_log-process-admin-key-0123456789abcdefghij';
// Over 10,000, and not a multiple of the writer's batch size (500): the last partial batch is only written on drain.
const REQUESTS = 10_137;
const CONCURRENCY = 32;

describe('request log of a serve process', () => {
  const locations: StoreLocation[] = [];
  let mock: VendorMock;

  beforeAll(async () => {
    mock = await startVendorMock({ label: 'log-process' });
  });
  afterAll(async () => {
    await mock?.close();
    for (const location of locations) await location.remove();
  });

  // The SQLite inserts in the writer thread, and on the serving thread in slices (GATEWAY_LOG_WRITER).
  it.each([{ placement: 'thread', where: 'in a writer thread' }, { placement: 'main', where: 'on the serving thread' }])('writes one record per request, and every one of them when stopped with SIGTERM right after the last answer, with no warning from node:sqlite (inserts $where)', { timeout: 120_000 }, async ({ placement }) => {
    const location = await createLocation('sqlite');
    locations.push(location);
    const env = { ...process.env, GATEWAY_API_KEY: ADMIN_KEY, GATEWAY_LOG_FLUSH_MS: '3600000', GATEWAY_MEMORY_TUNING: 'off', GATEWAY_LOG_WRITER: placement };
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data', location.dataDir], { env });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      let stdout = '';
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
        const line = /gateway listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(stdout);
        if (line !== null) resolve(line[1]);
      });
      void exited.then((code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
    });

    const run = randomUUID();
    const headers = {
      'x-gateway-api-key': ADMIN_KEY, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': mock.baseURL, authorization: `Bearer ${VENDOR_MOCK_KEY}`,
      'content-type': 'application/json', 'x-gateway-metadata': JSON.stringify({ run }),
    };
    const body = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    let next = 0;
    let ok = 0;
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      while (next < REQUESTS) {
        next++;
        const res = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers, body });
        await res.arrayBuffer();
        if (res.status === 200) ok++;
      }
    }));
    expect(ok).toBe(REQUESTS);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    // Every thread that loads node:sqlite (the writer thread too) keeps its experimental warning to itself.
    expect(stderr).not.toContain('ExperimentalWarning');

    const store = await location.open();
    try {
      let count = 0;
      let after: string | undefined;
      for (;;) {
        const page = await store.requestLogs.list({ metadata: { run } }, { after, limit: 1000 });
        count += page.records.length;
        if (!page.hasMore) break;
        after = page.records[page.records.length - 1].id;
      }
      expect(count).toBe(REQUESTS);
    } finally {
      await store.close();
    }
  });

  it('with the log off, deletes the records past retention that earlier runs stored, when it starts', { timeout: 60_000 }, async () => {
    const location = await createLocation('sqlite');
    locations.push(location);
    const run = randomUUID();
    const now = Date.now();
    const old = newRequestRecord(`old-${run}`, 'POST', '/v1/chat/completions', 'http', now - 40 * 86_400_000);
    const recent = newRequestRecord(`recent-${run}`, 'POST', '/v1/chat/completions', 'http', now - 86_400_000);
    const seeded = await location.open();
    try {
      await seeded.requestLogs.insert(RecordBatch.of([old, recent].map((r) => JSON.stringify({ ...r, metadata: { run } }))));
    } finally {
      await seeded.close();
    }
    const serve = await startServe({ GATEWAY_API_KEY: ADMIN_KEY, GATEWAY_REQUEST_LOG: 'off', GATEWAY_LOG_RETENTION_DAYS: '30', GATEWAY_MEMORY_TUNING: 'off' }, location.dataDir);
    try {
      const traces = async () => ((await (await fetch(`${serve.url}/v1/logs?metadata.run=${run}`, { headers: { 'x-gateway-api-key': ADMIN_KEY } })).json()) as { data: Array<{ trace_id: string }> }).data.map((r) => r.trace_id);
      expect(await until(traces, (ids) => ids.length === 1, 10_000, 'the old record deleted')).toEqual([recent.traceId]);
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  });
});
