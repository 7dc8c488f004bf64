// One entry point: a gateway-managed batch line runs through the same pipeline as a live request,
// so the same request sent both ways leaves the same log record (but for its source, ids and timing).
import { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestRecord } from '../../runtime/core/request-record.ts';
import { chatLine, type JobsGateway, jsonl, plainHeaders, startJobsGateway, until } from '../jobs/harness.ts';

/** The fields that describe what happened, not when or under which id. */
function routingFacts(record: RequestRecord) {
  const { id, traceId, createdAt, latencyMs, ttfbMs, source, apiKeyId, workspaceId, ...facts } = record;
  return facts;
}

describe('a batch line and a live request', () => {
  let gw: JobsGateway;

  beforeAll(async () => {
    gw = await startJobsGateway('sqlite', { vendorMocks: 1 });
  });
  afterAll(async () => {
    await gw?.close();
  });

  it('leave the same record', async () => {
    const headers = { ...plainHeaders(gw.vendor[0]), 'x-gateway-metadata': JSON.stringify({ team: 'batch' }) };
    const client = gw.client(headers);
    const line = chatLine('line-0', 'the same question');
    await client.chat.completions.create(line.body as never, { headers: { 'x-gateway-trace-id': 'live-request' } });
    const live = await until(async () => gw.records.find((r) => r.traceId === 'live-request'), (r) => r !== undefined, 2000, 'live record');

    const file = await client.files.create({ file: await toFile(Buffer.from(jsonl([line])), 'one.jsonl'), purpose: 'batch' });
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    await until(() => client.batches.retrieve(batch.id), (b) => b.status === 'completed', 15_000, 'batch');
    const fromBatch = gw.records.find((r) => r.source === 'batch');
    expect(fromBatch).toBeDefined();
    expect(live!.source).toBe('http');
    expect(routingFacts(fromBatch!)).toEqual(routingFacts(live!));
  });
});
