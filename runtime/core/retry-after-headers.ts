// The answer headers that say when to try again: `retry-after` (whole seconds, or an HTTP date) and
// the vendor's `retry-after-ms`. The gateway writes them on its own 429s and 503s and reads them from
// providers' answers (retry.use_retry_after_headers).
export const RETRY_AFTER_HEADER = 'retry-after';
export const RETRY_AFTER_MS_HEADER = 'retry-after-ms';
