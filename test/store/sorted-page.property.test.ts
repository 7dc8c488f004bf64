// sortedPage (runtime/store/page.ts): a page of keys in sorted order, chosen with a heap near the
// start instead of a whole sort, is always the page of the sorted keys, duplicates and non-ASCII
// (surrogate pairs sort by code unit, as Array.prototype.sort does) included.
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { pageSlice, sortedPage } from '../../runtime/store/page.ts';

test.prop(
  [
    // Mostly long enough that a page near the start takes the heap's way (offset + limit under an eighth).
    fc.array(fc.string({ unit: fc.constantFrom('a', 'b', 'B', 'é', '😀', '\u0000', '"', '['), maxLength: 4 }), { maxLength: 400, size: 'max' }),
    fc.nat({ max: 30 }),
    fc.option(fc.integer({ min: 1, max: 20 }), { nil: null, freq: 8 }),
  ],
  { numRuns: 500 },
)('is the page of the sorted keys, whatever the keys and the page', (keys, offset, limit) => {
  const page = { offset, limit };
  const before = [...keys];
  expect(sortedPage(keys, page)).toEqual(pageSlice([...keys].sort(), page));
  // The keys are read, never reordered.
  expect(keys).toEqual(before);
});
