-- What each usage-limit group has spent in a period, kept so a restart does not start budgets over
-- (runtime/pipeline/limits/budget-journal.ts). Counts live in memory; each process adds what it
-- charged since its last write (used = used + delta), so processes sharing a store never overwrite
-- each other's spend. ends_ms: when the period ends (NULL: a cumulative budget, kept for ever).
CREATE TABLE usage_budgets (
  policy_id TEXT NOT NULL,
  period    TEXT NOT NULL,
  group_key TEXT NOT NULL,
  used      REAL NOT NULL,
  ends_ms   INTEGER,
  PRIMARY KEY (policy_id, period, group_key)
);
