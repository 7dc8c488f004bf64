// Durability of gateway-managed batches with real processes: a `gateway serve` (bin/gateway.js) is
// killed with SIGKILL in the middle of a batch; a new process on the same store (SQLite file or
// PostgreSQL schema) takes the batch over once the dead process's lease runs out, and every input
// line ends up exactly once in the output file. A cancel sent to one process stops a batch another
// process runs.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';
import { BACKENDS, createLocation, type StoreLocation } from '../store/backends.ts';
import { chatLine, jsonl, until } from '../jobs/harness.ts';

const BIN = fileURLToPath(new URL('../../bin/gateway.js', import.meta.url));
const ADMIN_KEY = 'gw_restart-admin-key-0123456789abcdefghijklmn';
const LINES = 40;

interface Served {
  child: ChildProcessWithoutNullStreams;
  url: string;
  exited: Promise<number | null>;
  stderr(): string;
}

function serve(location: StoreLocation): Promise<Served> {
  const env = {
    ...process.env,
    GATEWAY_API_KEY: ADMIN_KEY,
    DATABASE_URL: location.databaseUrl ?? '',
    GATEWAY_STORE_POLL_MS: '50',
    GATEWAY_BATCH_LEASE_MS: '1000',
    GATEWAY_BATCH_POLL_MS: '100',
    GATEWAY_BATCH_CONCURRENCY: '2',
    GATEWAY_MASTER_KEY: Buffer.alloc(32, 9).toString('base64'),
  };
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data', location.dataDir], { env });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      const line = /gateway listening on (http:\/\/127\.0\.0\.1:\d+)\n/.exec(stdout);
      if (line !== null) resolve({ child, url: line[1], exited, stderr: () => stderr });
    });
    void exited.then((code) => reject(new Error(`serve exited with ${code} before it was ready: ${stderr}`)));
  });
}

async function call(server: Served, method: string, path: string, headers: Record<string, string>, body?: RequestInit['body']): Promise<any> {
  const res = await fetch(`${server.url}${path}`, { method, headers: { 'x-gateway-api-key': ADMIN_KEY, ...headers }, body });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path} → ${res.status}: ${text}`);
  return res.headers.get('content-type')?.includes('application/json') ? JSON.parse(text) : text;
}

describe.each(BACKENDS)('gateway-managed batches across processes on %s', (backend) => {
  let location: StoreLocation;
  let mock: VendorMock;
  const running: Served[] = [];
  let headers: Record<string, string>;

  beforeAll(async () => {
    location = await createLocation(backend);
    mock = await startVendorMock({ label: 'slow' });
    // Slow answers, so the kill lands mid-batch.
    mock.script({ path: '/v1/chat/completions', delayMs: 60, times: 100_000 });
    headers = { 'x-gateway-provider': 'ollama', 'x-gateway-custom-host': mock.baseURL, authorization: `Bearer ${VENDOR_MOCK_KEY}` };
  });

  afterAll(async () => {
    for (const server of running) {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
      await server.exited;
    }
    await mock?.close();
    await location?.remove();
  });

  async function upload(server: Served, prefix: string): Promise<string> {
    const form = new FormData();
    form.append('purpose', 'batch');
    form.append('file', new Blob([jsonl(Array.from({ length: LINES }, (_, i) => chatLine(`${prefix}-${i}`, `line ${i}`)))]), `${prefix}.jsonl`);
    return (await call(server, 'POST', '/v1/files', headers, form)).id;
  }

  async function createBatch(server: Served, fileId: string): Promise<string> {
    const body = JSON.stringify({ input_file_id: fileId, endpoint: '/v1/chat/completions', completion_window: '24h' });
    return (await call(server, 'POST', '/v1/batches', { ...headers, 'content-type': 'application/json' }, body)).id;
  }

  it('resumes a batch after the process running it is killed, every line exactly once', async () => {
    const first = await serve(location);
    running.push(first);
    const batchId = await createBatch(first, await upload(first, 'k'));
    const midway = await until(() => call(first, 'GET', `/v1/batches/${batchId}`, headers), (b) => b.request_counts.completed >= 6, 20_000, 'six lines');
    expect(midway.status).toBe('in_progress');
    first.child.kill('SIGKILL');
    await first.exited;
    expect(midway.request_counts.completed).toBeLessThan(LINES);

    const second = await serve(location);
    running.push(second);
    const done = await until(() => call(second, 'GET', `/v1/batches/${batchId}`, headers), (b) => b.status === 'completed', 30_000, 'the batch to complete');
    expect(done.request_counts).toEqual({ total: LINES, completed: LINES, failed: 0 });
    expect(done.error_file_id).toBeNull();
    const output = (await call(second, 'GET', `/v1/files/${done.output_file_id}/content`, {})) as string;
    const ids = output.trimEnd().split('\n').map((line) => (JSON.parse(line) as { custom_id: string; response: { status_code: number } }));
    expect(ids.map((l) => l.custom_id)).toEqual(Array.from({ length: LINES }, (_, i) => `k-${i}`));
    expect(ids.every((l) => l.response.status_code === 200)).toBe(true);
    // Lines in flight at the kill may have run twice; none ran more than that, and every line ran.
    const served = mock.requests.filter((r) => r.path === '/v1/chat/completions').map((r) => (r.json as { messages: Array<{ content: string }> }).messages[0].content);
    for (let i = 0; i < LINES; i++) expect(served.filter((c) => c === `line ${i}`).length).toBeGreaterThanOrEqual(1);
    expect(served.length).toBeLessThanOrEqual(LINES + 2);
  });

  it('stops a batch another process runs when the cancel arrives through a different process', async () => {
    const [a, b] = await Promise.all([serve(location), serve(location)]);
    running.push(a, b);
    const batchId = await createBatch(a, await upload(a, 'x'));
    await until(() => call(b, 'GET', `/v1/batches/${batchId}`, headers), (batch) => batch.request_counts.completed >= 2, 20_000, 'two lines');
    const cancelling = await call(b, 'POST', `/v1/batches/${batchId}/cancel`, headers);
    expect(cancelling.status).toBe('cancelling');
    const done = await until(() => call(a, 'GET', `/v1/batches/${batchId}`, headers), (batch) => batch.status === 'cancelled', 20_000, 'the cancel');
    expect(done.request_counts.total).toBe(LINES);
    expect(done.request_counts.completed + done.request_counts.failed).toBe(LINES);
    expect(done.request_counts.completed).toBeLessThan(LINES);
    const errors = (await call(a, 'GET', `/v1/files/${done.error_file_id}/content`, {})) as string;
    expect(errors.trimEnd().split('\n').every((line) => (JSON.parse(line) as { error: { code: string } }).error.code === 'batch_cancelled')).toBe(true);
    a.child.kill('SIGTERM');
    b.child.kill('SIGTERM');
    expect(await a.exited).toBe(0);
    expect(await b.exited).toBe(0);
  });
});
