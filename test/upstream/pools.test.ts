// One pool per origin, reused; its settings bound the sockets one provider can take.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startVendorMock } from '../mocks/vendor/index.ts';
import type { VendorMock } from '../mocks/vendor/index.ts';
import { closeAllPools, configurePools, DEFAULT_POOL_SETTINGS, poolFor, poolSettings, poolSettingsFromEnv, upstreamPoolCount } from '../../runtime/upstream/pools.ts';
import { send } from '../../runtime/upstream/send.ts';
import { chatStream, listModels } from './upstream-requests.ts';

let mock: VendorMock;

beforeAll(async () => {
  mock = await startVendorMock();
});

afterEach(async () => {
  await closeAllPools();
  configurePools(DEFAULT_POOL_SETTINGS);
});

afterAll(async () => {
  await mock.close();
});

describe('pools', () => {
  it('reuses one pool per origin, whatever the spelling', () => {
    const pool = poolFor('http://127.0.0.1:8080');
    expect(poolFor('http://127.0.0.1:8080')).toBe(pool);
    expect(poolFor('HTTP://127.0.0.1:8080/')).toBe(pool);
    expect(poolFor('https://127.0.0.1:8080')).not.toBe(pool);
    expect(poolFor('http://127.0.0.1:8081')).not.toBe(pool);
  });

  it('starts fresh pools after closeAllPools', async () => {
    const pool = poolFor(mock.url);
    await closeAllPools();
    expect(pool.closed).toBe(true);
    expect(poolFor(mock.url)).not.toBe(pool);
  });

  it('rejects settings that would disable a limit', () => {
    expect(() => configurePools({ connections: 0 })).toThrow(RangeError);
    expect(() => configurePools({ connections: 1.5 })).toThrow(RangeError);
    expect(() => configurePools({ headersTimeoutMs: Number.NaN })).toThrow(RangeError);
    expect(poolSettings()).toEqual(DEFAULT_POOL_SETTINGS);
  });

  it('never opens more sockets to an origin than `connections`', async () => {
    configurePools({ connections: 2 });
    mock.script({ stallAfter: 1, times: 2 });
    const before = mock.requests.length;
    const first = await send(chatStream(mock.url, 20));
    const second = await send(chatStream(mock.url, 20));
    const third = send(listModels(mock.url));
    await new Promise((r) => setTimeout(r, 100));
    expect(mock.requests.length - before).toBe(2);
    first.discard();
    const answered = await third;
    expect(answered.status).toBe(200);
    await answered.readAll();
    second.discard();
  });

  it('closes within the grace period even with a body nobody reads', async () => {
    mock.script({ stallAfter: 1 });
    const held = await send(chatStream(mock.url, 20));
    const started = Date.now();
    await closeAllPools(200);
    expect(Date.now() - started).toBeLessThan(2000);
    held.discard();
  });
});

describe('the pool map is bounded', () => {
  it('keeps at most maxPools pools, closing the least recently used idle one', async () => {
    configurePools({ maxPools: 3 });
    try {
      const first = poolFor('http://127.0.0.1:40001');
      poolFor('http://127.0.0.1:40002');
      poolFor('http://127.0.0.1:40003');
      poolFor('http://127.0.0.1:40001');
      for (let port = 40004; port < 40060; port++) {
        poolFor(`http://127.0.0.1:${port}`);
        expect(upstreamPoolCount()).toBeLessThanOrEqual(3);
      }
      expect(first.closed || first.destroyed).toBe(true);
      // A closed pool is never handed out: its origin gets a new one.
      expect(poolFor('http://127.0.0.1:40001')).not.toBe(first);
    } finally {
      await closeAllPools();
      configurePools(DEFAULT_POOL_SETTINGS);
    }
  });

  it('reads its bounds and the upstream timeouts from the environment', () => {
    expect(poolSettingsFromEnv({ GATEWAY_UPSTREAM_HEADERS_TIMEOUT_MS: '5000', GATEWAY_UPSTREAM_IDLE_TIMEOUT_MS: '7000', GATEWAY_UPSTREAM_MAX_POOLS: '9' })).toEqual({ headersTimeoutMs: 5000, bodyTimeoutMs: 7000, maxPools: 9 });
    expect(() => poolSettingsFromEnv({ GATEWAY_UPSTREAM_MAX_POOLS: '0' })).toThrow(/GATEWAY_UPSTREAM_MAX_POOLS/);
    expect(DEFAULT_POOL_SETTINGS.headersTimeoutMs).toBe(60_000);
  });
});
