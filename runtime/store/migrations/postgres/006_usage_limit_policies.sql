-- Usage-limits policies (SPEC §2.9, §4.11). The CHECK keeps the threshold below the limit even when
-- two processes update the two fields at once.
CREATE TABLE usage_limit_policies (
  id              TEXT PRIMARY KEY,
  name            TEXT,
  type            TEXT NOT NULL CHECK (type IN ('cost', 'tokens')),
  credit_limit    DOUBLE PRECISION NOT NULL CHECK (credit_limit >= 0),
  alert_threshold DOUBLE PRECISION CHECK (alert_threshold IS NULL OR (alert_threshold >= 0 AND alert_threshold < credit_limit)),
  periodic_reset  TEXT CHECK (periodic_reset IS NULL OR periodic_reset IN ('monthly', 'weekly')),
  conditions      TEXT NOT NULL,
  group_by        TEXT NOT NULL,
  workspace_id    TEXT NOT NULL,
  organisation_id TEXT NOT NULL,
  created_at      TEXT NOT NULL,
  last_updated_at TEXT NOT NULL
);

CREATE INDEX usage_limit_policies_by_owner ON usage_limit_policies (organisation_id, created_at, id);
