-- Prompt templates: one row per prompt, one per version; versions count up from 1 without gaps.
CREATE TABLE prompts (
  id              TEXT PRIMARY KEY,
  name            TEXT NOT NULL,
  latest_version  INTEGER NOT NULL CHECK (latest_version >= 1),
  created_at      TEXT NOT NULL,
  last_updated_at TEXT NOT NULL
);

CREATE INDEX prompts_by_creation ON prompts (created_at, id);

CREATE TABLE prompt_versions (
  prompt_id   TEXT NOT NULL REFERENCES prompts (id) ON DELETE CASCADE,
  version     INTEGER NOT NULL CHECK (version >= 1),
  template    TEXT NOT NULL,
  description TEXT,
  created_at  TEXT NOT NULL,
  PRIMARY KEY (prompt_id, version)
);
