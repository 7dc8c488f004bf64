// An emulated response's item IDs name the response that holds them (item-ids.ts): every input and
// output item ID gives its response's ID back, no two items of a response share one, and an ID of
// another provider's item (or a random one) names none.
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { inputItemId, outputItemIds, randomItemIds, responseIdOfItem } from '../../runtime/api/responses/item-ids.ts';

const responseId = fc.stringMatching(/^[0-9a-f]{32}$/).map((hex) => `resp_gw${hex}`);
const prefix = fc.constantFrom('msg', 'fc', 'rs', 'fco');

test.prop([responseId, fc.array(prefix, { minLength: 1, maxLength: 20 }), fc.nat(10_000)], { numRuns: 200 })('every item ID names its response, and a response\'s item IDs are distinct', (id, prefixes, place) => {
  const ids = outputItemIds(id);
  const made = [...prefixes.map((p) => ids(p)), ...prefixes.map((p, i) => inputItemId(id, p, place + i))];
  expect(new Set(made).size).toBe(made.length);
  for (const item of made) expect(responseIdOfItem(item)).toBe(id);
});

test.prop([prefix, fc.string({ maxLength: 40 }).filter((text) => !text.startsWith('gw'))], { numRuns: 200 })('another provider\'s item ID, or a random one, names no response', (p, text) => {
  expect(responseIdOfItem(randomItemIds(p))).toBeNull();
  expect(responseIdOfItem(`${p}_${text}`)).toBeNull();
});
