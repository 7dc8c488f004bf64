-- The request log: one row per request that reached the gateway, written in batches off the request
-- path (runtime/telemetry/request-log.ts). The other columns are what GET /v1/logs filters on;
-- `record` holds the record's remaining members as JSON (runtime/store/sql/log-row.ts). `id` is
-- time-ordered (its first 48 bits are the creation time in ms), so it is the order, and time ranges
-- are ranges of the primary key: only the trace id has an index of its own (each index costs every
-- insert).
CREATE TABLE request_logs (
  id              TEXT PRIMARY KEY,
  trace_id        TEXT NOT NULL,
  created_ms      INTEGER NOT NULL,
  status          INTEGER NOT NULL,
  provider        TEXT,
  model_requested TEXT,
  model_answered  TEXT,
  config_id       TEXT,
  api_key_id      TEXT,
  cache_status    TEXT,
  organisation_id TEXT,
  metadata        TEXT NOT NULL,
  record          TEXT NOT NULL
);
CREATE INDEX request_logs_trace_id ON request_logs (trace_id);
