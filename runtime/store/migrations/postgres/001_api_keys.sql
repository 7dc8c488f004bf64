-- Gateway API keys. Only the SHA-256 of a key is stored; the plaintext is shown once at creation.
CREATE TABLE api_keys (
  id              TEXT PRIMARY KEY,
  key_hash        TEXT NOT NULL UNIQUE,
  name            TEXT NOT NULL,
  scope           TEXT NOT NULL CHECK (scope IN ('admin', 'inference')),
  workspace_id    TEXT NOT NULL,
  organisation_id TEXT NOT NULL,
  created_at      TEXT NOT NULL,
  revoked_at      TEXT
);

-- Values generated once per installation, such as the default workspace and organisation IDs.
CREATE TABLE gateway_settings (
  name  TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
