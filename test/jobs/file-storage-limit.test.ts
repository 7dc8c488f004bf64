// GATEWAY_FILE_STORAGE_MAX_BYTES through the HTTP API: an organisation's uploads stop at the limit with
// 400 file_storage_full (nothing stored), a delete makes room, a gateway-managed batch's output file is
// kept even past the limit (a finished batch's results are never refused), and a new batch is refused
// while the files fill the storage. Both backends' check is in test/jobs/store.conformance.test.ts.
import { toFile } from 'openai';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { jobSettingsFromEnv, DEFAULT_JOB_SETTINGS } from '../../runtime/jobs/settings.ts';
import { chatLine, type JobsGateway, jsonl, plainHeaders, startJobsGateway, until, VENDOR_MOCK_KEY, vendorHeaders } from './harness.ts';

const LIMIT = 4096;
let gw: JobsGateway;

beforeAll(async () => {
  gw = await startJobsGateway('sqlite', { vendorMocks: 1, settings: { fileStorageMaxBytes: LIMIT } });
});
afterAll(async () => {
  await gw?.close();
});

function form(content: string): FormData {
  const data = new FormData();
  data.append('purpose', 'fine-tune');
  data.append('file', new Blob([content]), 'f.jsonl');
  return data;
}

/** A fine-tune file of exactly `bytes` bytes. */
function lineOf(bytes: number): string {
  return `{"a":"${'x'.repeat(bytes - 9)}"}\n`;
}

it('reads the setting: 10 GiB by default, 0 for no limit', () => {
  expect(jobSettingsFromEnv({}).fileStorageMaxBytes).toBe(DEFAULT_JOB_SETTINGS.fileStorageMaxBytes);
  expect(DEFAULT_JOB_SETTINGS.fileStorageMaxBytes).toBe(10 * 1024 ** 3);
  expect(jobSettingsFromEnv({ GATEWAY_FILE_STORAGE_MAX_BYTES: '0' }).fileStorageMaxBytes).toBe(0);
  expect(() => jobSettingsFromEnv({ GATEWAY_FILE_STORAGE_MAX_BYTES: '-1' })).toThrow('GATEWAY_FILE_STORAGE_MAX_BYTES');
});

it('refuses an upload past the organisation\'s storage with 400 file_storage_full, and takes it once a delete made room', async () => {
  const first = await gw.call('POST', '/v1/files', { raw: form(lineOf(3000)) });
  expect(first.status).toBe(200);
  const over = await gw.call('POST', '/v1/files', { raw: form(lineOf(1097)) });
  expect(over.status).toBe(400);
  expect(over.body.error).toMatchObject({ code: 'file_storage_full', type: 'invalid_request_error', param: 'file' });
  expect(over.body.error.message).toContain(`at most ${LIMIT} bytes of files per organisation (GATEWAY_FILE_STORAGE_MAX_BYTES)`);
  expect(over.body.error.message).toContain('take 3000, and this one has 1097');
  const listed = await gw.call('GET', '/v1/files');
  expect(listed.body.data.map((f: { id: string }) => f.id)).toEqual([first.body.id]);
  // Exactly to the limit is allowed.
  expect((await gw.call('POST', '/v1/files', { raw: form(lineOf(1096)) })).status).toBe(200);
  expect((await gw.call('DELETE', `/v1/files/${first.body.id}`)).status).toBe(200);
  expect((await gw.call('POST', '/v1/files', { raw: form(lineOf(1097)) })).status).toBe(200);
  for (const file of (await gw.call('GET', '/v1/files')).body.data as Array<{ id: string }>) await gw.call('DELETE', `/v1/files/${file.id}`);
});

it('keeps a gateway-managed batch\'s output file past the limit, and then refuses uploads and new batches until files are deleted', async () => {
  const headers = plainHeaders(gw.vendor[0]);
  const client = gw.client(headers);
  const input = await client.files.create({ file: await toFile(Buffer.from(jsonl([chatLine('s-0', 'one'), chatLine('s-1', 'two')])), 'in.jsonl'), purpose: 'batch' });
  // Fill the storage to a byte short of the limit: room for no file, but a batch may still start.
  const filler = await gw.call('POST', '/v1/files', { raw: form(lineOf(LIMIT - input.bytes - 1)), headers });
  expect(filler.status).toBe(200);
  const batch = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
  expect(batch.id).toMatch(/^batch_gw/);
  const done = await until(() => client.batches.retrieve(batch.id), (b) => ['completed', 'failed', 'expired', 'cancelled'].includes(b.status), 20_000, 'the batch');
  expect(done).toMatchObject({ status: 'completed', request_counts: { total: 2, completed: 2, failed: 0 } });
  const output = await (await client.files.content(done.output_file_id!)).text();
  expect(output.trimEnd().split('\n')).toHaveLength(2);
  const refused = await gw.call('POST', '/v1/files', { raw: form(lineOf(10)), headers });
  expect(refused.body.error?.code).toBe('file_storage_full');
  const again = await gw.call('POST', '/v1/batches', { body: { input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' }, headers });
  expect(again.status).toBe(400);
  expect(again.body.error).toMatchObject({ code: 'file_storage_full', param: '/input_file_id' });
  expect(again.body.error.message).toContain("a batch's results are kept as files");
  // Deleting the output makes room for the next batch again.
  expect((await gw.call('DELETE', `/v1/files/${done.output_file_id}`, { headers })).status).toBe(200);
  const next = await gw.call('POST', '/v1/batches', { body: { input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' }, headers });
  expect(next.status).toBe(200);
  await until(() => client.batches.retrieve(next.body.id), (b) => b.status === 'completed', 20_000, 'the next batch');
});

it('counts a provider\'s file copied in to run an immediate batch from like an upload', async () => {
  for (const file of (await gw.call('GET', '/v1/files', { headers: plainHeaders(gw.vendor[0]) })).body.data as Array<{ id: string }>) {
    await gw.call('DELETE', `/v1/files/${file.id}`, { headers: plainHeaders(gw.vendor[0]) });
  }
  const headers = vendorHeaders(gw.vendor[0]);
  const client = gw.client(headers);
  const atProvider = await client.files.create({ file: await toFile(Buffer.from(jsonl([chatLine('p-0', 'one'), chatLine('p-1', 'two')])), 'p.jsonl'), purpose: 'batch' });
  expect(gw.vendor[0].requests.some((r) => r.method === 'POST' && r.path === '/v1/files')).toBe(true);
  expect((await gw.call('POST', '/v1/files', { raw: form(lineOf(LIMIT - 100)), headers: plainHeaders(gw.vendor[0]) })).status).toBe(200);
  const refused = await gw.call('POST', '/v1/batches', { body: { input_file_id: atProvider.id, endpoint: '/v1/chat/completions', completion_window: 'immediate' }, headers: { ...headers, authorization: `Bearer ${VENDOR_MOCK_KEY}` } });
  expect(refused.status).toBe(400);
  expect(refused.body.error).toMatchObject({ code: 'file_storage_full', param: '/input_file_id' });
  expect(refused.body.error.message).toContain(`the provider's file ${atProvider.id}, copied in to run the batch from, has ${atProvider.bytes}`);
});
