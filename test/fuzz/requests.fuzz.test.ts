// A bounded run of the request fuzzer (test/fuzz/request-fuzz.ts) in `npm test`; the seed is printed
// on failure for replay. Long runs: `npm run fuzz -- --runs 100000`.
import { fc } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2E, startE2E, target } from '../e2e/harness.ts';
import { checkOne, fuzzChat, fuzzControlPlane, fuzzGuarded, fuzzHandshake, fuzzRequest, liveHeap, sendHandshake } from './request-fuzz.ts';
import { watchStalls } from './stall-watch.ts';
import { type GatewayLogger, silentLogger } from '../../runtime/core/log.ts';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serveSetup } from '../../runtime/cli/serve.ts';
import { type RunningGateway, startGateway } from '../../runtime/server/start.ts';
import { startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';
import { GATEWAY_KEY } from '../e2e/harness.ts';
import { createLocation, type StoreLocation } from '../store/backends.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 3000);
/** Fewer handshakes: each takes a connection of its own, and a session some time. */
const HANDSHAKE_RUNS = Math.ceil(RUNS / 25);
/** Fewer on PostgreSQL: what it adds is the store's own refusals, met by far fewer cases. */
const PG_RUNS = Math.ceil(RUNS / 4);

describe('hostile requests', () => {
  let e2e: E2E;

  beforeAll(async () => {
    const pii = { id: 'pii', 'default.piiRedact': {} };
    const guarded = { ...target(0), input_guardrails: [pii, { id: 'no-secret', deny: true, 'default.contains': { words: ['secret'], operator: 'none' } }], output_guardrails: [pii] };
    e2e = await startE2E({ mocks: 1, jobs: true, configs: { chat: target(0), fallback: { strategy: { mode: 'fallback' }, targets: [target(0), target(0)] }, guarded } });
  });
  afterAll(async () => {
    await e2e?.close();
  });

  it(`never crash the gateway, never get a 500, always get a well-formed error, never stall it or grow its heap (${RUNS} cases)`, { timeout: Math.max(120_000, RUNS * 100) }, async () => {
    const stalls = watchStalls();
    const heapBefore = liveHeap();
    await fc.assert(
      fc.asyncProperty(fc.oneof(fuzzRequest, fuzzChat, fuzzGuarded), async (request) => {
        const problem = await checkOne(e2e, request);
        expect(problem, JSON.stringify(request)).toBeNull();
      }),
      { numRuns: RUNS, verbose: 1, ...(process.env.FUZZ_SEED === undefined ? {} : { seed: Number(process.env.FUZZ_SEED) }) },
    );
    const { longestOwnMs, stalls: held } = await stalls.stop();
    expect(longestOwnMs, `longest event-loop stall not the collector's, ms (all: ${JSON.stringify(held)})`).toBeLessThan(100);
    // The live heap after a full GC (RSS would count what V8 keeps for later and the test client's own).
    expect((liveHeap() - heapBefore) / 2 ** 20, 'live heap growth, MB').toBeLessThan(64);
    const health = await fetch(`${e2e.gateway.url}/v1/health`);
    expect(health.status).toBe(200);
  });
});

describe('hostile WebSocket handshakes', () => {
  let e2e: E2E;

  beforeAll(async () => {
    const guarded = { ...target(0), input_guardrails: [{ id: 'no-secret', deny: true, 'default.contains': { words: ['secret'], operator: 'none' } }] };
    e2e = await startE2E({ mocks: 1, configs: { chat: target(0), fallback: { strategy: { mode: 'fallback' }, targets: [target(0), target(0)] }, guarded } });
  });
  afterAll(async () => {
    await e2e?.close();
  });

  it(`are answered, refused or carried, never crash the gateway and never get its 500 (${HANDSHAKE_RUNS} cases)`, { timeout: Math.max(120_000, RUNS * 100) }, async () => {
    await fc.assert(
      fc.asyncProperty(fuzzHandshake, async (handshake) => {
        const answer = await sendHandshake(e2e.gateway.url, handshake);
        expect(answer, JSON.stringify(handshake).slice(0, 300)).toMatch(/^HTTP\/1\.1 \d{3} /);
        expect(answer.slice(9, 12), answer.slice(0, 300)).not.toBe('500');
      }),
      { numRuns: HANDSHAKE_RUNS, verbose: 1, ...(process.env.FUZZ_SEED === undefined ? {} : { seed: Number(process.env.FUZZ_SEED) }) },
    );
    expect((await fetch(`${e2e.gateway.url}/v1/health`)).status).toBe(200);
  });
});

describe('hostile requests on a PostgreSQL store', () => {
  let gateway: RunningGateway;
  let mock: VendorMock;
  let location: StoreLocation;
  const problems: string[] = [];
  // What the store refused shows in the log, not in an answer: a record batch refused for ever, a failed filter.
  const logger: GatewayLogger = { ...silentLogger, error: (event, fields) => void problems.push(`${event} ${JSON.stringify(fields).slice(0, 300)}`) };

  beforeAll(async () => {
    mock = await startVendorMock({ label: 'fuzz-pg' });
    location = await createLocation('postgres');
    await mkdir(join(location.dataDir, 'configs'), { recursive: true });
    await writeFile(join(location.dataDir, 'configs', 'chat.json'), JSON.stringify({ provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL }));
    gateway = await startGateway({ port: 0, dataDir: location.dataDir, configsDir: join(location.dataDir, 'configs'), databaseUrl: location.databaseUrl, seedApiKey: GATEWAY_KEY, logger, setup: serveSetup });
  });
  afterAll(async () => {
    await gateway?.close();
    await mock?.close();
    await location?.remove();
  });

  it(`never get a 500, and every record is written and found by the log's filters (${PG_RUNS} cases)`, { timeout: Math.max(120_000, PG_RUNS * 100) }, async () => {
    const target = { gateway } as E2E;
    await fc.assert(
      fc.asyncProperty(fc.oneof(fuzzRequest, fuzzChat, fuzzControlPlane), async (request) => {
        const problem = await checkOne(target, request);
        expect(problem, JSON.stringify(request)).toBeNull();
      }),
      { numRuns: PG_RUNS, verbose: 1, ...(process.env.FUZZ_SEED === undefined ? {} : { seed: Number(process.env.FUZZ_SEED) }) },
    );
    // Every record written (the writer flushes every 500 ms), and the filters read past every row.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    for (const path of ['/v1/logs?metadata.team=a', '/v1/logs?model=gpt-4o-mini', '/v1/logs?limit=1000']) {
      const res = await fetch(`${gateway.url}${path}`, { headers: { 'x-gateway-api-key': GATEWAY_KEY } });
      expect(res.status, `${path}: ${problems.join('\n')}`).toBe(200);
    }
    expect(problems).toEqual([]);
  });
});
