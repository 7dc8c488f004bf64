// Answers made in the same turn of the event loop are written together (runtime/upstream/end-in-turn.ts):
// under many concurrent requests every client still gets its own answer, from the provider, from
// the cache, or as a denial, never another's. The gateway is `serve`'s (cache and guardrails on).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../runtime/server/start.ts';
import { startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';
import { type ServedConfigs, serveConfigs } from './serve-in-process.ts';

const ADMIN = 'gw_concurrent-e2e-admin-key-0123456789abc';
const CONCURRENT = 120;

let gateway: RunningGateway;
let mock: VendorMock;
let served: ServedConfigs;

beforeAll(async () => {
  mock = await startVendorMock({ label: 'mock' });
  const target = { provider: 'openai', api_key: VENDOR_MOCK_KEY, custom_host: mock.baseURL };
  served = await serveConfigs('concurrent', ADMIN, {
    single: target,
    cached: { ...target, cache: { mode: 'simple', max_age: 60 } },
    guarded: { ...target, input_guardrails: [{ id: 'no-secret', deny: true, 'default.contains': { words: ['secret'], operator: 'none' } }] },
  });
  gateway = served.gateway;
});
afterAll(async () => {
  await served?.close();
  await mock?.close();
});

async function ask(config: string, content: string): Promise<{ status: number; text: string; cache: string | null }> {
  const response = await fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${VENDOR_MOCK_KEY}`, 'x-gateway-api-key': ADMIN, 'x-gateway-config': config },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content }] }),
  });
  const body = (await response.json()) as { choices?: Array<{ message: { content: string } }>; error?: { code: string } };
  return { status: response.status, text: body.choices?.[0]?.message.content ?? body.error?.code ?? '', cache: response.headers.get('x-gateway-cache-status') };
}

describe('many answers in one turn', () => {
  it('gives every client its own answer through a provider', async () => {
    const answers = await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => ask('single', `question ${i}`)));
    answers.forEach((answer, i) => expect(answer).toMatchObject({ status: 200, text: `[mock] question ${i}` }));
  });

  it('gives every client its own answer from the cache', async () => {
    const contents = Array.from({ length: CONCURRENT }, (_, i) => `cached ${i}`);
    await Promise.all(contents.map((content) => ask('cached', content)));
    const answers = await Promise.all(contents.map((content) => ask('cached', content)));
    answers.forEach((answer, i) => expect(answer).toMatchObject({ status: 200, cache: 'HIT', text: `[mock] cached ${i}` }));
  });

  it('keeps denials and answers apart when they are made in the same turn', async () => {
    const answers = await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => ask('guarded', i % 3 === 0 ? `secret ${i}` : `open ${i}`)));
    answers.forEach((answer, i) => expect(answer).toMatchObject(i % 3 === 0 ? { status: 446, text: 'denied_by_guardrail' } : { status: 200, text: `[mock] open ${i}` }));
  });
});
