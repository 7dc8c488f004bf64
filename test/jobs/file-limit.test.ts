// GATEWAY_FILE_MAX_BYTES works up to the largest value the server's body limit (GATEWAY_MAX_BODY_BYTES)
// lets through, and a larger one stops the start instead of being accepted and never met.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEFAULT_MAX_BODY_BYTES } from '../../runtime/server/server.ts';
import { DEFAULT_JOB_SETTINGS, FORM_OVERHEAD, jobSettingsFromEnv, maxFileMaxBytes } from '../../runtime/jobs/settings.ts';
import { type JobsGateway, startJobsGateway } from './harness.ts';

let gw: JobsGateway;
const MAX_FILE_MAX_BYTES = maxFileMaxBytes({});

beforeAll(async () => {
  gw = await startJobsGateway('sqlite', { vendorMocks: 1, settings: { fileMaxBytes: MAX_FILE_MAX_BYTES } });
});
afterAll(async () => {
  await gw?.close();
});

it('refuses a file limit the server body limit would never let a file reach, and takes the largest that works', () => {
  expect(jobSettingsFromEnv({}).fileMaxBytes).toBe(DEFAULT_JOB_SETTINGS.fileMaxBytes);
  expect(jobSettingsFromEnv({ GATEWAY_FILE_MAX_BYTES: String(MAX_FILE_MAX_BYTES) }).fileMaxBytes).toBe(MAX_FILE_MAX_BYTES);
  expect(() => jobSettingsFromEnv({ GATEWAY_FILE_MAX_BYTES: String(MAX_FILE_MAX_BYTES + 1) })).toThrow(
    `GATEWAY_FILE_MAX_BYTES must be at most ${MAX_FILE_MAX_BYTES}, not ${MAX_FILE_MAX_BYTES + 1}: the server refuses request bodies over ${DEFAULT_MAX_BODY_BYTES} bytes (GATEWAY_MAX_BODY_BYTES)`,
  );
  // A raised body limit raises the most a file may be; a lowered one lowers the default with it.
  const body = 64 * 1024 * 1024;
  expect(jobSettingsFromEnv({ GATEWAY_MAX_BODY_BYTES: String(body), GATEWAY_FILE_MAX_BYTES: String(body - FORM_OVERHEAD) }).fileMaxBytes).toBe(body - FORM_OVERHEAD);
  expect(jobSettingsFromEnv({ GATEWAY_MAX_BODY_BYTES: String(4 * 1024 * 1024) }).fileMaxBytes).toBe(3 * 1024 * 1024);
  expect(() => jobSettingsFromEnv({ GATEWAY_MAX_BODY_BYTES: '1048576' })).toThrow('GATEWAY_MAX_BODY_BYTES must be an integer of at least 2097152 and at most 1073741824, not "1048576"');
});

it('at the largest limit, a file of exactly that size is uploaded and one byte more is 413 file_too_large', async () => {
  const line = (size: number): string => `{"a":"${'x'.repeat(size - 9)}"}\n`;
  const upload = (content: string) => {
    const data = new FormData();
    data.append('purpose', 'fine-tune');
    data.append('file', new Blob([content]), 'big.jsonl');
    return gw.call('POST', '/v1/files', { raw: data });
  };
  const exact = await upload(line(MAX_FILE_MAX_BYTES));
  expect(exact.status).toBe(200);
  expect(exact.body.bytes).toBe(MAX_FILE_MAX_BYTES);
  const over = await upload(line(MAX_FILE_MAX_BYTES + 1));
  expect(over.status).toBe(413);
  expect(over.body.error).toMatchObject({ code: 'file_too_large', param: 'file' });
}, 30_000);
