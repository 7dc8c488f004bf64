-- Virtual keys (stored provider credentials). `sealed` holds the credential and secret options
-- encrypted with AES-256-GCM under the gateway's master key; nothing secret is stored in the clear.
CREATE TABLE virtual_keys (
  id              TEXT PRIMARY KEY,
  name            TEXT,
  slug            TEXT UNIQUE,
  provider        TEXT NOT NULL,
  options         TEXT NOT NULL,
  sealed          TEXT NOT NULL,
  key_hint        TEXT,
  secret_names    TEXT NOT NULL,
  version         INTEGER NOT NULL CHECK (version >= 1),
  created_at      TEXT NOT NULL,
  last_updated_at TEXT NOT NULL
);

CREATE INDEX virtual_keys_by_creation ON virtual_keys (created_at, id);
