// The batch runner's promise: whatever the timing of a cancel and of a process dying mid-batch (a
// second runner then takes the lease over), every input line ends up exactly once in the output or
// the error file, and the counts say so. Real routing over a fake network; SQLite and PostgreSQL.
import { randomUUID } from 'node:crypto';
import { fc } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../generated/routes.ts';
import { BatchRunner } from '../../runtime/jobs/batch-runner.ts';
import type { RouteSealer } from '../../runtime/jobs/route-headers.ts';
import { silentLogger } from '../../runtime/core/log.ts';
import type { BatchRecord, BatchStore } from '../../runtime/store/batch-store.ts';
import type { GatewayStore } from '../../runtime/store/open-store.ts';
import { BACKENDS, storeForSuite } from '../store/backends.ts';
import { fakeUpstream, testSealer } from './fake-upstream.ts';
import { until } from './harness.ts';
import type { RequestRecord } from '../../runtime/core/request-record.ts';
import { Limits } from '../../runtime/pipeline/limits/limits.ts';
import { MemoryCounters } from '../../runtime/pipeline/limits/memory-counters.ts';
import { UsageAlerts } from '../../runtime/pipeline/limits/usage-alerts.ts';

const HEADERS = { 'x-gateway-provider': 'openai', authorization: 'Bearer sk-test' };
const LEASE_MS = 60;

/** A store whose every call fails once `dead` is set: a process that died at any await. */
function mortal(batches: BatchStore): { batches: BatchStore; kill(): void } {
  let dead = false;
  const proxy = new Proxy(batches, {
    get(target, name) {
      const value = Reflect.get(target, name) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => (dead ? Promise.reject(new Error('process died')) : (value as (...a: unknown[]) => unknown).apply(target, args));
    },
  });
  return { batches: proxy, kill: () => (dead = true) };
}

async function createBatch(store: GatewayStore, sealer: RouteSealer, org: string, lines: string[], owner: string): Promise<BatchRecord> {
  const file = await store.files.create({ organisationId: org, purpose: 'batch', filename: 'in.jsonl', content: Buffer.from(lines.join('\n') + '\n') });
  const id = `batch_${randomUUID()}`;
  return store.batches.create({
    id,
    organisationId: org,
    endpoint: '/v1/chat/completions',
    inputFileId: file.id,
    contentFileId: file.id,
    completionWindow: 'immediate',
    expiresAt: Math.floor(Date.now() / 1000) + 3600,
    metadata: null,
    route: sealer.seal(id, HEADERS, { keyId: 'batch-test-key', workspaceId: 'batch-test-workspace', organisationId: org }),
    leaseOwner: owner,
    leaseExpiresMs: Date.now() + LEASE_MS,
  });
}

async function settled(store: GatewayStore, org: string, id: string, timeoutMs = 10_000): Promise<BatchRecord> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const batch = await store.batches.get(org, id);
    if (batch !== null && ['completed', 'cancelled', 'failed', 'expired'].includes(batch.status)) return batch;
    if (Date.now() > until) throw new Error(`batch ${id} did not settle: ${JSON.stringify(batch)}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function fileLines(store: GatewayStore, org: string, id: string | null): Promise<Array<{ custom_id: string; response: { status_code: number } | null; error: { code: string } | null }>> {
  if (id === null) return [];
  const text = (await store.files.content(org, id))!.toString('utf8');
  expect(text.endsWith('\n')).toBe(true);
  return text.trimEnd().split('\n').map((line) => JSON.parse(line));
}

describe.each(BACKENDS)('batch runner on %s', (backend) => {
  const suite = storeForSuite(backend, { beforeAll, afterAll });

  it('puts every line exactly once in the output or error file, whatever the cancel and crash timing', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ status: fc.constantFrom(200, 200, 200, 400, 500), delayMs: fc.integer({ min: 0, max: 6 }) }), { minLength: 1, maxLength: 18 }),
        fc.integer({ min: 1, max: 4 }),
        fc.option(fc.integer({ min: 0, max: 30 }), { nil: null }),
        fc.option(fc.integer({ min: 0, max: 30 }), { nil: null }),
        async (replies, concurrency, cancelAfterMs, crashAfterMs) => {
          const store = suite.store;
          const org = randomUUID();
          const sealer = testSealer();
          const lines = replies.map((_, i) => JSON.stringify({ custom_id: `req-${i}`, method: 'POST', url: '/v1/chat/completions', body: { model: 'm', messages: [{ role: 'user', content: `line ${i}` }] } }));
          const { resolver } = fakeUpstream((body) => {
            const i = Number(String((body.messages as Array<{ content: string }>)[0].content).split(' ')[1]);
            return replies[i];
          });
          const settings = { batchConcurrency: concurrency, maxRunningBatches: 2, batchLeaseMs: LEASE_MS, batchPollMs: 10 };
          const first = mortal(store.batches);
          const a = new BatchRunner({ batches: first.batches, files: store.files, resolver, routes: ROUTES, sealer, logger: silentLogger, settings, owner: 'a' });
          const batch = await createBatch(store, sealer, org, lines, 'a');
          a.run(batch.id);
          const b = new BatchRunner({ batches: store.batches, files: store.files, resolver, routes: ROUTES, sealer, logger: silentLogger, settings, owner: 'b' });
          const events: Array<Promise<void>> = [];
          if (crashAfterMs !== null) {
            events.push((async () => {
              await new Promise((r) => setTimeout(r, crashAfterMs));
              first.kill();
              await a.stop();
              b.start();
            })());
          }
          if (cancelAfterMs !== null) {
            events.push((async () => {
              await new Promise((r) => setTimeout(r, cancelAfterMs));
              const cancelled = await store.batches.requestCancel(org, batch.id, Math.floor(Date.now() / 1000));
              if (cancelled?.changed) {
                a.cancelRequested(batch.id);
                b.cancelRequested(batch.id);
              }
            })());
          }
          try {
            await Promise.all(events);
            const final = await settled(store, org, batch.id);
            const outputs = await fileLines(store, org, final.outputFileId);
            const errors = await fileLines(store, org, final.errorFileId);
            const ids = [...outputs, ...errors].map((l) => l.custom_id).sort();
            expect(ids).toEqual(lines.map((_, i) => `req-${i}`).sort());
            expect(final.requestCounts).toEqual({ total: lines.length, completed: outputs.length, failed: errors.length });
            for (const line of outputs) expect(line.response?.status_code).toBe(200);
            for (const line of errors) expect(line.error?.code === 'batch_cancelled' || (line.response?.status_code ?? 0) >= 400).toBe(true);
            if (cancelAfterMs === null) {
              expect(final.status).toBe('completed');
              expect(errors.every((l) => l.error === null)).toBe(true);
            } else {
              expect(['completed', 'cancelled']).toContain(final.status);
            }
            if (final.status === 'cancelled') expect(final.cancellingAt).not.toBeNull();
            if (final.status === 'completed') expect(final.finalizingAt).not.toBeNull();
          } finally {
            await a.stop();
            await b.stop();
          }
        },
      ),
      { numRuns: backend === 'postgres' ? 12 : 30 },
    );
  });

  it('expires a batch past its window: lines not run go to the error file as batch_expired', async () => {
    const store = suite.store;
    const org = randomUUID();
    const sealer = testSealer();
    const lines = Array.from({ length: 6 }, (_, i) => JSON.stringify({ custom_id: `e-${i}`, method: 'POST', url: '/v1/chat/completions', body: { model: 'm', messages: [{ role: 'user', content: `x ${i}` }] } }));
    let clock = Date.now();
    const batch = await createBatch(store, sealer, org, lines, 'c');
    // Two lines run, then the clock passes expires_at.
    let served = 0;
    const { resolver: counting } = fakeUpstream(() => {
      served++;
      if (served === 2) clock = (batch.expiresAt! + 1) * 1000;
      return { status: 200, delayMs: 0 };
    });
    const runner = new BatchRunner({ batches: store.batches, files: store.files, resolver: counting, routes: ROUTES, sealer, logger: silentLogger, settings: { batchConcurrency: 1, maxRunningBatches: 1, batchLeaseMs: 60_000, batchPollMs: 1000 }, owner: 'c', now: () => clock });
    runner.run(batch.id);
    await runner.idle();
    const final = await settled(store, org, batch.id);
    expect(final).toMatchObject({ status: 'expired', requestCounts: { total: 6, completed: 2, failed: 4 } });
    expect(final.expiredAt).toBe(batch.expiresAt! + 1);
    const errors = await fileLines(store, org, final.errorFileId);
    expect(errors.map((l) => [l.custom_id, l.error?.code])).toEqual([2, 3, 4, 5].map((i) => [`e-${i}`, 'batch_expired']));
  });

  it('runs a line a rate limit refused again after its Retry-After, counted under the key that created the batch', async () => {
    const store = suite.store;
    const org = randomUUID();
    const sealer = testSealer();
    const lines = Array.from({ length: 3 }, (_, i) => JSON.stringify({ custom_id: `r-${i}`, method: 'POST', url: '/v1/chat/completions', body: { model: 'm', messages: [{ role: 'user', content: `x ${i}` }] } }));
    let clock = Date.now();
    const batch = await createBatch(store, sealer, org, lines, 'r');
    const { resolver, received } = fakeUpstream();
    const limits = new Limits({ counters: new MemoryCounters(), now: () => clock, logger: silentLogger, metrics: null, alerts: new UsageAlerts(silentLogger, null, null) });
    limits.use([{ id: randomUUID(), name: null, type: 'requests', unit: 'rpm', value: 2, status: 'active', conditions: [{ key: 'api_key', value: 'batch-test-key' }], groupBy: [], workspaceId: 'w', organisationId: org, createdAt: '', lastUpdatedAt: '' }], []);
    resolver.services.limits = limits;
    const records: RequestRecord[] = [];
    const runner = new BatchRunner({ batches: store.batches, files: store.files, resolver, routes: ROUTES, sealer, logger: silentLogger, settings: { batchConcurrency: 1, maxRunningBatches: 1, batchLeaseMs: 60_000, batchPollMs: 1000 }, owner: 'r', now: () => clock, onRecord: (r) => records.push(r) });
    runner.run(batch.id);
    // The third line is refused and waits (its batch still running); then a minute passes.
    await until(async () => records.filter((r) => r.status === 429).length, (n) => n >= 1, 5000, 'a refused line');
    expect(received).toHaveLength(2);
    expect((await store.batches.get(org, batch.id))?.status).toBe('in_progress');
    clock += 61_000;
    await runner.idle();
    const final = await settled(store, org, batch.id);
    expect(final).toMatchObject({ status: 'completed', requestCounts: { total: 3, completed: 3, failed: 0 } });
    expect(received).toHaveLength(3);
    const refused = records.find((r) => r.status === 429)!;
    expect(refused).toMatchObject({ errorCode: 'rate_limited', apiKeyId: 'batch-test-key', source: 'batch' });
  });

  it('fails a batch whose lines do not match its endpoint, listing each bad line', async () => {
    const store = suite.store;
    const org = randomUUID();
    const sealer = testSealer();
    const lines = [
      JSON.stringify({ custom_id: 'a', method: 'POST', url: '/v1/chat/completions', body: {} }),
      JSON.stringify({ custom_id: 'b', method: 'POST', url: '/v1/embeddings', body: {} }),
      JSON.stringify({ custom_id: 'a', method: 'POST', url: '/v1/chat/completions', body: {} }),
    ];
    const batch = await createBatch(store, sealer, org, lines, 'd');
    const { resolver, received } = fakeUpstream();
    const runner = new BatchRunner({ batches: store.batches, files: store.files, resolver, routes: ROUTES, sealer, logger: silentLogger, settings: { batchConcurrency: 2, maxRunningBatches: 1, batchLeaseMs: 60_000, batchPollMs: 1000 }, owner: 'd' });
    runner.run(batch.id);
    await runner.idle();
    const final = await store.batches.get(org, batch.id);
    expect(final?.status).toBe('failed');
    expect(final?.failedAt).not.toBeNull();
    expect(final?.errors?.map((e) => [e.line, e.code, e.param])).toEqual([[2, 'mismatched_url', 'url'], [3, 'duplicate_custom_id', 'custom_id']]);
    expect(received).toEqual([]);
  });
});
