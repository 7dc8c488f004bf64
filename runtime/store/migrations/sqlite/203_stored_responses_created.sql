-- Stored responses are kept GATEWAY_RESPONSE_RETENTION_DAYS (default 30, as the vendor keeps them):
-- the retention sweep deletes the oldest first, a bounded slice at a time.
CREATE INDEX stored_responses_created ON stored_responses (created_iso);
