// Nothing a client sends reaches the process as a crash or a 500: arbitrary upload bodies, forms and
// batch files, and arbitrary JSON for batches and emulated responses, answer with a client error
// (or success) in the gateway error shape, and the gateway keeps serving.
import { fc } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobsGateway, plainHeaders, startJobsGateway, VENDOR_MOCK_KEY } from './harness.ts';

const BOUNDARY = 'fuzz';
const line = fc.oneof(
  fc.string(),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc.record({ custom_id: fc.oneof(fc.string(), fc.integer()), method: fc.constantFrom('POST', 'GET', 1), url: fc.constantFrom('/v1/chat/completions', '/v1/embeddings', 'x'), body: fc.jsonValue() }).map((v) => JSON.stringify(v)),
);
const fileText = fc.array(line, { maxLength: 6 }).map((lines) => lines.join('\n'));
const uploadBody = fc.oneof(
  fc.uint8Array({ maxLength: 400 }).map((bytes) => Buffer.from(bytes)),
  fc.tuple(fc.constantFrom('batch', 'fine-tune', 'assistants', ''), fileText, fc.boolean()).map(([purpose, text, named]) =>
    Buffer.from(`--${BOUNDARY}\r\ncontent-disposition: form-data; name="purpose"\r\n\r\n${purpose}\r\n--${BOUNDARY}\r\ncontent-disposition: form-data; name="file"${named ? '; filename="f.jsonl"' : ''}\r\n\r\n${text}\r\n--${BOUNDARY}--\r\n`),
  ),
);

describe('hostile input', () => {
  let gw: JobsGateway;
  let headers: Record<string, string>;

  beforeAll(async () => {
    gw = await startJobsGateway('sqlite', { vendorMocks: 1, settings: { fileMaxBytes: 256 } });
    headers = { ...plainHeaders(gw.vendor[0]), authorization: `Bearer ${VENDOR_MOCK_KEY}` };
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('uploads answer 200, 400 or 413 in the gateway error shape', async () => {
    await fc.assert(
      fc.asyncProperty(uploadBody, fc.constantFrom(`multipart/form-data; boundary=${BOUNDARY}`, 'multipart/form-data; boundary=other', 'text/plain'), async (body, type) => {
        const res = await gw.call('POST', '/v1/files', { raw: body, headers: { 'content-type': type } });
        expect([200, 400, 413]).toContain(res.status);
        if (res.status !== 200) expect(res.schema).toBe('resources/error.json');
      }),
      { numRuns: 60 },
    );
  });

  it('batch and response bodies answer without a server error', async () => {
    const file = await gw.call('POST', '/v1/files', { raw: `--${BOUNDARY}\r\ncontent-disposition: form-data; name="purpose"\r\n\r\nbatch\r\n--${BOUNDARY}\r\ncontent-disposition: form-data; name="file"; filename="f.jsonl"\r\n\r\n{"custom_id":"a","method":"POST","url":"/v1/chat/completions","body":{}}\r\n--${BOUNDARY}--\r\n`, headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}` } });
    expect(file.status).toBe(200);
    const batchBody = fc.record({ input_file_id: fc.constantFrom(file.body.id, 'file-none', 7), endpoint: fc.constantFrom('/v1/chat/completions', '/v1/embeddings', '/nope'), completion_window: fc.constantFrom('immediate', '24h', 'now'), metadata: fc.option(fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer()))) }, { requiredKeys: [] });
    // A function call's output as parts: text, images and files of any shape.
    const outputParts = fc.array(fc.record({ type: fc.constantFrom('input_text', 'input_image', 'input_file', 'x'), text: fc.jsonValue(), image_url: fc.oneof(fc.webUrl(), fc.jsonValue()), file_data: fc.oneof(fc.constant('data:application/pdf;base64,JVBERg=='), fc.jsonValue()), file_id: fc.jsonValue(), file_url: fc.string(), filename: fc.jsonValue() }, { requiredKeys: ['type'] }), { maxLength: 3 });
    const input = fc.oneof(fc.string(), fc.array(fc.oneof(fc.record({ role: fc.constantFrom('user', 'assistant', 'tool', 'developer'), content: fc.oneof(fc.string(), fc.array(fc.record({ type: fc.constantFrom('input_text', 'input_image', 'input_file', 'x'), text: fc.string(), image_url: fc.webUrl() }, { requiredKeys: ['type'] }))) }, { requiredKeys: ['role'] }), fc.record({ type: fc.constantFrom('function_call', 'function_call_output', 'reasoning', 'message', 'item_reference'), call_id: fc.string(), output: fc.oneof(fc.jsonValue(), outputParts), role: fc.constantFrom('user', 'x'), id: fc.oneof(fc.string(), fc.constantFrom(`msg_gw${'0'.repeat(32)}_out0`, `fco_gw${'f'.repeat(32)}_2`), fc.jsonValue()) }, { requiredKeys: ['type'] })), { maxLength: 4 }));
    const responseBody = fc.record({
      model: fc.constantFrom('vendor-chat-1', 'vendor-chat-mini', ''),
      input,
      instructions: fc.option(fc.string()),
      previous_response_id: fc.option(fc.constantFrom('resp_none', '')),
      truncation: fc.constantFrom('auto', 'disabled', null, 'x'),
      tools: fc.array(fc.record({ type: fc.constantFrom('function', 'web_search', 'file_search'), name: fc.string() }, { requiredKeys: ['type'] }), { maxLength: 2 }),
      tool_choice: fc.oneof(fc.constantFrom('auto', 'none', 'required', 'sometimes'), fc.record({ type: fc.constantFrom('function', 'x'), name: fc.string() })),
      text: fc.record({ format: fc.record({ type: fc.constantFrom('text', 'json_object', 'json_schema', 'yaml'), schema: fc.jsonValue() }) }),
      max_output_tokens: fc.option(fc.integer({ min: -5, max: 100 })),
      stream: fc.boolean(),
      store: fc.boolean(),
    }, { requiredKeys: [] });
    await fc.assert(
      fc.asyncProperty(fc.oneof(batchBody.map((b) => ['/v1/batches', b] as const), responseBody.map((b) => ['/v1/responses', b] as const)), async ([path, body]) => {
        const res = await fetch(`${gw.url}${path}`, { method: 'POST', headers: { ...headers, 'x-gateway-api-key': 'gw_jobs-test-admin-key-0123456789abcdefghij', 'content-type': 'application/json' }, body: JSON.stringify(body) });
        await res.arrayBuffer();
        expect(res.status, JSON.stringify(body)).toBeLessThan(500);
      }),
      { numRuns: 120 },
    );
    await gw.jobs.runner.idle();
    expect(gw.logs.filter((l) => l.level === 'error')).toEqual([]);
    expect((await gw.call('GET', '/v1/batches?limit=1')).status).toBe(200);
  });
});
