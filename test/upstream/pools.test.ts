// One pool per origin, reused; its settings bound the sockets one provider can take.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startVendorMock } from '../mocks/vendor/index.ts';
import type { VendorMock } from '../mocks/vendor/index.ts';
import { closeAllPools, configurePools, DEFAULT_POOL_SETTINGS, poolFor, poolSettings } from '../../runtime/upstream/pools.ts';
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
