// The nearly-LRU map of compiled configs (runtime/inference/lru.ts), with weights: whatever is set
// and read, it never holds more entries than its capacity nor more weight than its bound (but for
// the newest entry alone), its weight is what the entries it holds weigh, and the entry just set is
// always there.
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { LruMap } from '../../runtime/inference/lru.ts';

const op = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), key: fc.integer({ min: 0, max: 40 }), weight: fc.integer({ min: 0, max: 300 }) }),
  fc.record({ kind: fc.constant('get' as const), key: fc.integer({ min: 0, max: 40 }) }),
);

test.prop([fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 1000 }), fc.array(op, { maxLength: 200 })], { numRuns: 300 })(
  'holds at most its capacity and its weight, and always the entry just set',
  (capacity, maxWeight, ops) => {
    const map = new LruMap<number, string>(capacity, maxWeight);
    const weights = new Map<number, number>();
    for (const o of ops) {
      if (o.kind === 'get') {
        map.get(o.key);
        continue;
      }
      map.set(o.key, `v${o.key}`, o.weight);
      weights.set(o.key, o.weight);
      expect(map.get(o.key)).toBe(`v${o.key}`);
      expect(map.size).toBeLessThanOrEqual(capacity);
      if (map.size > 1) expect(map.weight).toBeLessThanOrEqual(maxWeight);
      // The weight is what the present entries weigh.
      let present = 0;
      for (const [key, weight] of weights) {
        if (map.get(key) !== undefined) present += weight;
      }
      expect(map.weight).toBe(present);
    }
  },
);

test.prop([fc.array(fc.integer({ min: 0, max: 1000 }), { maxLength: 300 })], { numRuns: 100 })('without weights, keeps its capacity as before', (keys) => {
  const map = new LruMap<number, number>(50);
  for (const key of keys) map.set(key, key);
  expect(map.size).toBeLessThanOrEqual(50);
  expect(map.weight).toBe(0);
});
