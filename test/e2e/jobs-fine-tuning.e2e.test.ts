// Fine-tuning end to end with the official SDK, on SQLite and PostgreSQL: create, list and
// checkpoints paged through (defaults 20 and 10, every item once), retrieve, cancel, all forwarded;
// bodies checked before they leave; provider answers checked against the schemas on the way back
// (a violation passed on, logged and counted; 502 in strict mode); routes without the API refused.
import { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKPOINTS_PER_JOB } from '../mocks/vendor/fine-tuning.ts';
import { BACKENDS } from '../store/backends.ts';
import { GATEWAY_KEY, type JobsGateway, plainHeaders, startJobsGateway, vendorHeaders, VENDOR_MOCK_KEY } from '../jobs/harness.ts';

const JOBS = 25;

describe.each(BACKENDS)('fine-tuning on %s', (backend) => {
  let gw: JobsGateway;
  let headers: Record<string, string>;
  let created: string[];

  beforeAll(async () => {
    gw = await startJobsGateway(backend, { vendorMocks: 1 });
    headers = vendorHeaders(gw.vendor[0]);
    const client = gw.client(headers);
    const training = await client.files.create({ file: await toFile(Buffer.from('{"messages":[{"role":"user","content":"hi"}]}\n'), 'train.jsonl'), purpose: 'fine-tune' });
    created = [];
    for (let i = 0; i < JOBS; i++) {
      const job = await client.fineTuning.jobs.create({ model: 'vendor-chat-1', training_file: training.id, suffix: `s${i}`, method: { type: 'supervised' } } as never);
      created.push(job.id);
    }
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('pages through every job once, 20 to a page by default', async () => {
    const raw = { ...headers, authorization: `Bearer ${VENDOR_MOCK_KEY}` };
    const first = await gw.call('GET', '/v1/fine_tuning/jobs', { headers: raw });
    expect(first.status).toBe(200);
    expect(first.schema).toBe('resources/fine-tuning-job-list.json');
    expect(first.body.data).toHaveLength(20);
    expect(first.body.has_more).toBe(true);
    const second = await gw.call('GET', `/v1/fine_tuning/jobs?after=${first.body.data[19].id}`, { headers: raw });
    expect(second.body.data).toHaveLength(JOBS - 20);
    expect(second.body.has_more).toBe(false);
    const seen: string[] = [];
    for await (const job of gw.client(headers).fineTuning.jobs.list({ limit: 7 })) seen.push(job.id);
    expect(seen).toEqual([...created].reverse());
    expect([...first.body.data, ...second.body.data].map((j: { id: string }) => j.id)).toEqual(seen);
  });

  it('pages through checkpoints with first_id, last_id and has_more, 10 to a page by default', async () => {
    const job = created[0];
    const raw = { ...headers, authorization: `Bearer ${VENDOR_MOCK_KEY}` };
    const ids: string[] = [];
    let after: string | undefined;
    const sizes: number[] = [];
    for (;;) {
      const page = await gw.call('GET', `/v1/fine_tuning/jobs/${job}/checkpoints${after === undefined ? '' : `?after=${after}`}`, { headers: raw });
      expect(page.schema).toBe('resources/fine-tuning-checkpoint-list.json');
      expect(page.body.first_id).toBe(page.body.data[0].id);
      expect(page.body.last_id).toBe(page.body.data[page.body.data.length - 1].id);
      sizes.push(page.body.data.length);
      ids.push(...page.body.data.map((c: { id: string }) => c.id));
      if (!page.body.has_more) break;
      after = page.body.last_id;
    }
    expect(sizes).toEqual([10, 10, CHECKPOINTS_PER_JOB - 20]);
    const sdk: string[] = [];
    for await (const checkpoint of gw.client(headers).fineTuning.jobs.checkpoints.list(job)) {
      expect(checkpoint.fine_tuning_job_id).toBe(job);
      sdk.push(checkpoint.id);
    }
    expect(sdk).toEqual(ids);
    expect(new Set(ids).size).toBe(CHECKPOINTS_PER_JOB);
  });

  it('retrieves and cancels a job', async () => {
    const client = gw.client(headers);
    const job = await client.fineTuning.jobs.retrieve(created[1]);
    expect(job).toMatchObject({ id: created[1], object: 'fine_tuning.job', status: 'validating_files', model: 'vendor-chat-1' });
    const cancelled = await client.fineTuning.jobs.cancel(created[1]);
    expect(cancelled).toMatchObject({ id: created[1], status: 'cancelled' });
    expect(cancelled.finished_at).not.toBeNull();
  });

  it('checks bodies before they leave and passes the provider\'s own errors through', async () => {
    const raw = { ...headers, authorization: `Bearer ${VENDOR_MOCK_KEY}` };
    const before = gw.vendor[0].requests.length;
    const missing = await gw.call('POST', '/v1/fine_tuning/jobs', { headers: raw, body: { model: 'vendor-chat-1', training_file: 'file-x', method: {} } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'invalid_request_body', param: '/suffix' });
    const badLimit = await gw.call('GET', '/v1/fine_tuning/jobs?limit=0', { headers: raw });
    expect(badLimit.body.error).toMatchObject({ code: 'invalid_query', param: '/limit' });
    expect(gw.vendor[0].requests.length).toBe(before);
    const unknownFile = await fetch(`${gw.url}/v1/fine_tuning/jobs`, {
      method: 'POST',
      headers: { ...raw, 'x-gateway-api-key': GATEWAY_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'vendor-chat-1', training_file: 'file-nope', suffix: 'x', method: {} }),
    });
    expect(unknownFile.status).toBe(400);
    expect(((await unknownFile.json()) as { error: { code: string } }).error.code).toBe('invalid_training_file');
  });

  it('passes on an answer that breaks its schema, logs it with the contract-violation code and counts it', async () => {
    const mock = gw.vendor[0];
    const broken = JSON.stringify({ id: created[2], object: 'fine_tuning.job', status: 'exploded' });
    mock.script({ path: `/v1/fine_tuning/jobs/${created[2]}`, method: 'GET', body: broken });
    const res = await fetch(`${gw.url}/v1/fine_tuning/jobs/${created[2]}`, { headers: { ...headers, authorization: `Bearer ${VENDOR_MOCK_KEY}`, 'x-gateway-api-key': GATEWAY_KEY } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(broken);
    expect(gw.jobs.contract.violations.get('retrieveFineTuningJob')).toBe(1);
    const logged = gw.logs.find((l) => l.event === 'provider_contract_violation');
    expect(logged).toMatchObject({ level: 'warn', fields: { code: 'provider_contract_violation', operation: 'retrieveFineTuningJob', provider: 'vendor', count: 1 } });
  });

  it('refuses fine-tuning through a route whose provider has no fine-tuning API', async () => {
    const res = await gw.call('GET', '/v1/fine_tuning/jobs', { headers: plainHeaders(gw.vendor[0]) });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('endpoint_not_supported');
    const none = await gw.call('GET', '/v1/fine_tuning/jobs');
    expect(none.body.error.code).toBe('missing_provider');
  });
});

describe('fine-tuning in strict contract mode', () => {
  let gw: JobsGateway;

  beforeAll(async () => {
    gw = await startJobsGateway('sqlite', { vendorMocks: 1, settings: { contractMode: 'strict' } });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('answers 502 provider_contract_violation instead of passing a broken answer on', async () => {
    const mock = gw.vendor[0];
    mock.script({ path: '/v1/fine_tuning/jobs', method: 'GET', body: JSON.stringify({ object: 'list', data: [{ id: 'x' }], has_more: false }) });
    const res = await gw.call('GET', '/v1/fine_tuning/jobs', { headers: { ...vendorHeaders(mock), authorization: `Bearer ${VENDOR_MOCK_KEY}` } });
    expect(res.status).toBe(502);
    expect(res.body.error).toMatchObject({ code: 'provider_contract_violation', type: 'provider_error', provider: 'vendor' });
    expect(res.body.error.param).toMatch(/^\/data\/0/);
    expect(gw.jobs.contract.violations.get('listFineTuningJobs')).toBe(1);
    // A conforming answer still goes through.
    const ok = await gw.call('GET', '/v1/fine_tuning/jobs', { headers: { ...vendorHeaders(mock), authorization: `Bearer ${VENDOR_MOCK_KEY}` } });
    expect(ok.status).toBe(200);
  });
});
