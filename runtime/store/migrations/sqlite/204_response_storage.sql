-- What an organisation's stored responses take (GATEWAY_RESPONSE_STORAGE_MAX_BYTES): each row's
-- bytes (its body's and conversation's UTF-8 text), and per organisation their running total, kept
-- in the transaction that inserts or deletes a response, so the check before a stored response is
-- one primary-key read however many an organisation keeps.
ALTER TABLE stored_responses ADD COLUMN bytes INTEGER NOT NULL DEFAULT 0;
UPDATE stored_responses SET bytes = length(CAST(body AS BLOB)) + length(CAST(conversation AS BLOB));
CREATE TABLE response_storage (
  organisation_id TEXT PRIMARY KEY,
  bytes           INTEGER NOT NULL
);
INSERT INTO response_storage (organisation_id, bytes) SELECT organisation_id, SUM(bytes) FROM stored_responses GROUP BY organisation_id;
