-- Rate-limits policies (SPEC §2.8). `conditions` and `group_by` are JSON arrays.
CREATE TABLE rate_limit_policies (
  id              TEXT PRIMARY KEY,
  name            TEXT,
  type            TEXT NOT NULL CHECK (type IN ('requests', 'tokens')),
  unit            TEXT NOT NULL CHECK (unit IN ('rpm', 'rph', 'rpd')),
  value           DOUBLE PRECISION NOT NULL CHECK (value >= 0),
  status          TEXT NOT NULL CHECK (status IN ('active', 'archived')),
  conditions      TEXT NOT NULL,
  group_by        TEXT NOT NULL,
  workspace_id    TEXT NOT NULL,
  organisation_id TEXT NOT NULL,
  created_at      TEXT NOT NULL,
  last_updated_at TEXT NOT NULL
);

CREATE INDEX rate_limit_policies_by_owner ON rate_limit_policies (organisation_id, status, created_at, id);
