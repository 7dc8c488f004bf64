// Batches end to end with the official SDK, on SQLite and PostgreSQL: a JSONL upload and an
// `immediate` batch through a fallback config (each line through the router: the first target fails,
// the second answers), one output line per request; a batch cancelled midway (cancelling, then
// cancelled, every line once in the output or error file); a batch forwarded to a provider with a
// batch API; gateway-managed because the provider has none; metadata rules; lists across both.
import { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../store/backends.ts';
import { chatLine, GATEWAY_KEY, type JobsGateway, jsonl, plainHeaders, startJobsGateway, until, vendorHeaders, VENDOR_MOCK_KEY } from '../jobs/harness.ts';

const FINAL = ['completed', 'failed', 'expired', 'cancelled'];

function target(mock: number): Record<string, unknown> {
  return { provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: `{{mock${mock}}}` };
}

interface OutputLine {
  id: string;
  custom_id: string;
  response: { status_code: number; request_id: string; body: any } | null;
  error: { code: string; message: string } | null;
}

describe.each(BACKENDS)('batches on %s', (backend) => {
  let gw: JobsGateway;

  beforeAll(async () => {
    gw = await startJobsGateway(backend, {
      vendorMocks: 2,
      settings: { batchConcurrency: 2 },
      configs: { fallback: { strategy: { mode: 'fallback' }, targets: [target(0), target(1)] } },
    });
  });
  afterAll(async () => {
    await gw?.close();
  });

  async function lines(fileId: string | null | undefined, headers: Record<string, string> = {}): Promise<OutputLine[]> {
    if (fileId === null || fileId === undefined) return [];
    const text = await (await gw.client(headers).files.content(fileId)).text();
    return text.trimEnd().split('\n').map((line) => JSON.parse(line) as OutputLine);
  }

  async function settled(id: string, headers: Record<string, string> = {}) {
    return until(() => gw.client(headers).batches.retrieve(id), (b) => FINAL.includes(b.status), 20_000, `batch ${id}`);
  }

  it('runs an immediate batch through a fallback config: every line once, answered by the target that worked', async () => {
    const [first, second] = gw.vendor;
    first.script({ path: '/v1/chat/completions', status: 500, times: 1000 });
    const client = gw.client({ 'x-gateway-config': 'fallback' });
    const requests = Array.from({ length: 7 }, (_, i) => chatLine(`req-${i}`, `question ${i}`));
    const file = await client.files.create({ file: await toFile(Buffer.from(jsonl(requests)), 'requests.jsonl'), purpose: 'batch' });
    // The config's targets have a files API: the upload went to the first target.
    expect(first.requests.some((r) => r.method === 'POST' && r.path === '/v1/files')).toBe(true);
    const created = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: 'immediate' as '24h', metadata: { project: 'e2e' } });
    expect(created).toMatchObject({ object: 'batch', status: 'validating', input_file_id: file.id, completion_window: 'immediate', metadata: { project: 'e2e' } });
    expect(created.expires_at).toBe(created.created_at + 86_400);
    const done = await settled(created.id, { 'x-gateway-config': 'fallback' });
    expect(done).toMatchObject({ status: 'completed', request_counts: { total: 7, completed: 7, failed: 0 }, error_file_id: null });
    for (const field of ['in_progress_at', 'finalizing_at', 'completed_at'] as const) expect(done[field]).toBeGreaterThanOrEqual(done.created_at);
    expect(done.in_progress_at!).toBeLessThanOrEqual(done.finalizing_at!);
    expect(done.finalizing_at!).toBeLessThanOrEqual(done.completed_at!);
    for (const field of ['failed_at', 'cancelling_at', 'cancelled_at', 'expired_at'] as const) expect(done[field]).toBeNull();
    const output = await lines(done.output_file_id);
    expect(output.map((l) => l.custom_id)).toEqual(requests.map((r) => r.custom_id));
    for (const [i, line] of output.entries()) {
      expect(line.id).toMatch(/^batch_req_/);
      expect(line.error).toBeNull();
      expect(line.response?.status_code).toBe(200);
      expect(line.response?.body.choices[0].message.content).toBe(`[mock1] question ${i}`);
    }
    // Each line tried the first target, then fell back to the second.
    expect(first.requests.filter((r) => r.path === '/v1/chat/completions')).toHaveLength(7);
    expect(second.requests.filter((r) => r.path === '/v1/chat/completions')).toHaveLength(7);
    expect(gw.logs.find((l) => l.event === 'batch_settled' && l.fields.batch_id === done.id)?.fields).toMatchObject({ status: 'completed', total: 7, completed: 7, failed: 0 });
    const outputFile = await client.files.retrieve(done.output_file_id!);
    expect(outputFile).toMatchObject({ purpose: 'batch_output', filename: `${done.id}_output.jsonl` });
    first.reset();
    second.reset();
  });

  it('cancels a batch midway: cancelling at once, then cancelled, with every line once in the output or error file', async () => {
    const mock = gw.vendor[1];
    mock.script({ path: '/v1/chat/completions', delayMs: 60, times: 1000 });
    const headers = plainHeaders(mock);
    const client = gw.client(headers);
    const requests = Array.from({ length: 30 }, (_, i) => chatLine(`c-${i}`, `slow ${i}`));
    const file = await client.files.create({ file: await toFile(Buffer.from(jsonl(requests)), 'slow.jsonl'), purpose: 'batch' });
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    await until(() => client.batches.retrieve(batch.id), (b) => b.request_counts!.completed >= 3, 10_000, 'three lines');
    const cancelling = await gw.call('POST', `/v1/batches/${batch.id}/cancel`, { headers });
    expect(cancelling.status).toBe(200);
    expect(cancelling.schema).toBe('resources/batch.json');
    expect(cancelling.body).toMatchObject({ id: batch.id, status: 'cancelling' });
    expect(cancelling.body.cancelling_at).toBeGreaterThanOrEqual(batch.created_at);
    const again = await client.batches.cancel(batch.id);
    expect(again.status === 'cancelling' || again.status === 'cancelled').toBe(true);
    const done = await settled(batch.id, headers);
    expect(done.status).toBe('cancelled');
    expect(done.cancelled_at).toBeGreaterThanOrEqual(done.cancelling_at!);
    expect(done.completed_at).toBeNull();
    const output = await lines(done.output_file_id);
    const errors = await lines(done.error_file_id);
    expect([...output, ...errors].map((l) => l.custom_id).sort()).toEqual(requests.map((r) => r.custom_id).sort());
    expect(output.length).toBeGreaterThanOrEqual(3);
    expect(errors.length).toBeGreaterThan(0);
    for (const line of errors) expect(line).toMatchObject({ response: null, error: { code: 'batch_cancelled' } });
    expect(done.request_counts).toEqual({ total: 30, completed: output.length, failed: errors.length });
    // No line started after the cancel settled.
    const calls = mock.requests.filter((r) => r.path === '/v1/chat/completions').length;
    await new Promise((r) => setTimeout(r, 150));
    expect(mock.requests.filter((r) => r.path === '/v1/chat/completions').length).toBe(calls);
    const late = await gw.call('POST', `/v1/batches/${batch.id}/cancel`, { headers });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('batch_not_cancellable');
    mock.reset();
  });

  it('forwards a 24h batch to a provider with a batch API, and reads its output through the gateway', async () => {
    const mock = gw.vendor[0];
    const headers = vendorHeaders(mock);
    const client = gw.client(headers);
    const requests = [chatLine('p-0', 'one'), chatLine('p-1', 'two')];
    const file = await client.files.create({ file: await toFile(Buffer.from(jsonl(requests)), 'p.jsonl'), purpose: 'batch' });
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    expect(batch.id).toMatch(/^batch_/);
    expect(batch.id).not.toMatch(/^batch_gw/);
    expect(mock.requests.some((r) => r.method === 'POST' && r.path === '/v1/batches')).toBe(true);
    const done = await settled(batch.id, headers);
    expect(done).toMatchObject({ status: 'completed', request_counts: { total: 2, completed: 2, failed: 0 } });
    const output = await lines(done.output_file_id, headers);
    expect(output.map((l) => l.custom_id)).toEqual(['p-0', 'p-1']);
    // Cancel of a finished provider batch: the provider's own error (not a gateway error body) passes through.
    const cancel = await fetch(`${gw.url}/v1/batches/${batch.id}/cancel`, { method: 'POST', headers: { ...headers, authorization: `Bearer ${VENDOR_MOCK_KEY}`, 'x-gateway-api-key': GATEWAY_KEY } });
    expect(cancel.status).toBe(409);
    expect(((await cancel.json()) as { error: { message: string } }).error.message).toBe("Cannot cancel a batch with status 'completed'.");
  });

  it('runs a 24h batch itself, each line charged, when a usage-limits policy may count it, though the provider has a batch API', async () => {
    const created = await fetch(`${gw.url}/v1/policies/usage-limits`, {
      method: 'POST', headers: { 'x-gateway-api-key': GATEWAY_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'tokens', credit_limit: 1_000_000, conditions: [{ key: 'metadata.team', value: 'budgeted' }], group_by: [{ key: 'api_key' }] }),
    });
    const policy = (await created.json()) as { id: string };
    expect(created.status, JSON.stringify(policy)).toBe(200);
    const policyId = policy.id;
    // Within one change-feed interval every router sees it.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const mock = gw.vendor[0];
    const headers = { ...vendorHeaders(mock), 'x-gateway-metadata': JSON.stringify({ team: 'budgeted' }) };
    const client = gw.client(headers);
    const file = await client.files.create({ file: await toFile(Buffer.from(jsonl([chatLine('b-0', 'one'), chatLine('b-1', 'two')])), 'b.jsonl'), purpose: 'batch' });
    const forwardedBefore = mock.requests.filter((r) => r.method === 'POST' && r.path === '/v1/batches').length;
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    expect(batch.id).toMatch(/^batch_gw/);
    expect(mock.requests.filter((r) => r.method === 'POST' && r.path === '/v1/batches').length).toBe(forwardedBefore);
    const done = await settled(batch.id, headers);
    expect(done).toMatchObject({ status: 'completed', request_counts: { total: 2, completed: 2, failed: 0 } });
    expect((await lines(done.output_file_id, headers)).map((l) => l.custom_id).sort()).toEqual(['b-0', 'b-1']);
    const usage = await until(async () => (await (await fetch(`${gw.url}/v1/policies/usage-limits/${policyId}/usage`, { headers: { 'x-gateway-api-key': GATEWAY_KEY } })).json()) as { data: Array<{ used: number }> }, (body) => (body.data[0]?.used ?? 0) > 0, 5000, 'the lines charged');
    expect(usage.data[0].used).toBeGreaterThan(0);
    // Another team's batch, which no policy counts, is forwarded as before.
    const other = { ...vendorHeaders(mock), 'x-gateway-metadata': JSON.stringify({ team: 'free' }) };
    const forwarded = await gw.client(other).batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    expect(forwarded.id).not.toMatch(/^batch_gw/);
  });

  it('runs the batch itself when the provider has no batch API, and fails one whose lines do not match its endpoint', async () => {
    const mock = gw.vendor[0];
    const headers = plainHeaders(mock);
    const client = gw.client(headers);
    const file = await client.files.create({ file: await toFile(Buffer.from(jsonl([chatLine('x-0', 'hi'), { ...chatLine('x-1', 'ho'), body: { model: 'vendor-chat-1' } }])), 'x.jsonl'), purpose: 'batch' });
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    expect(batch.id).toMatch(/^batch_gw/);
    const done = await settled(batch.id, headers);
    // The second line has no messages: the provider answers 400 and the line goes to the error file.
    expect(done).toMatchObject({ status: 'completed', request_counts: { total: 2, completed: 1, failed: 1 } });
    const [error] = await lines(done.error_file_id);
    expect(error).toMatchObject({ custom_id: 'x-1', error: null, response: { status_code: 400 } });
    const wrong = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/embeddings', completion_window: '24h' });
    const failed = await settled(wrong.id, headers);
    expect(failed.status).toBe('failed');
    expect(failed.failed_at).not.toBeNull();
    expect(failed.errors?.data?.map((e) => [e.line, e.code, e.param])).toEqual([[1, 'mismatched_url', 'url'], [2, 'mismatched_url', 'url']]);
  });

  it('refuses bad metadata, unknown input files and files of another purpose with 400/404 naming the field', async () => {
    const headers = plainHeaders(gw.vendor[0]);
    const file = (await gw.client(headers).files.create({ file: await toFile(Buffer.from(jsonl([chatLine('m', 'x')])), 'm.jsonl'), purpose: 'batch' })).id;
    const base = { input_file_id: file, endpoint: '/v1/chat/completions', completion_window: '24h' };
    const cases: Array<[unknown, string]> = [
      [{ ...base, metadata: { ['k'.repeat(65)]: 'v' } }, '/metadata'],
      [{ ...base, metadata: { k: 'v'.repeat(513) } }, '/metadata/k'],
      [{ ...base, metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) }, '/metadata'],
      [{ ...base, completion_window: '1h' }, '/completion_window'],
      [{ ...base, endpoint: '/v1/images/generations' }, '/endpoint'],
    ];
    for (const [body, param] of cases) {
      const res = await gw.call('POST', '/v1/batches', { body, headers });
      expect(res.status, param).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request_body', param });
    }
    const ok = await gw.call('POST', '/v1/batches', { body: { ...base, metadata: Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`.padEnd(64, 'x'), 'v'.repeat(512)])) }, headers });
    expect(ok.status).toBe(200);
    const missing = await gw.call('POST', '/v1/batches', { body: { ...base, input_file_id: 'file-nope' }, headers });
    expect(missing.status).toBe(404);
    expect(missing.body.error.param).toBe('/input_file_id');
    const ft = (await gw.client().files.create({ file: await toFile(Buffer.from('{"a":1}\n'), 'ft.jsonl'), purpose: 'fine-tune' })).id;
    const wrongPurpose = await gw.call('POST', '/v1/batches', { body: { ...base, input_file_id: ft }, headers });
    expect(wrongPurpose.body.error).toMatchObject({ code: 'invalid_request_body', param: '/input_file_id' });
    const noRoute = await gw.call('POST', '/v1/batches', { body: base });
    expect(noRoute.body.error.code).toBe('missing_provider');
    // Headers every line would be refused with are refused at once, and no batch is made: a routing
    // header no target of the fallback config reads, and a provider option of another family.
    const before = (await gw.call('GET', '/v1/batches', { headers })).body.data.length;
    for (const [name, value] of [['x-gateway-provider', 'anthropic'], ['x-gateway-cloudb-region', 'us-central1']]) {
      const refused = await gw.call('POST', '/v1/batches', { body: { ...base, completion_window: 'immediate' }, headers: { 'x-gateway-config': 'fallback', [name]: value } });
      expect(refused.status, name).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_header', param: name });
    }
    // The same where a virtual key names the provider and the host, known only from the stored key.
    const key = await gw.call('POST', '/v1/virtual-keys', { body: { provider: 'openai', api_key: 'sk-batch-key', custom_host: `${gw.vendor[0].url}/v1` } });
    expect(key.status).toBe(200);
    for (const [name, value] of [['x-gateway-custom-host', `${gw.vendor[1].url}/v1`], ['x-gateway-cloudb-region', 'us-central1']]) {
      const refused = await gw.call('POST', '/v1/batches', { body: { ...base, completion_window: 'immediate' }, headers: { 'x-gateway-virtual-key': key.body.id, [name]: value } });
      expect(refused.status, name).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'invalid_header', param: name });
    }
    expect((await gw.call('GET', '/v1/batches', { headers })).body.data.length).toBe(before);
  });

  it('lists gateway-managed batches first, then the provider\'s, each once', async () => {
    const mock = gw.vendor[0];
    const headers = { ...vendorHeaders(mock), authorization: `Bearer ${VENDOR_MOCK_KEY}` };
    const client = gw.client(vendorHeaders(mock));
    const file = await client.files.create({ file: await toFile(Buffer.from(jsonl([chatLine('l', 'x')])), 'l.jsonl'), purpose: 'batch' });
    await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await gw.call('GET', `/v1/batches?limit=3${after === undefined ? '' : `&after=${after}`}`, { headers });
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((b: { id: string }) => b.id));
      if (!page.body.has_more) break;
      after = page.body.last_id;
    }
    expect(new Set(seen).size).toBe(seen.length);
    const firstProvider = seen.findIndex((id) => !id.startsWith('batch_gw'));
    expect(firstProvider).toBeGreaterThan(0);
    expect(seen.slice(firstProvider).every((id) => !id.startsWith('batch_gw'))).toBe(true);
    const sdk: string[] = [];
    for await (const batch of client.batches.list({ limit: 2 })) sdk.push(batch.id);
    expect(sdk).toEqual(seen);
  });
});
