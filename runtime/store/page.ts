// Offset pagination shared by every list: the API's `page_size` / `current_page` (SPEC §4.13) map to
// `limit` / `offset`, and `total` counts every matching record, not just the page.

export interface PageRequest {
  /** null: every record from `offset` on. */
  limit: number | null;
  offset: number;
}

export interface Page<T> {
  items: T[];
  total: number;
}

export const ALL: PageRequest = Object.freeze({ limit: null, offset: 0 });

/** One page of `items` (already in their listing order). */
export function pageSlice<T>(items: readonly T[], page: PageRequest): T[] {
  return page.limit === null ? items.slice(page.offset) : items.slice(page.offset, page.offset + page.limit);
}

/** The LIMIT/OFFSET clause and its parameters, in the form both dialects accept (an offset needs a limit). */
export function pageClause(page: PageRequest): { sql: string; params: number[] } {
  if (page.limit === null) return page.offset > 0 ? { sql: ' LIMIT ? OFFSET ?', params: [Number.MAX_SAFE_INTEGER, page.offset] } : { sql: '', params: [] };
  return { sql: ' LIMIT ? OFFSET ?', params: [page.limit, page.offset] };
}

/**
 * One page of `keys` in sorted order (code-unit order, as `Array.prototype.sort`). A page near the
 * start is chosen without sorting them all: the first offset + limit are kept in a heap as the keys
 * go by, which reads a million keys in tens of ms where a sort takes about a second (a usage listing
 * of a policy grouped by user, on the serving thread). Later pages sort everything.
 */
export function sortedPage(keys: readonly string[], page: PageRequest): string[] {
  const wanted = page.limit === null ? keys.length : page.offset + page.limit;
  if (wanted * 8 >= keys.length) return pageSlice([...keys].sort(), page);
  const heap = smallest(keys, wanted);
  return pageSlice(heap.sort(), page);
}

/** The `count` smallest of `keys` (count ≥ 1), unordered: a max-heap whose root is the largest kept. */
function smallest(keys: readonly string[], count: number): string[] {
  const heap: string[] = [];
  for (const key of keys) {
    if (heap.length < count) {
      // Sift up.
      let i = heap.push(key) - 1;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (heap[parent]! >= heap[i]!) break;
        [heap[parent], heap[i]] = [heap[i]!, heap[parent]!];
        i = parent;
      }
    } else if (key < heap[0]!) {
      // Replace the largest kept and sift down.
      heap[0] = key;
      for (let i = 0; ; ) {
        const left = 2 * i + 1;
        const right = left + 1;
        let largest = i;
        if (left < count && heap[left]! > heap[largest]!) largest = left;
        if (right < count && heap[right]! > heap[largest]!) largest = right;
        if (largest === i) break;
        [heap[largest], heap[i]] = [heap[i]!, heap[largest]!];
        i = largest;
      }
    }
  }
  return heap;
}
