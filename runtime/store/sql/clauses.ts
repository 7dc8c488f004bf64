// Builds WHERE and SET clauses from fixed column names (never from input) and bound values.
import type { SqlValue } from './sql-database.ts';

/** `column = ?` for every pair whose value is defined, joined with AND. */
export function whereEquals(pairs: ReadonlyArray<readonly [column: string, value: SqlValue | undefined]>): { sql: string; params: SqlValue[] } {
  const used = pairs.filter((pair): pair is readonly [string, SqlValue] => pair[1] !== undefined);
  if (used.length === 0) return { sql: '', params: [] };
  return { sql: ` WHERE ${used.map(([column]) => `${column} = ?`).join(' AND ')}`, params: used.map(([, value]) => value) };
}

/** `column = ?` for every pair whose value is defined, joined with commas. */
export function setColumns(pairs: ReadonlyArray<readonly [column: string, value: SqlValue | undefined]>): { sql: string; params: SqlValue[] } {
  const used = pairs.filter((pair): pair is readonly [string, SqlValue] => pair[1] !== undefined);
  return { sql: used.map(([column]) => `${column} = ?`).join(', '), params: used.map(([, value]) => value) };
}

/** `?, ?, ?`: one bound-value mark for each of `count` values (a row of VALUES, an IN list). */
export function marks(count: number): string {
  return Array.from({ length: count }, () => '?').join(', ');
}

/** JSON text of a value, or undefined when the value is (so the column is left alone). */
export function jsonOrUndefined(value: unknown): string | undefined {
  return value === undefined ? undefined : JSON.stringify(value);
}
