-- Responses the gateway emulated over chat completions and stored (store: true). `body` is the
-- response object as answered; `conversation` the chat messages it continued plus its answer, which
-- previous_response_id chains from (instructions are not part of it: they are not carried over).
CREATE TABLE stored_responses (
  id              TEXT PRIMARY KEY,
  organisation_id TEXT NOT NULL,
  created_iso     TEXT NOT NULL,
  body            TEXT NOT NULL,
  conversation    TEXT NOT NULL
);
