// A request-log row holds the record's column members as columns and only its other members in
// `record` (runtime/store/sql/log-row.ts): for any record, including ones whose metadata, hook
// results, feedback or bodies carry the very key the split cuts at, the row reads back as the whole
// record, and no column member is stored twice. Rows written before the split (the whole record in
// `record`) read back the same.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { newRequestRecord, type RequestRecord } from '../../runtime/core/request-record.ts';
import { LOG_COLUMNS, type LogRow, pushRowValues, recordOf, splitRecord } from '../../runtime/store/sql/log-row.ts';
import type { SqlValue } from '../../runtime/store/sql/sql-database.ts';
import { parseJson } from '../../compiler/config/json-parse.ts';
import { storableText } from '../../runtime/store/sql/log-row.ts';

const COLUMN_MEMBERS = ['id', 'traceId', 'createdAt', 'status', 'provider', 'modelRequested', 'modelAnswered', 'configId', 'apiKeyId', 'cacheStatus', 'organisationId', 'metadata'];
const tricky = fc.constantFrom('method', ',"method":', 'metadata', 'hookResults', 'a"b', 'x', '}');
const text = fc.oneof(tricky, fc.string({ maxLength: 20 }));
const dict = fc.dictionary(tricky, fc.oneof(text, fc.dictionary(tricky, text, { maxKeys: 2 })), { maxKeys: 3 });
const check = fc.record({ id: text, verdict: fc.boolean(), explanation: fc.option(text, { nil: null }), error: fc.option(text, { nil: null }), executionTimeMs: fc.double({ noNaN: true, noDefaultInfinity: true }) });
const hook = fc.record({ id: text, type: fc.constant(null), verdict: fc.boolean(), deny: fc.boolean(), async: fc.boolean(), executionTimeMs: fc.nat(), checks: fc.array(check, { maxLength: 3 }) });

/** A record as the gateway makes them: newRequestRecord's, its members set in place. */
const record = fc.record({
  metadata: fc.dictionary(tricky, text, { maxKeys: 3 }),
  hooks: fc.option(fc.record({ beforeRequestHooks: fc.array(hook, { maxLength: 2 }), afterRequestHooks: fc.array(hook, { maxLength: 2 }) }), { nil: null }),
  feedback: fc.option(fc.array(fc.record({ hook_id: text, metadata: dict }), { maxLength: 2 }), { nil: null }),
  body: fc.option(text, { nil: null }),
  provider: fc.option(text, { nil: null }),
  model: fc.option(text, { nil: null }),
  organisationId: fc.option(text, { nil: null }),
  path: text,
}).map((f): RequestRecord => Object.assign(newRequestRecord('trace', 'POST', f.path), {
  status: 200, metadata: f.metadata, hookResults: f.hooks, feedback: f.feedback, requestBody: f.body, responseBody: f.body, provider: f.provider, modelRequested: f.model, organisationId: f.organisationId,
}));

/** The row the store writes for `text`, as the database gives it back. */
function rowOf(text: string): LogRow {
  const values: SqlValue[] = [];
  pushRowValues(values, text);
  return Object.fromEntries(LOG_COLUMNS.map((column, i) => [column, values[i]])) as unknown as LogRow;
}

/** What JSON keeps of a record (`settling` is never a value a stored record has); parseJson, as V8's JSON.parse can misread an escaped key (compiler/config/json-parse.ts). */
function stored(r: RequestRecord): unknown {
  return parseJson(JSON.stringify(r));
}

describe('request-log rows', () => {
  const anyText = fc.oneof(fc.string({ unit: 'binary', maxLength: 8 }), fc.constantFrom('\u0000', 'a\ud800', '\udc00b', '\ud83d\ude00'));
  test.prop([fc.dictionary(anyText, anyText, { maxKeys: 4 }), fc.option(anyText, { nil: null })], { numRuns: 300 })(
    'hold only text a store can keep in their columns and metadata (U+FFFD for U+0000 and lone surrogate halves), and read back so',
    (metadata, model) => {
      const r = Object.assign(newRequestRecord('trace', 'POST', '/v1/chat/completions'), { status: 200, metadata, modelRequested: model, provider: model });
      const row = rowOf(JSON.stringify(r));
      for (const value of [row.metadata, row.model_requested, row.provider]) {
        if (value === null) continue;
        expect(value.includes('\u0000') || !value.isWellFormed()).toBe(false);
        expect(/\\u(0000|d[89a-f])/i.test(value)).toBe(false);
      }
      const read = recordOf(row);
      expect(read.metadata).toEqual(Object.fromEntries(Object.entries(metadata).map(([k, v]) => [storableText(k), storableText(v)])));
      expect(read.modelRequested).toBe(storableText(model));
    },
  );

  test.prop([record], { numRuns: 300 })('read back as the whole record, with no column member in `record`', (r) => {
    const text = JSON.stringify(r);
    const row = rowOf(text);
    expect(recordOf(row)).toEqual(stored(r));
    const rest = JSON.parse(row.record) as Record<string, unknown>;
    for (const key of COLUMN_MEMBERS) expect(rest).not.toHaveProperty(key);
    // The rest is the record's own text from `method` on, byte for byte.
    const others = Object.entries(stored(r) as Record<string, unknown>).filter(([key]) => !COLUMN_MEMBERS.includes(key));
    expect(row.record).toBe(JSON.stringify(Object.fromEntries(others)));
    expect(text.endsWith(row.record.slice(1))).toBe(true);
  });

  test.prop([record], { numRuns: 100 })('split a record in another member order by parsing it whole', (r) => {
    const reordered = Object.fromEntries(Object.entries(stored(r) as Record<string, unknown>).reverse());
    expect(recordOf(rowOf(JSON.stringify(reordered)))).toEqual(stored(r));
    const { columns } = splitRecord(JSON.stringify(reordered));
    expect(Object.keys(columns).sort()).toEqual([...COLUMN_MEMBERS].sort());
  });

  test.prop([record], { numRuns: 100 })('read a row written before the split (the whole record in `record`) as that record', (r) => {
    const text = JSON.stringify(r);
    const row = { ...rowOf(text), record: text, created_ms: String(r.createdAt) };
    expect(recordOf(row)).toEqual(stored(r));
  });

  it('stores a plain route\'s record in less than two thirds of its text', () => {
    const r = Object.assign(newRequestRecord('01a21b61-d16c-7c70-b8d5-5a6f78cf7c37', 'POST', '/v1/chat/completions'), {
      routeKind: 'inference', operationId: 'createChatCompletion', status: 200, latencyMs: 8.044, configId: 'bench-single', targetPath: 'config', provider: 'vendor', modelRequested: 'gpt-4o-mini', modelAnswered: 'gpt-4o-mini', cacheStatus: 'DISABLED',
      apiKeyId: '73f6304f-b3a5-4486-ab3f-26d81909dad2', workspaceId: '2123f77c-70ef-433b-937b-585d4802e031', organisationId: '1e9c0b70-af3b-4e17-8e56-27bc32334a1a',
    } as const);
    const text = JSON.stringify(r);
    expect(rowOf(text).record.length).toBeLessThan((text.length * 2) / 3);
  });
});
