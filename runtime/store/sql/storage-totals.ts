// What each organisation keeps, per kind, all together: the `storage_totals` table (migration 204),
// changed in the same transaction as the rows it counts, so the storage limits' checks read one row
// instead of summing an organisation's files or responses.
import type { SqlExecutor } from './sql-database.ts';

export type StorageKind = 'files' | 'responses';

/** A deleted row's organisation and size, as `DELETE … RETURNING organisation_id, bytes` gives it. */
export interface ReleasedRow {
  organisation_id: string;
  bytes: number | string;
}

/** Adds `bytes` to what the organisation keeps of `kind`. */
export async function addStored(tx: SqlExecutor, kind: StorageKind, organisationId: string, bytes: number): Promise<void> {
  await tx.run(
    'INSERT INTO storage_totals (organisation_id, kind, bytes) VALUES (?, ?, ?) ON CONFLICT (organisation_id, kind) DO UPDATE SET bytes = storage_totals.bytes + excluded.bytes',
    [organisationId, kind, bytes],
  );
}

/**
 * Takes deleted rows off their organisations' totals, in one order of organisations, so two
 * transactions releasing rows of the same organisations (two processes' retention sweeps) cannot
 * deadlock on PostgreSQL.
 */
export async function releaseStored(tx: SqlExecutor, kind: StorageKind, deleted: readonly ReleasedRow[]): Promise<void> {
  const freed = new Map<string, number>();
  for (const row of deleted) freed.set(row.organisation_id, (freed.get(row.organisation_id) ?? 0) + Number(row.bytes));
  for (const organisationId of [...freed.keys()].sort()) {
    await tx.run('UPDATE storage_totals SET bytes = bytes - ? WHERE organisation_id = ? AND kind = ?', [freed.get(organisationId)!, organisationId, kind]);
  }
}

/** What the organisation keeps of `kind`, in bytes. */
export async function storedTotal(db: SqlExecutor, kind: StorageKind, organisationId: string): Promise<number> {
  // PostgreSQL's BIGINT comes from the driver as a string.
  const row = await db.get<{ bytes: number | string }>('SELECT bytes FROM storage_totals WHERE organisation_id = ? AND kind = ?', [organisationId, kind]);
  return Number(row?.bytes ?? 0);
}
