// RateLimitPolicyStore on any SqlDatabase.
import { randomUUID } from 'node:crypto';
import type { Page, PageRequest } from '../page.ts';
import { selectPage } from './select-page.ts';
import type {
  NewRateLimitPolicy, PolicyStatus, RateLimitPolicy, RateLimitPolicyFilter, RateLimitPolicyPatch, RateLimitPolicyStore, RateLimitType, RateLimitUnit,
} from '../rate-limit-policy-store.ts';
import { jsonOrUndefined, setColumns, whereEquals } from './clauses.ts';
import { RECORD_KINDS } from '../record-kinds.ts';
import { nowIso, recordChange } from './record-change.ts';
import type { SqlDatabase } from './sql-database.ts';
import { parseJson } from '../../../compiler/config/json-parse.ts';
import type { PolicyCondition, PolicyGroupBy } from '../policy-fields.ts';

const RATE_LIMITS_KIND = RECORD_KINDS.rateLimits;

interface RateLimitRow {
  id: string;
  name: string | null;
  type: string;
  unit: string;
  value: number;
  status: string;
  conditions: string;
  group_by: string;
  workspace_id: string;
  organisation_id: string;
  created_at: string;
  last_updated_at: string;
}

const COLUMNS = 'id, name, type, unit, value, status, conditions, group_by, workspace_id, organisation_id, created_at, last_updated_at';

export class SqlRateLimitPolicyStore implements RateLimitPolicyStore {
  readonly #db: SqlDatabase;

  constructor(db: SqlDatabase) {
    this.#db = db;
  }

  async create(input: NewRateLimitPolicy): Promise<RateLimitPolicy> {
    const now = nowIso();
    const policy: RateLimitPolicy = { id: randomUUID(), ...input, status: 'active', createdAt: now, lastUpdatedAt: now };
    await this.#db.transaction(async (tx) => {
      await tx.run(`INSERT INTO rate_limit_policies (${COLUMNS}) VALUES (?, ?, ?, ?, ?, 'active', ?, ?, ?, ?, ?, ?)`, [
        policy.id, policy.name, policy.type, policy.unit, policy.value, JSON.stringify(policy.conditions), JSON.stringify(policy.groupBy),
        policy.workspaceId, policy.organisationId, now, now,
      ]);
      await recordChange(tx, RATE_LIMITS_KIND, policy.id);
    });
    return policy;
  }

  async get(id: string): Promise<RateLimitPolicy | null> {
    const row = await this.#db.get<RateLimitRow>(`SELECT ${COLUMNS} FROM rate_limit_policies WHERE id = ?`, [id]);
    return row === undefined ? null : toPolicy(row);
  }

  async list(filter: RateLimitPolicyFilter, page: PageRequest): Promise<Page<RateLimitPolicy>> {
    const where = whereEquals([
      ['organisation_id', filter.organisationId],
      ['workspace_id', filter.workspaceId],
      ['status', filter.status],
      ['type', filter.type],
      ['unit', filter.unit],
    ]);
    return selectPage(this.#db, 'rate_limit_policies', COLUMNS, page, toPolicy, where);
  }

  async update(id: string, patch: RateLimitPolicyPatch): Promise<RateLimitPolicy | null> {
    const set = setColumns([
      ['name', patch.name],
      ['type', patch.type],
      ['unit', patch.unit],
      ['value', patch.value],
      ['conditions', jsonOrUndefined(patch.conditions)],
      ['group_by', jsonOrUndefined(patch.groupBy)],
      ['last_updated_at', nowIso()],
    ]);
    return this.#db.transaction(async (tx) => {
      const row = await tx.get<RateLimitRow>(`UPDATE rate_limit_policies SET ${set.sql} WHERE id = ? AND status = 'active' RETURNING ${COLUMNS}`, [...set.params, id]);
      if (row === undefined) return null;
      await recordChange(tx, RATE_LIMITS_KIND, id);
      return toPolicy(row);
    });
  }

  async archive(id: string): Promise<RateLimitPolicy | null> {
    return this.#db.transaction(async (tx) => {
      const changed = await tx.run("UPDATE rate_limit_policies SET status = 'archived', last_updated_at = ? WHERE id = ? AND status = 'active'", [nowIso(), id]);
      if (changed > 0) await recordChange(tx, RATE_LIMITS_KIND, id);
      const row = await tx.get<RateLimitRow>(`SELECT ${COLUMNS} FROM rate_limit_policies WHERE id = ?`, [id]);
      return row === undefined ? null : toPolicy(row);
    });
  }

  async delete(id: string): Promise<boolean> {
    return this.#db.transaction(async (tx) => {
      const changed = await tx.run('DELETE FROM rate_limit_policies WHERE id = ?', [id]);
      if (changed > 0) await recordChange(tx, RATE_LIMITS_KIND, id);
      return changed > 0;
    });
  }
}

function toPolicy(row: RateLimitRow): RateLimitPolicy {
  return {
    id: row.id,
    name: row.name,
    type: row.type as RateLimitType,
    unit: row.unit as RateLimitUnit,
    value: Number(row.value),
    status: row.status as PolicyStatus,
    conditions: parseJson(row.conditions) as PolicyCondition[],
    groupBy: parseJson(row.group_by) as PolicyGroupBy[],
    workspaceId: row.workspace_id,
    organisationId: row.organisation_id,
    createdAt: row.created_at,
    lastUpdatedAt: row.last_updated_at,
  };
}
