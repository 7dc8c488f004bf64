-- Files the gateway keeps itself (uploads routed to no provider with a files API, and the output and
-- error files of gateway-managed batches). Contents are base64 chunks of 1 MiB, in order of seq.
CREATE TABLE gateway_files (
  id              TEXT PRIMARY KEY,
  organisation_id TEXT NOT NULL,
  purpose         TEXT NOT NULL,
  filename        TEXT NOT NULL,
  bytes           INTEGER NOT NULL CHECK (bytes >= 0),
  created_at      INTEGER NOT NULL,
  created_iso     TEXT NOT NULL
);

CREATE INDEX gateway_files_by_creation ON gateway_files (organisation_id, created_iso, id);

CREATE TABLE gateway_file_chunks (
  file_id TEXT NOT NULL,
  seq     INTEGER NOT NULL CHECK (seq >= 0),
  data    TEXT NOT NULL,
  PRIMARY KEY (file_id, seq)
);
