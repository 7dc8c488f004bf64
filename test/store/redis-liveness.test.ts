// A Redis that stops answering on an open connection (the socket stays up: a partition, a stuck
// server) is found out by the connection's PINGs: it is made again, and meanwhile commands fail at
// once instead of each waiting out its timeout; once Redis answers, the connection is ready again.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { silentLogger } from '../../runtime/core/log.ts';
import { LIVENESS_EVERY_MS, openRedis } from '../../runtime/store/redis/redis-connection.ts';
import { startSilentProxy, type SilentProxy } from '../support/silent-proxy.ts';
import { TEST_REDIS_URL } from '../limits/backends.ts';
import { until } from '../jobs/harness.ts';

let proxy: SilentProxy;
let redis: Redis;
const events: string[] = [];

beforeAll(async () => {
  proxy = await startSilentProxy(Number(new URL(TEST_REDIS_URL).port || 6379), new URL(TEST_REDIS_URL).hostname);
  const logger = { ...silentLogger, warn: (event: string) => void events.push(event), info: (event: string) => void events.push(event) };
  redis = await openRedis({ url: `redis://127.0.0.1:${proxy.port}`, commandTimeoutMs: 100 }, logger);
});

afterAll(async () => {
  redis?.disconnect();
  await proxy?.close();
});

/** How long one command takes to answer or fail. */
async function timed(): Promise<{ ms: number; ok: boolean }> {
  const started = performance.now();
  const ok = await redis.ping().then(() => true, () => false);
  return { ms: performance.now() - started, ok };
}

it('drops a connection Redis stopped answering on, fails commands at once meanwhile, and is ready again once it answers', async () => {
  expect(await timed()).toMatchObject({ ok: true });
  proxy.silent = true;
  // Each command waits out its timeout until the PINGs find the silence (two in a row, a second apart).
  expect((await timed()).ms).toBeGreaterThanOrEqual(90);
  await until(async () => redis.status, (status) => status !== 'ready', 4 * LIVENESS_EVERY_MS, 'the silent connection dropped');
  expect(events).toContain('redis_unavailable');
  const meanwhile = await timed();
  expect(meanwhile).toMatchObject({ ok: false });
  expect(meanwhile.ms).toBeLessThan(50);

  proxy.silent = false;
  // The connection made during the silence passes its ready check, or the next one does.
  await until(timed, (result) => result.ok, 10_000, 'Redis answering again');
  expect(redis.status).toBe('ready');
  expect(events).toContain('redis_ready');
});
