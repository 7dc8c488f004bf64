-- Gateway-managed batches (docs/jobs.md). `route` holds the routing headers of the create request,
-- sealed under the master key (they may carry provider credentials). `content_file_id` is the
-- gateway file the lines are read from: the input file itself, or the gateway's copy of a file that
-- lives at the provider. The process running a batch holds a lease (`lease_owner` until
-- `lease_expires_ms`); an expired lease is taken over, so a batch whose process died resumes
-- elsewhere or after a restart.
CREATE TABLE gateway_batches (
  id                TEXT PRIMARY KEY,
  organisation_id   TEXT NOT NULL,
  endpoint          TEXT NOT NULL,
  input_file_id     TEXT NOT NULL,
  content_file_id   TEXT NOT NULL,
  completion_window TEXT NOT NULL,
  status            TEXT NOT NULL CHECK (status IN ('validating', 'failed', 'in_progress', 'finalizing', 'completed', 'expired', 'cancelling', 'cancelled')),
  created_at        BIGINT NOT NULL,
  created_iso       TEXT NOT NULL,
  in_progress_at    BIGINT,
  expires_at        BIGINT,
  finalizing_at     BIGINT,
  completed_at      BIGINT,
  failed_at         BIGINT,
  expired_at        BIGINT,
  cancelling_at     BIGINT,
  cancelled_at      BIGINT,
  output_file_id    TEXT,
  error_file_id     TEXT,
  total             INTEGER,
  completed         INTEGER,
  failed            INTEGER,
  metadata          TEXT,
  errors            TEXT,
  route             TEXT NOT NULL,
  lease_owner       TEXT,
  lease_expires_ms  BIGINT
);

CREATE INDEX gateway_batches_by_creation ON gateway_batches (organisation_id, created_iso, id);
CREATE INDEX gateway_batches_by_status ON gateway_batches (status, lease_expires_ms);

-- One row per input line that has its result; the primary key makes a line's result land once,
-- whatever a restart or a lost lease makes run twice. Rows move into the output and error files
-- when the batch settles, and are then deleted.
CREATE TABLE gateway_batch_results (
  batch_id   TEXT NOT NULL,
  line_index INTEGER NOT NULL CHECK (line_index >= 0),
  outcome    TEXT NOT NULL CHECK (outcome IN ('output', 'error')),
  line       TEXT NOT NULL,
  PRIMARY KEY (batch_id, line_index)
);
