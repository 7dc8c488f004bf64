// Every write to a record kind calls recordChange inside its transaction: the kind's revision goes up
// by one (the upsert takes the row lock, so revisions commit in the order they are handed out) and
// the record's ID is logged under that revision for the change feed (change-feed.ts) to pick up.
import type { SqlExecutor } from './sql-database.ts';

/** Changes kept per kind; a process that falls further behind reloads the whole kind. */
export const CHANGE_LOG_KEEP = 1000;

export async function recordChange(tx: SqlExecutor, kind: string, recordId: string, keep: number = CHANGE_LOG_KEEP): Promise<number> {
  const row = await tx.get<{ revision: number }>(
    'INSERT INTO store_revisions (kind, revision) VALUES (?, 1) ON CONFLICT (kind) DO UPDATE SET revision = store_revisions.revision + 1 RETURNING revision',
    [kind],
  );
  const revision = Number(row?.revision);
  await tx.run('INSERT INTO store_changes (kind, revision, record_id) VALUES (?, ?, ?)', [kind, revision, recordId]);
  if (revision > keep) await tx.run('DELETE FROM store_changes WHERE kind = ? AND revision <= ?', [kind, revision - keep]);
  return revision;
}

let lastStamp = 0;

/**
 * ISO 8601 now, strictly increasing within this process, so records created one after another sort
 * in creation order by `created_at` even inside one millisecond (lists order by it).
 */
export function nowIso(): string {
  lastStamp = Math.max(Date.now(), lastStamp + 1);
  return new Date(lastStamp).toISOString();
}
