-- Configs saved over the API. `config` is the JSON text as accepted (it compiled when saved).
CREATE TABLE saved_configs (
  id              TEXT PRIMARY KEY,
  name            TEXT,
  config          TEXT NOT NULL,
  version         INTEGER NOT NULL CHECK (version >= 1),
  created_at      TEXT NOT NULL,
  last_updated_at TEXT NOT NULL
);

CREATE INDEX saved_configs_by_creation ON saved_configs (created_at, id);
