-- The change feed that keeps every process's in-memory copies current (docs/store.md). Each write
-- bumps its kind's revision and logs the record it touched, in the same transaction.
CREATE TABLE store_revisions (
  kind     TEXT PRIMARY KEY,
  revision INTEGER NOT NULL
);

CREATE TABLE store_changes (
  kind      TEXT NOT NULL,
  revision  INTEGER NOT NULL,
  record_id TEXT NOT NULL,
  PRIMARY KEY (kind, revision)
);
