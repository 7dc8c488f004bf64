// A failover behind one address (a managed Redis's primary endpoint): the old primary becomes a
// replica of the new one, and the address leads to the new one. Connections already open stay on the
// old server, which answers reads and PING and refuses every write with READONLY. The gateway's
// connection is made again on the first READONLY, and reaches the new primary; meanwhile the
// response cache logs the refused stores once, not an outage and a recovery on every request.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import type { GatewayLogger } from '../../runtime/core/log.ts';
import { silentLogger } from '../../runtime/core/log.ts';
import { FailOpenCache } from '../../runtime/pipeline/cache/fail-open-cache.ts';
import { RedisResponseCache } from '../../runtime/pipeline/cache/redis-cache.ts';
import { openRedis, READONLY_RECONNECT_EVERY_MS } from '../../runtime/store/redis/redis-connection.ts';
import { type PrivateRedis, startPrivateRedis } from '../e2e/serve-processes.ts';
import { startSilentProxy, type SilentProxy } from '../support/silent-proxy.ts';
import { until } from '../jobs/harness.ts';

let oldPrimary: PrivateRedis;
let newPrimary: PrivateRedis;
let proxy: SilentProxy;
const admins: Redis[] = [];
const events: Array<{ event: string; fields: Record<string, unknown> }> = [];
const logger: GatewayLogger = {
  ...silentLogger,
  warn: (event, fields = {}) => void events.push({ event, fields }),
  info: (event, fields = {}) => void events.push({ event, fields }),
};
const TAGS = { organisation: 'org-failover', namespace: null, configId: null };
const answer = (text: string) => ({ status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(text), storedAt: Date.now(), leafPath: 'config', provider: 'openai' });

beforeAll(async () => {
  [oldPrimary, newPrimary] = await Promise.all([startPrivateRedis(), startPrivateRedis()]);
  proxy = await startSilentProxy(oldPrimary.port);
});

afterAll(async () => {
  for (const admin of admins) admin.disconnect();
  await proxy?.close();
  await Promise.all([oldPrimary?.kill(), newPrimary?.kill()]);
});

function admin(server: PrivateRedis): Redis {
  const redis = new Redis(server.url);
  admins.push(redis);
  return redis;
}

/** The old primary made a replica of the new one, and the address moved to the new one. */
async function failOver(): Promise<void> {
  await admin(oldPrimary).replicaof('127.0.0.1', String(newPrimary.port));
  proxy.targetPort = newPrimary.port;
}

it('connects again on READONLY and reaches the new primary; the refused stores are logged once', async () => {
  const redis = await openRedis({ url: `redis://127.0.0.1:${proxy.port}`, commandTimeoutMs: 250 }, logger);
  try {
    const cache = new FailOpenCache(new RedisResponseCache(redis), logger, () => undefined);
    await cache.set('before', answer('stored before'), 60_000, TAGS);
    expect((await cache.get('before'))?.body.toString()).toBe('stored before');

    await failOver();
    // The open connection is on the replica now: PING answers, writes are refused.
    expect(await redis.ping()).toBe('PONG');
    await cache.set('during', answer('refused'), 60_000, TAGS);
    expect(events.filter((e) => e.event === 'redis_unavailable').map((e) => e.fields.error)).toContainEqual(expect.stringMatching(/^READONLY .*: the server is a replica now; connecting again$/));

    // The connection made again leads to the new primary: stores are taken there.
    const port = () => redis.config('GET', 'port').then((reply) => reply[1], () => 'reconnecting');
    await until(port, (answered) => answered === String(newPrimary.port), 5000, 'the connection on the new primary');
    await cache.set('after', answer('stored after'), 60_000, TAGS);
    expect((await cache.get('after'))?.body.toString()).toBe('stored after');
    const unavailable = events.filter((e) => e.event === 'cache_unavailable');
    expect(unavailable.length).toBeLessThanOrEqual(1);
    expect(unavailable.every((e) => e.fields.operation === 'set')).toBe(true);
  } finally {
    redis.disconnect();
  }
});

it('against an address that names a replica, fails the writes and reconnects at most once per interval; each kind of outage is logged once', async () => {
  const replica = await startPrivateRedis();
  try {
    await admin(replica).replicaof('127.0.0.1', String(newPrimary.port));
    events.length = 0;
    const redis = await openRedis({ url: replica.url, commandTimeoutMs: 250 }, logger);
    try {
      const cache = new FailOpenCache(new RedisResponseCache(redis), logger, () => undefined);
      // A request's lookup and store, twenty times over, as fast as they come.
      for (let i = 0; i < 20; i++) {
        await cache.get(`key-${i}`);
        await cache.set(`key-${i}`, answer('refused'), 60_000, TAGS);
      }
      const reconnects = events.filter((e) => e.event === 'redis_unavailable' && String(e.fields.error).startsWith('READONLY'));
      expect(reconnects).toHaveLength(1);
      // Stores are refused throughout: one outage. A lookup fails only while the one reconnection is made.
      const outages = events.filter((e) => e.event === 'cache_unavailable').map((e) => e.fields.operation);
      expect(outages.filter((operation) => operation === 'set')).toEqual(['set']);
      expect(outages.filter((operation) => operation === 'get').length).toBeLessThanOrEqual(1);
      expect(events.filter((e) => e.event === 'cache_shared_again').map((e) => e.fields.operation).filter((operation) => operation !== 'get')).toEqual([]);
      expect(READONLY_RECONNECT_EVERY_MS).toBeGreaterThanOrEqual(1000);
    } finally {
      redis.disconnect();
    }
  } finally {
    await replica.kill();
  }
});
