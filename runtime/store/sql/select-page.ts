// One page of a table in creation order plus the count of every matching row: the list query of
// every record store, written once.
import { type Page, type PageRequest, pageClause } from '../page.ts';
import type { SqlDatabase, SqlValue } from './sql-database.ts';

export interface WhereClause {
  /** Empty, or ` WHERE …` with `?` placeholders. */
  sql: string;
  params: SqlValue[];
}

const EVERY_ROW: WhereClause = { sql: '', params: [] };

export async function selectPage<Row extends object, Item>(
  db: SqlDatabase,
  table: string,
  columns: string,
  page: PageRequest,
  toItem: (row: Row) => Item,
  where: WhereClause = EVERY_ROW,
): Promise<Page<Item>> {
  const limit = pageClause(page);
  const rows = await db.all<Row>(`SELECT ${columns} FROM ${table}${where.sql} ORDER BY created_at, id${limit.sql}`, [...where.params, ...limit.params]);
  const count = await db.get<{ n: number }>(`SELECT CAST(COUNT(*) AS INTEGER) AS n FROM ${table}${where.sql}`, where.params);
  return { items: rows.map(toItem), total: Number(count?.n ?? 0) };
}
