// UsageBudgetStore on any SqlDatabase: an upsert that adds (never sets) a spend, so processes that
// share a store each add their own charges and none overwrites another's.
import type { BudgetSpend, UsageBudgetStore } from '../usage-budget-store.ts';
import { marks } from './clauses.ts';
import type { SqlDatabase, SqlExecutor } from './sql-database.ts';

const ADD = `INSERT INTO usage_budgets (policy_id, period, group_key, used, ends_ms) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (policy_id, period, group_key) DO UPDATE SET used = usage_budgets.used + excluded.used
  RETURNING used`;

interface BudgetRow {
  policy_id: string;
  period: string;
  group_key: string;
  used: number;
  /** PostgreSQL gives a BIGINT as a string. */
  ends_ms: number | string | null;
}

export class SqlUsageBudgetStore implements UsageBudgetStore {
  readonly #db: SqlDatabase;

  constructor(db: SqlDatabase) {
    this.#db = db;
  }

  async add(spends: readonly BudgetSpend[]): Promise<Array<number | null>> {
    if (spends.length === 0) return [];
    // Rows in one order for every writer: PostgreSQL locks each row as it is upserted, and two
    // processes writing the same groups in different orders deadlocked (one transaction aborted).
    const order = spends.map((_, i) => i).sort((a, b) => byRow(spends[a]!, spends[b]!));
    const totals = new Array<number | null>(spends.length).fill(null);
    await this.#db.transaction(async (tx) => {
      const live = await this.#livePolicies(tx, spends);
      for (const i of order) {
        const s = spends[i]!;
        if (!live.has(s.policyId)) continue;
        const row = await tx.get<{ used: number }>(ADD, [s.policyId, s.period, s.group, s.used, s.endsAt]);
        totals[i] = Number(row!.used);
      }
    });
    return totals;
  }

  /**
   * The spends' policies that still exist. On PostgreSQL each is locked (KEY SHARE, which writers
   * share with each other) before any budget row: deleting a policy locks its row first too, so the
   * delete waits for a write in flight and then removes its rows, or the write waits for the delete
   * and stores nothing. Without it a write landing after the delete left rows of a policy that is
   * gone, and the two could lock budget rows in opposite orders and deadlock. SQLite writes one
   * transaction at a time, so reading the rows is enough there.
   */
  async #livePolicies(tx: SqlExecutor, spends: readonly BudgetSpend[]): Promise<Set<string>> {
    const ids = [...new Set(spends.map((s) => s.policyId))].sort(compare);
    const lock = this.#db.dialect === 'postgres' ? ' ORDER BY id FOR KEY SHARE' : '';
    const rows = await tx.all<{ id: string }>(`SELECT id FROM usage_limit_policies WHERE id IN (${marks(ids.length)})${lock}`, ids);
    return new Set(rows.map((row) => row.id));
  }

  async load(now: number): Promise<BudgetSpend[]> {
    const rows = await this.#db.all<BudgetRow>('SELECT policy_id, period, group_key, used, ends_ms FROM usage_budgets WHERE ends_ms IS NULL OR ends_ms > ?', [now]);
    return rows.map((row) => ({ policyId: row.policy_id, period: row.period, group: row.group_key, used: Number(row.used), endsAt: row.ends_ms === null ? null : Number(row.ends_ms) }));
  }

  deleteEnded(before: number, limit: number): Promise<number> {
    // Bounded: on SQLite the delete runs on the serving thread, and a month's groups can be many.
    return this.#db.run(
      'DELETE FROM usage_budgets WHERE (policy_id, period, group_key) IN (SELECT policy_id, period, group_key FROM usage_budgets WHERE ends_ms IS NOT NULL AND ends_ms < ? LIMIT ?)',
      [before, limit],
    );
  }
}

function byRow(a: BudgetSpend, b: BudgetSpend): number {
  return compare(a.policyId, b.policyId) || compare(a.period, b.period) || compare(a.group, b.group);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
