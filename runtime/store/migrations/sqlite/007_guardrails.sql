-- Named guardrails stored over the API. `guardrail` is the JSON text as accepted (its checks passed
-- the compiler's checks when it was saved).
CREATE TABLE guardrails (
  id              TEXT PRIMARY KEY,
  name            TEXT,
  guardrail       TEXT NOT NULL,
  version         INTEGER NOT NULL CHECK (version >= 1),
  created_at      TEXT NOT NULL,
  last_updated_at TEXT NOT NULL
);

CREATE INDEX guardrails_by_creation ON guardrails (created_at, id);
