-- What each organisation's files and stored responses take, all together per kind
-- (GATEWAY_FILE_STORAGE_MAX_BYTES, GATEWAY_RESPONSE_STORAGE_MAX_BYTES): kept in the transaction that
-- inserts or deletes a file or response (runtime/store/sql/storage-totals.ts), so a limit's check is
-- one primary-key read however many an organisation keeps (a SUM over 100,000 files took ~17 ms, on
-- SQLite on the serving thread). A stored response counts its body's and conversation's UTF-8 text.
ALTER TABLE stored_responses ADD COLUMN bytes BIGINT NOT NULL DEFAULT 0;
UPDATE stored_responses SET bytes = octet_length(body) + octet_length(conversation);
CREATE TABLE storage_totals (
  organisation_id TEXT NOT NULL,
  kind            TEXT NOT NULL,
  bytes           BIGINT NOT NULL,
  PRIMARY KEY (organisation_id, kind)
);
INSERT INTO storage_totals (organisation_id, kind, bytes) SELECT organisation_id, 'files', SUM(bytes) FROM gateway_files GROUP BY organisation_id;
INSERT INTO storage_totals (organisation_id, kind, bytes) SELECT organisation_id, 'responses', SUM(bytes) FROM stored_responses GROUP BY organisation_id;
