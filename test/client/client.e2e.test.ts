// The generated client (generated/client/) against a real `gateway serve` process and a vendor mock: every operation
// that has a client binding in schema/api.json is called at least once (checked at the end from the
// requests the client sent), with response checking on, so this suite doubles as the API's contract
// test through the client. Also: pages as async iterators, typed errors, gatewayHeaders() for the
// vendor SDK.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import apiManifest from '../../schema/api.json' with { type: 'json' };
import { GatewayClient, gatewayHeaders, isGatewayError, type ClientOptions } from '../../generated/client/client.ts';
import { GATEWAY_ERRORS } from '../../runtime/core/errors.ts';
import { contractCheck } from '../../compiler/cli/contract-check.ts';
import { chatLine, jsonl, vendorHeaders } from '../jobs/harness.ts';
import { startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';
import { type ServeProcess, startServe } from '../e2e/serve-processes.ts';

const GATEWAY_KEY = 'gw_client-test-admin-key-0123456789abcdef';

interface Sent {
  method: string;
  pathname: string;
}

const BOUND = (apiManifest.endpoints as { operationId: string; method: string; path: string; client?: { method: string } }[]).filter((e) => e.client !== undefined);

function templateMatches(template: string, pathname: string): boolean {
  const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
  return pattern.test(pathname);
}

describe('generated client, end to end', () => {
  let serve: ServeProcess;
  let mock: VendorMock;
  let dir: string;
  const sent: Sent[] = [];
  const recording: typeof fetch = async (input, init) => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    sent.push({ method: init?.method ?? 'GET', pathname: url.pathname });
    return fetch(input, init);
  };
  const client = (options: Partial<ClientOptions> = {}): GatewayClient => new GatewayClient({ baseURL: serve.url, apiKey: GATEWAY_KEY, validateResponses: true, fetch: recording, ...options });

  beforeAll(async () => {
    mock = await startVendorMock();
    dir = await mkdtemp(join(tmpdir(), 'gateway-client-'));
    serve = await startServe({ GATEWAY_API_KEY: GATEWAY_KEY }, join(dir, 'data'));
  });
  afterAll(async () => {
    serve?.child.kill('SIGTERM');
    await serve?.exited;
    await mock?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('passes the contract check, writes included, against a fresh gateway', async () => {
    const results = await contractCheck(serve.url, GATEWAY_KEY, { write: true, progress: null, fetch: recording });
    expect(results.filter((r) => r.outcome === 'violation' || r.outcome === 'error')).toEqual([]);
    expect(results.filter((r) => r.outcome === 'ok').length).toBeGreaterThan(40);
  });

  it('creates a config, lists it page by page, reads and deletes it, with full types', async () => {
    const api = client();
    const ids = ['client-a', 'client-b', 'client-c', 'client-d', 'client-e'];
    for (const id of ids) {
      const saved = await api.configs.create({ id, config: { provider: 'openai', api_key: 'sk-client-test-0000', override_params: { model: `m-${id}` } } });
      expect(saved.id).toBe(id);
    }
    const seen: string[] = [];
    let pages = 0;
    for await (const page of api.configs.list({ page_size: 2 })) {
      pages++;
      seen.push(...page.data.map((config) => config.id));
    }
    expect(pages).toBe(3);
    expect(seen.filter((id) => ids.includes(id)).sort()).toEqual(ids);
    const first = await api.configs.list({ page_size: 2 });
    expect(first.data).toHaveLength(2);
    expect(first.total).toBeGreaterThanOrEqual(5);
    const updated = await api.configs.update('client-a', { config: { provider: 'openai', api_key: 'sk-client-test-0001' } });
    expect(updated.id).toBe('client-a');
    expect(JSON.stringify(updated)).not.toContain('sk-client-test-0001');
    const simulated = await api.configs.simulate('client-b', { request: { model: 'x', messages: [{ role: 'user', content: 'hi' }] } });
    expect(simulated.answer.status).toBe(200);
    for (const id of ids) await api.configs.delete(id);
  });

  it('throws typed errors carrying the documented code, status, param and trace id', async () => {
    const api = client();
    const missing = await api.configs.retrieve('no-such-config').catch((error: unknown) => error);
    expect(isGatewayError(missing, 'resource_not_found')).toBe(true);
    if (!isGatewayError(missing)) throw new Error('not a gateway error');
    expect(missing).toMatchObject({ status: 404, code: 'resource_not_found', type: 'not_found_error' });
    expect(missing.traceId).toMatch(/\S/);
    expect(Object.keys(GATEWAY_ERRORS)).toContain(missing.code);
    const traced = await api.configs.retrieve('no-such-config', { traceId: 'client-trace-1' }).catch((error: unknown) => error);
    expect(isGatewayError(traced) && traced.traceId).toBe('client-trace-1');
    const bad = await api.configs.create({ id: 'client-bad', config: { provider: 'opnai', api_key: 'k' } }).catch((error: unknown) => error);
    expect(isGatewayError(bad, 'invalid_config')).toBe(true);
    expect(isGatewayError(bad) && bad.status).toBe(400);
    const unauthenticated = await client({ apiKey: 'gw_wrong' }).configs.list().then(() => null, (error: unknown) => error);
    expect(isGatewayError(unauthenticated, 'invalid_gateway_api_key')).toBe(true);
  });

  it('covers files, batches, fine-tuning and stored responses, with provider headers where the job lives at the provider', async () => {
    const api = client();
    const form = new FormData();
    form.append('purpose', 'batch');
    const content = jsonl([chatLine('a', 'hello')]);
    form.append('file', new Blob([content]), 'in.jsonl');
    const file = await api.files.create(form);
    expect(file).toMatchObject({ object: 'file', purpose: 'batch', filename: 'in.jsonl' });
    expect(new TextDecoder().decode(await api.files.content(file.id))).toBe(content);
    expect((await api.files.retrieve(file.id)).id).toBe(file.id);
    const listed: string[] = [];
    for await (const page of api.files.list({ limit: 1 })) listed.push(...page.data.map((f) => f.id));
    expect(listed).toContain(file.id);

    const routed = client({ headers: { ...vendorHeaders(mock), authorization: `Bearer ${VENDOR_MOCK_KEY}` } });
    const batch = await routed.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    expect((await routed.batches.retrieve(batch.id)).id).toBe(batch.id);
    expect((await routed.batches.list({ limit: 5 })).data.some((b) => b.id === batch.id)).toBe(true);
    const cancelled = await routed.batches.cancel(batch.id).catch((error: unknown) => error);
    // A batch that already finished cannot be cancelled: a typed 400, not a crash.
    if (isGatewayError(cancelled)) expect(cancelled.code).toBe('batch_not_cancellable');
    else expect(['cancelling', 'cancelled', 'completed']).toContain((cancelled as { status: string }).status);

    const training = new FormData();
    training.append('purpose', 'fine-tune');
    training.append('file', new Blob(['{"messages":[{"role":"user","content":"hi"}]}\n']), 'train.jsonl');
    const trainingFile = await routed.files.create(training);
    const job = await routed.fineTuning.jobs.create({ model: 'vendor-chat-1', training_file: trainingFile.id, suffix: 'client', method: { type: 'supervised' } });
    expect((await routed.fineTuning.jobs.retrieve(job.id)).id).toBe(job.id);
    expect((await routed.fineTuning.jobs.list({ limit: 5 })).data.length).toBeGreaterThan(0);
    expect(Array.isArray((await routed.fineTuning.jobs.checkpoints(job.id)).data)).toBe(true);
    expect((await routed.fineTuning.jobs.cancel(job.id)).id).toBe(job.id);

    const vendor = new OpenAI({ baseURL: `${serve.url}/v1`, apiKey: VENDOR_MOCK_KEY, maxRetries: 0, defaultHeaders: { ...gatewayHeaders({ apiKey: GATEWAY_KEY, traceId: 'client-sdk-trace', metadata: { team: 'client' } }), ...vendorHeaders(mock) } });
    const stored = await vendor.responses.create({ model: 'vendor-chat-1', input: 'hello' });
    expect((await routed.responses.retrieve(stored.id)).id).toBe(stored.id);
    expect((await routed.responses.inputItems(stored.id)).data).toMatchObject([{ type: 'message', role: 'user' }]);
    expect(await routed.responses.delete(stored.id)).toEqual({ id: stored.id, object: 'response', deleted: true });
    // The log is written off the request path: readable within 2 s.
    let record = (await api.logs.list({ trace_id: 'client-sdk-trace' })).data[0];
    for (let waited = 0; record === undefined && waited < 3000; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      record = (await api.logs.list({ trace_id: 'client-sdk-trace' })).data[0];
    }
    expect(record).toMatchObject({ trace_id: 'client-sdk-trace', metadata: { team: 'client' } });
    expect((await api.logs.retrieve(record.id)).id).toBe(record.id);

    expect((await api.files.delete(file.id)).deleted).toBe(true);
  });

  it('reads health and metrics, and purges the cache', async () => {
    const api = client();
    expect((await api.health.get()).status).toBeDefined();
    expect(await api.metrics.get()).toContain('# TYPE');
    expect((await api.cache.purge({ namespace: 'client-ns' })).object).toBeDefined();
  });

  it('sent every operation that has a client binding at least once', () => {
    const missing = BOUND.filter((e) => !sent.some((s) => s.method === e.method && templateMatches(e.path, s.pathname))).map((e) => e.client!.method);
    expect(missing).toEqual([]);
  });
});
