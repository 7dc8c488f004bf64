// REDIS_URL naming a node of a Redis Cluster is refused: the limit scripts and cache entries use keys
// in several hash slots, so a cluster would answer MOVED or CROSSSLOT to most calls and the gateway
// would count and cache per process for as long as it ran, with /v1/health saying ok.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { GatewayLogger } from '../../runtime/core/log.ts';
import { silentLogger } from '../../runtime/core/log.ts';
import { openRedis, REDIS_CLUSTER_UNSUPPORTED } from '../../runtime/store/redis/redis-connection.ts';
import { freePort, type PrivateRedis, startPrivateRedis } from '../e2e/serve-processes.ts';
import { until } from '../jobs/harness.ts';

let dir: string;
const servers: PrivateRedis[] = [];
const clusterNode = async (port?: number) => {
  const server = await startPrivateRedis({ port, args: ['--cluster-enabled', 'yes', '--cluster-config-file', join(dir, `nodes-${servers.length}.conf`)] });
  servers.push(server);
  return server;
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'gateway-redis-cluster-'));
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.kill()));
  await rm(dir, { recursive: true, force: true });
});

it('refuses a cluster node that answers at start', async () => {
  const node = await clusterNode();
  await expect(openRedis({ url: node.url, commandTimeoutMs: 250 }, silentLogger)).rejects.toThrow(REDIS_CLUSTER_UNSUPPORTED);
});

it('logs a cluster node that answers only later, and leaves it for process-local state', async () => {
  const events: Array<[string, Record<string, unknown>]> = [];
  const logger: GatewayLogger = { ...silentLogger, error: (event, fields = {}) => void events.push([event, fields]) };
  const port = await freePort();
  const redis = await openRedis({ url: `redis://127.0.0.1:${port}`, commandTimeoutMs: 250 }, logger);
  try {
    expect(redis.status).not.toBe('ready');
    await clusterNode(port);
    await until(async () => events, (seen) => seen.some(([event]) => event === 'redis_cluster_unsupported'), 10_000, 'the refusal logged');
    expect(events.find(([event]) => event === 'redis_cluster_unsupported')?.[1]).toMatchObject({ error: REDIS_CLUSTER_UNSUPPORTED });
    await until(async () => redis.status, (status) => status === 'end', 2000, 'the connection ended for good');
  } finally {
    redis.disconnect();
  }
});
