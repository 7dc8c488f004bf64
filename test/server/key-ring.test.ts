// The in-memory key ring follows the store's change feed: a change to some keys reads only those
// keys again (a created key authenticates, a revoked one is refused at once, even on a connection
// that already used it), and a feed that lost track reloads every key.
import { describe, expect, it } from 'vitest';
import { ApiKeyRing } from '../../runtime/server/auth.ts';
import type { ApiKeyStore } from '../../runtime/store/api-key-store.ts';
import { openStore } from '../../runtime/store/open-store.ts';
import { tempDataDir } from './helpers.ts';

/** The store, counting full reads of every active key. */
function counting(keys: ApiKeyStore): { store: ApiKeyStore; fullReads: () => number } {
  let full = 0;
  const wrapped = Object.create(keys) as ApiKeyStore;
  wrapped.loadActive = () => {
    full++;
    return keys.loadActive();
  };
  wrapped.loadActiveByIds = (ids) => keys.loadActiveByIds(ids);
  return { store: wrapped, fullReads: () => full };
}

const status = (ring: ApiKeyRing, key: string, connection?: object): string => {
  try {
    ring.authenticate(key, connection);
    return 'ok';
  } catch (error) {
    return (error as { code: string }).code;
  }
};

describe('key ring', () => {
  it('applies a change to some keys without reading every key', async () => {
    const data = tempDataDir();
    const store = openStore(data.dir);
    try {
      const kept = await store.apiKeys.create({ name: 'kept' });
      const { store: keys, fullReads } = counting(store.apiKeys);
      const ring = new ApiKeyRing(keys);
      await ring.reload();
      expect(fullReads()).toBe(1);

      const created = await store.apiKeys.create({ name: 'new' });
      expect(status(ring, created.key)).toBe('invalid_gateway_api_key');
      await ring.onChange({ kind: 'api_keys', all: false, ids: [created.record.id] });
      const connection = {};
      expect(status(ring, created.key, connection)).toBe('ok');

      await store.apiKeys.revoke(created.record.id);
      await ring.onChange({ kind: 'api_keys', all: false, ids: [created.record.id] });
      // Refused at once, on the connection that had used it too.
      expect(status(ring, created.key, connection)).toBe('invalid_gateway_api_key');
      expect(status(ring, kept.key)).toBe('ok');
      expect(ring.size).toBe(1);
      expect(fullReads()).toBe(1);

      // A feed that lost track: every key is read again.
      await store.apiKeys.revoke(kept.record.id);
      await ring.onChange({ kind: 'api_keys', all: true });
      expect(fullReads()).toBe(2);
      expect(status(ring, kept.key)).toBe('invalid_gateway_api_key');
    } finally {
      await store.close();
      data.remove();
    }
  });
});
