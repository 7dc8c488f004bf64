// The request log's columns are read from the text before a record's large members (columnsOf in
// runtime/store/sql/sql-request-log-store.ts): for any record, including ones whose metadata, hook
// results, feedback or bodies carry the very key it cuts at, they equal a full parse's.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { newRequestRecord, type RequestRecord } from '../../runtime/core/request-record.ts';
import { columnsOf } from '../../runtime/store/sql/sql-request-log-store.ts';

const COLUMN_KEYS = ['id', 'traceId', 'createdAt', 'status', 'provider', 'modelRequested', 'modelAnswered', 'configId', 'apiKeyId', 'cacheStatus', 'organisationId', 'metadata'] as const;
const tricky = fc.constantFrom('hookResults', ',"hookResults":', 'feedback', 'a"b', 'x');
const text = fc.oneof(tricky, fc.string({ maxLength: 20 }));
const dict = fc.dictionary(tricky, fc.oneof(text, fc.dictionary(tricky, text, { maxKeys: 2 })), { maxKeys: 3 });
const check = fc.record({ id: text, verdict: fc.boolean(), explanation: fc.option(text, { nil: null }), error: fc.option(text, { nil: null }), executionTimeMs: fc.double({ noNaN: true, noDefaultInfinity: true }) });
const hook = fc.record({ id: text, type: fc.constant(null), verdict: fc.boolean(), deny: fc.boolean(), async: fc.boolean(), executionTimeMs: fc.nat(), checks: fc.array(check, { maxLength: 3 }) });

const record = fc.record({
  metadata: fc.dictionary(tricky, text, { maxKeys: 3 }),
  hooks: fc.option(fc.record({ beforeRequestHooks: fc.array(hook, { maxLength: 2 }), afterRequestHooks: fc.array(hook, { maxLength: 2 }) }), { nil: null }),
  feedback: fc.option(fc.array(fc.record({ hook_id: text, metadata: dict }), { maxLength: 2 }), { nil: null }),
  body: fc.option(text, { nil: null }),
  provider: fc.option(text, { nil: null }),
  organisationId: fc.option(text, { nil: null }),
}).map((f): RequestRecord => ({
  ...newRequestRecord('trace', 'POST', '/v1/chat/completions'),
  status: 200, metadata: f.metadata, hookResults: f.hooks, feedback: f.feedback, requestBody: f.body, responseBody: f.body, provider: f.provider, organisationId: f.organisationId,
}));

describe('columnsOf', () => {
  test.prop([record], { numRuns: 300 })('gives every column as a full parse does', (r) => {
    const text = JSON.stringify(r);
    const full = JSON.parse(text) as Record<string, unknown>;
    const columns = columnsOf(text) as unknown as Record<string, unknown>;
    for (const key of COLUMN_KEYS) expect(columns[key]).toEqual(full[key]);
  });
});
