// The request log end to end, on the gateway `serve` builds (every setup, the writer, the logs API),
// on SQLite and PostgreSQL: a client sends requests with a trace id and metadata and finds each one
// through GET /v1/logs with status, latency, provider, model, tokens and cost; every filter works
// over HTTP; answers match their schemas.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveSetup } from '../../runtime/cli/serve.ts';
import { silentLogger } from '../../runtime/core/log.ts';
import { type RunningGateway, startGateway } from '../../runtime/server/start.ts';
import { checkResponse } from '../api/contract.ts';
import { startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';
import { BACKENDS, createLocation, type StoreLocation } from '../store/backends.ts';
import { until } from '../jobs/harness.ts';

const ADMIN = 'gw_logs-e2e-admin-key-0123456789abcdefgh';

describe.each(BACKENDS)('request logs on %s', (backend) => {
  let gateway: RunningGateway;
  let mock: VendorMock;
  let location: StoreLocation;
  let dir: string;

  beforeAll(async () => {
    mock = await startVendorMock({ label: 'logs' });
    location = await createLocation(backend);
    dir = await mkdtemp(join(tmpdir(), 'gateway-logs-'));
    await mkdir(join(dir, 'configs'));
    await writeFile(join(dir, 'configs', 'chat.json'), JSON.stringify({ provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL }));
    gateway = await startGateway({
      port: 0, dataDir: location.dataDir, databaseUrl: location.databaseUrl, configsDir: join(dir, 'configs'), seedApiKey: ADMIN,
      logger: silentLogger, storePollMs: 100, setup: serveSetup,
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await mock?.close();
    await location?.remove();
    await rm(dir, { recursive: true, force: true });
  });

  async function logs(query: string): Promise<{ data: any[]; has_more: boolean; last_id: string | null }> {
    const res = await fetch(`${gateway.url}/v1/logs?${query}`, { headers: { 'x-gateway-api-key': ADMIN } });
    const body = (await res.json()) as { data: any[]; has_more: boolean; last_id: string | null };
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(checkResponse('GET', '/v1/logs', 200, body)).not.toBeNull();
    return body;
  }

  it('finds a request by its trace id and by its metadata, with status, latency, provider, model, tokens and cost', async () => {
    const traceId = `trace-${randomUUID()}`;
    const team = `team-${randomUUID().slice(0, 8)}`;
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: VENDOR_MOCK_KEY, maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': ADMIN, 'x-gateway-config': 'chat' } });
    const answer = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }, { headers: { 'x-gateway-trace-id': traceId, 'x-gateway-metadata': JSON.stringify({ team }) } });
    await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'again' }] }, { headers: { 'x-gateway-metadata': JSON.stringify({ team }) } });

    const started = Date.now();
    const byTrace = await until(() => logs(`trace_id=${traceId}`), (page) => page.data.length === 1, 5000, 'the record');
    expect(Date.now() - started).toBeLessThan(2000);
    const record = byTrace.data[0];
    expect(record).toMatchObject({
      object: 'request_log', trace_id: traceId, status: 200, provider: 'vendor', config_id: 'chat', target: 'config', model_requested: 'gpt-4o-mini',
      model_answered: answer.model, route_kind: 'inference', source: 'http', metadata: { team },
      usage: { input_tokens: answer.usage!.prompt_tokens, output_tokens: answer.usage!.completion_tokens, estimated: false },
    });
    expect(record.latency_ms).toBeGreaterThan(0);
    expect(record.cost_usd).toBeCloseTo((answer.usage!.prompt_tokens * 0.15 + answer.usage!.completion_tokens * 0.6) / 1e6, 12);
    expect(record.request_body).toBeNull();

    const byTeam = await until(() => logs(`metadata.team=${team}`), (page) => page.data.length === 2, 5000, 'both records');
    expect(byTeam.data.map((r) => r.metadata.team)).toEqual([team, team]);
    expect(byTeam.data[0].id > byTeam.data[1].id).toBe(true);

    const one = await fetch(`${gateway.url}/v1/logs/${record.id}`, { headers: { 'x-gateway-api-key': ADMIN } });
    const body = await one.json();
    expect(checkResponse('GET', `/v1/logs/${record.id}`, 200, body)).not.toBeNull();
    expect(body).toEqual(record);
  });

  it('filters by status class and code, provider, model, config, key and time, and pages with the cursor', async () => {
    const team = `page-${randomUUID().slice(0, 8)}`;
    const headers = { 'x-gateway-api-key': ADMIN, 'x-gateway-config': 'chat', 'x-gateway-metadata': JSON.stringify({ team }), 'content-type': 'application/json' };
    for (let i = 0; i < 5; i++) await (await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers, body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `m${i}` }] }) })).arrayBuffer();
    await (await fetch(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers, body: '{not json' })).arrayBuffer();
    const all = await until(() => logs(`metadata.team=${team}`), (page) => page.data.length === 6, 5000, 'six records');
    const keyId = all.data[0].api_key_id as string;
    expect((await logs(`metadata.team=${team}&status=4xx`)).data.map((r) => r.status)).toEqual([400]);
    expect((await logs(`metadata.team=${team}&status=400`)).data).toHaveLength(1);
    expect((await logs(`metadata.team=${team}&status=2xx&provider=vendor&model=gpt-4o-mini&config_id=chat&api_key_id=${keyId}`)).data).toHaveLength(5);
    // The config says `openai`, an alias: records carry the canonical name, and the filter takes either.
    expect((await logs(`metadata.team=${team}&status=2xx&provider=OpenAI`)).data).toHaveLength(5);
    expect((await logs(`metadata.team=${team}&provider=anthropic`)).data).toHaveLength(0);
    const now = Math.floor(Date.now() / 1000);
    expect((await logs(`metadata.team=${team}&from=${now - 60}&to=${now + 1}`)).data).toHaveLength(6);
    expect((await logs(`metadata.team=${team}&to=${now - 3600}`)).data).toHaveLength(0);
    const first = await logs(`metadata.team=${team}&limit=4`);
    expect(first.has_more).toBe(true);
    const second = await logs(`metadata.team=${team}&limit=4&after=${first.last_id}`);
    expect(second.has_more).toBe(false);
    expect([...first.data, ...second.data].map((r) => r.id)).toEqual(all.data.map((r) => r.id));
  });

  it('keeps a long model name shortened in the record and the metrics, finds it by its full name, and sends it unchanged', async () => {
    const team = `long-${randomUUID().slice(0, 8)}`;
    // An astral character straddles the cut: the record never keeps half of it.
    const model = `${'m'.repeat(254)}😀${'x'.repeat(6000)}`;
    const res = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST', headers: { 'x-gateway-api-key': ADMIN, 'x-gateway-config': 'chat', 'x-gateway-metadata': JSON.stringify({ team }), 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(((await res.json()) as { model: string }).model).toBe(model);
    const kept = `${'m'.repeat(254)}\u2026`;
    const page = await until(() => logs(`metadata.team=${team}`), (p) => p.data.length === 1, 5000, 'the record');
    expect(page.data[0]).toMatchObject({ model_requested: kept, model_answered: kept });
    expect((await logs(`metadata.team=${team}&model=${encodeURIComponent(model)}`)).data).toHaveLength(1);
    expect((await logs(`metadata.team=${team}&model=${encodeURIComponent(kept)}`)).data).toHaveLength(1);
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(metrics).toContain(`model="${kept}"`);
    expect(metrics).not.toContain('x'.repeat(100));
  });

  it('keeps at most 2048 characters of a path, for requests without a key too, and refuses metadata over 4096 bytes', async () => {
    const trace = randomUUID();
    // The header limit (64 KB) lets a client send a path this long before any key is checked.
    const long = `/v1/${'a'.repeat(60_000)}`;
    const unauthenticated = await fetch(`${gateway.url}${long}`, { headers: { 'x-gateway-trace-id': trace } });
    expect(unauthenticated.status).toBe(401);
    const page = await until(() => logs(`trace_id=${trace}`), (p) => p.data.length === 1, 5000, 'the record');
    expect(page.data[0].status).toBe(401);
    expect(page.data[0].path).toBe(`${long.slice(0, 2047)}\u2026`);
    const team = `meta-${randomUUID().slice(0, 8)}`;
    const metadata = (bytes: number) => JSON.stringify({ team, note: 'n'.repeat(bytes - JSON.stringify({ team, note: '' }).length) });
    const send = (bytes: number) => fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST', headers: { 'x-gateway-api-key': ADMIN, 'x-gateway-config': 'chat', 'x-gateway-metadata': metadata(bytes), 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
    });
    const over = await send(4097);
    expect(over.status).toBe(400);
    expect(((await over.json()) as { error: unknown }).error).toMatchObject({ code: 'invalid_header', param: 'x-gateway-metadata' });
    expect((await send(4096)).status).toBe(200);
    const kept = await until(() => logs(`metadata.team=${team}`), (p) => p.data.length === 1, 5000, 'the record');
    expect(kept.data[0].status).toBe(200);
  });

  it('answers 400 for a bad filter, 404 for an unknown id, and 403 for an inference key', async () => {
    const bad = await fetch(`${gateway.url}/v1/logs?status=2yy`, { headers: { 'x-gateway-api-key': ADMIN } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('invalid_query');
    const limit = await fetch(`${gateway.url}/v1/logs?limit=1001`, { headers: { 'x-gateway-api-key': ADMIN } });
    expect(limit.status).toBe(400);
    const reversed = await fetch(`${gateway.url}/v1/logs?from=200&to=100`, { headers: { 'x-gateway-api-key': ADMIN } });
    expect(((await reversed.json()) as { error: unknown }).error).toMatchObject({ code: 'invalid_query', param: '/from' });
    expect((await fetch(`${gateway.url}/v1/logs?from=100&to=100`, { headers: { 'x-gateway-api-key': ADMIN } })).status).toBe(200);
    // A cursor that is not a record id would otherwise compare as text and page from somewhere arbitrary.
    const cursor = await fetch(`${gateway.url}/v1/logs?after=zzz`, { headers: { 'x-gateway-api-key': ADMIN } });
    expect(cursor.status).toBe(400);
    expect(((await cursor.json()) as { error: { param: string } }).error.param).toBe('/after');
    const missing = await fetch(`${gateway.url}/v1/logs/no-such-log`, { headers: { 'x-gateway-api-key': ADMIN } });
    expect(missing.status).toBe(404);
    const created = (await (await fetch(`${gateway.url}/v1/api-keys`, { method: 'POST', headers: { 'x-gateway-api-key': ADMIN, 'content-type': 'application/json' }, body: JSON.stringify({ scope: 'inference' }) })).json()) as { key: string };
    const forbidden = await fetch(`${gateway.url}/v1/logs`, { headers: { 'x-gateway-api-key': created.key } });
    expect(forbidden.status).toBe(403);
  });
});
