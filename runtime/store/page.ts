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
