// UsageLimitPolicyStore on any SqlDatabase.
import { randomUUID } from 'node:crypto';
import type { Page, PageRequest } from '../page.ts';
import { selectPage } from './select-page.ts';
import type {
  NewUsageLimitPolicy, PeriodicReset, UsageLimitPolicy, UsageLimitPolicyFilter, UsageLimitPolicyPatch, UsageLimitPolicyStore, UsageLimitType,
} from '../usage-limit-policy-store.ts';
import { jsonOrUndefined, setColumns, whereEquals } from './clauses.ts';
import { RECORD_KINDS } from '../record-kinds.ts';
import { nowIso, recordChange } from './record-change.ts';
import type { SqlDatabase } from './sql-database.ts';
import { parseJson } from '../../../compiler/config/json-parse.ts';
import type { PolicyCondition, PolicyGroupBy } from '../policy-fields.ts';

const USAGE_LIMITS_KIND = RECORD_KINDS.usageLimits;

interface UsageLimitRow {
  id: string;
  name: string | null;
  type: string;
  credit_limit: number;
  alert_threshold: number | null;
  periodic_reset: string | null;
  conditions: string;
  group_by: string;
  workspace_id: string;
  organisation_id: string;
  created_at: string;
  last_updated_at: string;
}

const COLUMNS = 'id, name, type, credit_limit, alert_threshold, periodic_reset, conditions, group_by, workspace_id, organisation_id, created_at, last_updated_at';

export class SqlUsageLimitPolicyStore implements UsageLimitPolicyStore {
  readonly #db: SqlDatabase;

  constructor(db: SqlDatabase) {
    this.#db = db;
  }

  async create(input: NewUsageLimitPolicy): Promise<UsageLimitPolicy> {
    const now = nowIso();
    const policy: UsageLimitPolicy = { id: randomUUID(), ...input, createdAt: now, lastUpdatedAt: now };
    await this.#db.transaction(async (tx) => {
      await tx.run(`INSERT INTO usage_limit_policies (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
        policy.id, policy.name, policy.type, policy.creditLimit, policy.alertThreshold, policy.periodicReset,
        JSON.stringify(policy.conditions), JSON.stringify(policy.groupBy), policy.workspaceId, policy.organisationId, now, now,
      ]);
      await recordChange(tx, USAGE_LIMITS_KIND, policy.id);
    });
    return policy;
  }

  async get(id: string): Promise<UsageLimitPolicy | null> {
    const row = await this.#db.get<UsageLimitRow>(`SELECT ${COLUMNS} FROM usage_limit_policies WHERE id = ?`, [id]);
    return row === undefined ? null : toPolicy(row);
  }

  async list(filter: UsageLimitPolicyFilter, page: PageRequest): Promise<Page<UsageLimitPolicy>> {
    const where = whereEquals([
      ['organisation_id', filter.organisationId],
      ['workspace_id', filter.workspaceId],
      ['type', filter.type],
    ]);
    return selectPage(this.#db, 'usage_limit_policies', COLUMNS, page, toPolicy, where);
  }

  async update(id: string, patch: UsageLimitPolicyPatch): Promise<UsageLimitPolicy | null> {
    const set = setColumns([
      ['name', patch.name],
      ['credit_limit', patch.creditLimit],
      ['alert_threshold', patch.alertThreshold],
      ['periodic_reset', patch.periodicReset],
      ['conditions', jsonOrUndefined(patch.conditions)],
      ['group_by', jsonOrUndefined(patch.groupBy)],
      ['last_updated_at', nowIso()],
    ]);
    return this.#db.transaction(async (tx) => {
      const row = await tx.get<UsageLimitRow>(`UPDATE usage_limit_policies SET ${set.sql} WHERE id = ? RETURNING ${COLUMNS}`, [...set.params, id]);
      if (row === undefined) return null;
      await recordChange(tx, USAGE_LIMITS_KIND, id);
      return toPolicy(row);
    });
  }

  async delete(id: string): Promise<boolean> {
    return this.#db.transaction(async (tx) => {
      const changed = await tx.run('DELETE FROM usage_limit_policies WHERE id = ?', [id]);
      if (changed === 0) return false;
      // What its groups spent goes with it (the journal of budget-journal.ts).
      await tx.run('DELETE FROM usage_budgets WHERE policy_id = ?', [id]);
      await recordChange(tx, USAGE_LIMITS_KIND, id);
      return true;
    });
  }
}

function toPolicy(row: UsageLimitRow): UsageLimitPolicy {
  return {
    id: row.id,
    name: row.name,
    type: row.type as UsageLimitType,
    creditLimit: Number(row.credit_limit),
    alertThreshold: row.alert_threshold === null ? null : Number(row.alert_threshold),
    periodicReset: row.periodic_reset as PeriodicReset | null,
    conditions: parseJson(row.conditions) as PolicyCondition[],
    groupBy: parseJson(row.group_by) as PolicyGroupBy[],
    workspaceId: row.workspace_id,
    organisationId: row.organisation_id,
    createdAt: row.created_at,
    lastUpdatedAt: row.last_updated_at,
  };
}
