// The request-log store on SQLite and PostgreSQL: what is inserted reads back whole, and every filter
// of GET /v1/logs (alone and combined), the newest-first order and the cursor agree with a plain
// in-memory reference over generated records.
import { randomUUID } from 'node:crypto';
import { fc } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordBatch } from '../../runtime/core/record-batch.ts';
import { newRequestRecord, type RequestRecord } from '../../runtime/core/request-record.ts';
import type { RequestLogFilter } from '../../runtime/store/request-log-store.ts';
import { BACKENDS, type BackendName, storeForSuite } from './backends.ts';
import type { LogWriterPlacement } from '../../runtime/store/sqlite/sqlite-request-log-store.ts';

const PROVIDERS = ['openai', 'anthropic', null] as const;
const MODELS = ['gpt-4o-mini', 'claude-3-5-haiku', null] as const;
const STATUSES = [200, 200, 246, 400, 401, 429, 446, 500, 503] as const;

/** A record with generated routing facts, in its own organisation so suites never see each other's. */
const recordArb = (organisationId: string, base: number) =>
  fc.record({
    offset: fc.integer({ min: 0, max: 100_000 }),
    status: fc.constantFrom(...STATUSES),
    provider: fc.constantFrom(...PROVIDERS),
    requested: fc.constantFrom(...MODELS),
    answered: fc.constantFrom(...MODELS),
    config: fc.constantFrom('a', 'b', null),
    key: fc.constantFrom('k1', 'k2', null),
    cache: fc.constantFrom('HIT', 'MISS', null),
    team: fc.constantFrom('search', 'ads', undefined),
    env: fc.constantFrom('prod', undefined),
    anonymous: fc.boolean(),
  }).map((f): RequestRecord => {
    const record = newRequestRecord(`trace-${f.offset % 7}`, 'POST', '/v1/chat/completions', 'http', base + f.offset);
    const metadata: Record<string, string> = {};
    if (f.team !== undefined) metadata.team = f.team;
    if (f.env !== undefined) metadata.env = f.env;
    return {
      ...record, status: f.status, provider: f.provider, modelRequested: f.requested, modelAnswered: f.answered, configId: f.config,
      apiKeyId: f.anonymous ? null : f.key, cacheStatus: f.cache, metadata, organisationId: f.anonymous ? null : organisationId,
      usage: f.status === 200 ? { inputTokens: 3, outputTokens: 4, cachedInputTokens: 0, totalTokens: 7, estimated: false } : null,
    };
  });

/** A filter field that is usually absent, so combined filters still match something. */
const rarely = <T,>(arb: fc.Arbitrary<T>) => fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: arb, weight: 1 });

const filterArb = fc.record({
  traceId: rarely(fc.constantFrom('trace-1', 'trace-3')),
  status: rarely(fc.constantFrom({ min: 200, max: 299 }, { min: 400, max: 499 }, { min: 429, max: 429 })),
  provider: rarely(fc.constantFrom('openai', 'anthropic')),
  model: rarely(fc.constantFrom('gpt-4o-mini', 'claude-3-5-haiku')),
  configId: rarely(fc.constantFrom('a', 'b')),
  apiKeyId: rarely(fc.constantFrom('k1', 'k2')),
  cacheStatus: rarely(fc.constantFrom('HIT', 'MISS')),
  from: rarely(fc.integer({ min: 0, max: 100_000 })),
  span: rarely(fc.integer({ min: 0, max: 100_000 })),
  metadata: fc.constantFrom<Record<string, string>>({}, { team: 'search' }, { team: 'ads', env: 'prod' }, { env: 'prod' }),
});

function matches(record: RequestRecord, filter: RequestLogFilter): boolean {
  const equal = (value: string | null, wanted: string | undefined): boolean => wanted === undefined || value === wanted;
  return equal(record.traceId, filter.traceId) && equal(record.provider, filter.provider) && equal(record.configId, filter.configId)
    && equal(record.apiKeyId, filter.apiKeyId) && equal(record.cacheStatus, filter.cacheStatus)
    && (filter.model === undefined || record.modelRequested === filter.model || record.modelAnswered === filter.model)
    && (filter.status === undefined || (record.status >= filter.status.min && record.status <= filter.status.max))
    && (filter.fromMs === undefined || record.createdAt >= filter.fromMs) && (filter.toMs === undefined || record.createdAt <= filter.toMs)
    && Object.entries(filter.metadata ?? {}).every(([k, v]) => record.metadata[k] === v)
    && (filter.visibleTo === undefined || record.organisationId === filter.visibleTo || record.organisationId === null);
}

// SQLite's inserts run in a writer thread or on the serving thread (GATEWAY_LOG_WRITER): both placements.
const PLACEMENTS = BACKENDS.flatMap((backend): Array<{ name: string; backend: BackendName; logWriter?: LogWriterPlacement }> =>
  backend === 'sqlite' ? (['thread', 'main'] as const).map((logWriter) => ({ name: `sqlite, inserts ${logWriter === 'thread' ? 'in a writer thread' : 'on the serving thread'}`, backend, logWriter })) : [{ name: backend, backend }]);

describe.each(PLACEMENTS)('RequestLogStore on $name', ({ backend, logWriter }) => {
  const ctx = storeForSuite(backend, { beforeAll, afterAll }, { logWriter });

  it('reads back what it stored, whole; ignores a record written twice; finds one by id within its organisation', async () => {
    const organisationId = randomUUID();
    const record: RequestRecord = {
      ...newRequestRecord(`trace-${randomUUID()}`, 'POST', '/v1/chat/completions'), status: 200, organisationId, apiKeyId: 'k', provider: 'openai',
      usage: { inputTokens: 1, outputTokens: 2, cachedInputTokens: 0, totalTokens: 3, estimated: true }, costUsd: 0.0001, metadata: { 'odd "key"': 'ü' },
      hookResults: { beforeRequestHooks: [], afterRequestHooks: [] }, feedback: [{ value: 1 }],
    };
    await ctx.store.requestLogs.insert(RecordBatch.of([record].map((r) => JSON.stringify(r))));
    await ctx.store.requestLogs.insert(RecordBatch.of([record].map((r) => JSON.stringify(r))));
    expect(await ctx.store.requestLogs.get(record.id, organisationId)).toEqual(record);
    expect(await ctx.store.requestLogs.get(record.id, randomUUID())).toBeNull();
    const page = await ctx.store.requestLogs.list({ traceId: record.traceId }, { limit: 10 });
    expect(page).toEqual({ records: [record], hasMore: false, next: null });
    expect((await ctx.store.requestLogs.list({ metadata: { 'odd "key"': 'ü' }, visibleTo: organisationId }, { limit: 10 })).records.map((r) => r.id)).toContain(record.id);
  });

  it('filters, orders and pages exactly as the reference does', async () => {
    const organisationId = randomUUID();
    const base = Date.now() - 10_000_000;
    const records = fc.sample(fc.uniqueArray(recordArb(organisationId, base), { minLength: 60, maxLength: 60, selector: (r) => r.id }), { numRuns: 1, seed: 7 })[0];
    await ctx.store.requestLogs.insert(RecordBatch.of(records.map((r) => JSON.stringify(r))));
    const mine = (r: RequestRecord) => r.organisationId === organisationId || (r.organisationId === null && records.includes(r));
    await fc.assert(
      fc.asyncProperty(filterArb, fc.integer({ min: 1, max: 25 }), async (f, limit) => {
        const filter: RequestLogFilter = {
          traceId: f.traceId, status: f.status, provider: f.provider, model: f.model, configId: f.configId, apiKeyId: f.apiKeyId, cacheStatus: f.cacheStatus,
          fromMs: f.from === undefined ? undefined : base + f.from, toMs: f.span === undefined || f.from === undefined ? undefined : base + f.from + f.span,
          metadata: f.metadata, visibleTo: organisationId,
        };
        // Other suites' anonymous records are visible too; compare on this suite's records.
        const expected = records.filter((r) => mine(r) && matches(r, filter)).sort((a, b) => (a.id < b.id ? 1 : -1)).map((r) => r.id);
        const seen: string[] = [];
        let after: string | undefined;
        for (let pages = 0; pages < 100; pages++) {
          const page = await ctx.store.requestLogs.list(filter, { after, limit });
          expect(page.records.length).toBeLessThanOrEqual(limit);
          seen.push(...page.records.map((r) => r.id));
          if (!page.hasMore) break;
          after = page.records[page.records.length - 1].id;
        }
        const own = new Set(records.map((r) => r.id))
        expect(seen.filter((id) => own.has(id))).toEqual(expected);
      }),
      { numRuns: 40, seed: 11 },
    );
  });

  it('deletes records older than a cutoff, in bounded batches', async () => {
    const organisationId = randomUUID();
    const old = Array.from({ length: 7 }, (_, i) => ({ ...newRequestRecord(`old-${randomUUID()}`, 'GET', '/v1/models', 'http', 1_000 + i), organisationId, status: 200 }));
    const fresh = { ...newRequestRecord(`new-${randomUUID()}`, 'GET', '/v1/models'), organisationId, status: 200 };
    await ctx.store.requestLogs.insert(RecordBatch.of([...old, fresh].map((r) => JSON.stringify(r))));
    let deleted = 0;
    for (let n = await ctx.store.requestLogs.deleteOlderThan(2_000, 3); n > 0; n = await ctx.store.requestLogs.deleteOlderThan(2_000, 3)) {
      expect(n).toBeLessThanOrEqual(3);
      deleted += n;
    }
    expect(deleted).toBeGreaterThanOrEqual(7);
    for (const record of old) expect(await ctx.store.requestLogs.get(record.id)).toBeNull();
    expect(await ctx.store.requestLogs.get(fresh.id)).toEqual(fresh);
  });
});
