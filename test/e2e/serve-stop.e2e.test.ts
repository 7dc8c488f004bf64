// A `gateway serve` process asked to stop ends within seconds even when what it talks to has stopped
// answering: an OpenTelemetry collector that accepts and never answers gets 2 s for the last spans
// (its exporter would wait 10), and a request still open after the stop does not hold the exit.
import { mkdtemp, rm } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { type ServeProcess, startServe } from './serve-processes.ts';

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
