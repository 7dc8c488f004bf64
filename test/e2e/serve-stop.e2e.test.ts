// A `gateway serve` process asked to stop ends within seconds even when what it talks to has stopped
// answering: an OpenTelemetry collector that accepts and never answers gets 2 s for the last spans
// (its exporter would wait 10), and a request still open after the stop does not hold the exit;
// in-flight requests get GATEWAY_DRAIN_MS to finish, and their records are written.
import { mkdtemp, rm } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { type ServeProcess, startServe } from './serve-processes.ts';
import { startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';
import type { RequestRecord } from '../../runtime/core/request-record.ts';
import { mkdir, writeFile } from 'node:fs/promises';
import { openStore } from '../../runtime/store/open-store.ts';
import { connectRealtime } from '../support/realtime-client.ts';
import { REALTIME_USAGE } from '../mocks/vendor/realtime.ts';

it('stops within seconds while its collector accepts and never answers', async () => {
  const silent = createServer((socket) => socket.on('error', () => undefined));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const dir = await mkdtemp(join(tmpdir(), 'gateway-serve-stop-'));
  let serve: ServeProcess | undefined;
  try {
    serve = await startServe({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(silent.address() as AddressInfo).port}` }, join(dir, 'data'));
    // A span to send at the stop.
    expect((await fetch(`${serve.url}/v1/health`)).status).toBe(200);
    const started = Date.now();
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(7000);
  } finally {
    if (serve?.child.exitCode === null) serve.child.kill('SIGKILL');
    silent.close();
    await rm(dir, { recursive: true, force: true });
  }
});

it('gives in-flight requests GATEWAY_DRAIN_MS, then cuts them, and still writes their records', async () => {
  await withDrainingServe('drain', async ({ serve, mock, key, dataDir }) => {
    // A stream that sends its first frames and then nothing for a minute.
    mock.script({ path: '/v1/chat/completions', stallAfter: 2, times: 1 });
    const res = await fetch(`${serve.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-gateway-api-key': key, 'x-gateway-config': 'chat', 'x-gateway-trace-id': 'drained-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    await reader.read();
    const started = Date.now();
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
    // 300 ms of drain, the last writes and the exit: far from the 10 s default.
    expect(Date.now() - started).toBeLessThan(5000);
    await reader.cancel().catch(() => undefined);
    expect(await loggedRecords(dataDir, 'drained-stream')).toHaveLength(1);
  });
});

it('cuts an open WebSocket session (a realtime API) at the end of GATEWAY_DRAIN_MS, and writes its record', async () => {
  await withDrainingServe('drain-realtime', async ({ serve, key, dataDir }) => {
    const client = await connectRealtime(`${serve.url}/v1/realtime?model=gpt-realtime`, { 'x-gateway-api-key': key, 'x-gateway-config': 'chat', 'x-gateway-trace-id': 'drained-session' });
    client.socket.send(JSON.stringify({ type: 'response.create' }));
    await client.event('response.done');
    const started = Date.now();
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(5000);
    // Cut, not closed with a close frame: 1006.
    expect((await client.closed).code).toBe(1006);
    const records = await loggedRecords(dataDir, 'drained-session');
    expect(records).toHaveLength(1);
    // With the usage of the response it had.
    expect(records[0]).toMatchObject({ status: 101, routeKind: 'passthrough', provider: 'vendor', usage: { inputTokens: REALTIME_USAGE.input_tokens, outputTokens: REALTIME_USAGE.output_tokens } });
  });
});

/** A `gateway serve` with a 300 ms drain and one saved config, `chat`, to a vendor mock; all of it stopped and removed after `run`. */
async function withDrainingServe(label: string, run: (setup: { serve: ServeProcess; mock: VendorMock; key: string; dataDir: string }) => Promise<void>): Promise<void> {
  const mock = await startVendorMock({ label });
  const dir = await mkdtemp(join(tmpdir(), `gateway-serve-${label}-`));
  let serve: ServeProcess | undefined;
  try {
    await mkdir(join(dir, 'configs'));
    await writeFile(join(dir, 'configs', 'chat.json'), JSON.stringify({ provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL }));
    const key = 'gw_serve-drain-key-0123456789abcdefghij';
    serve = await startServe({ GATEWAY_API_KEY: key, GATEWAY_DRAIN_MS: '300' }, join(dir, 'data'), ['--configs', join(dir, 'configs'), '--no-watch']);
    await run({ serve, mock, key, dataDir: join(dir, 'data') });
  } finally {
    if (serve?.child.exitCode === null) serve.child.kill('SIGKILL');
    await mock.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The records the stopped gateway wrote for a trace id, read from its store. */
async function loggedRecords(dataDir: string, traceId: string): Promise<RequestRecord[]> {
  const store = openStore(dataDir);
  try {
    return (await store.requestLogs.list({ traceId }, { limit: 10 })).records;
  } finally {
    await store.close();
  }
}
