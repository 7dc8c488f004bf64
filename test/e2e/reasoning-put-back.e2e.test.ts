// Signed reasoning through an output redaction, as a coding agent's tool-use turns send it: the
// client gets the model's reasoning redacted, sends that block back with its tool result in the next
// turn, and the provider gets its own words back (the mocks check each block's signature over its
// text, as the services do). For the messages API (JSON and SSE), a Claude model's invoke (JSON and
// the event stream) and converse (JSON and the event stream), and their token counts. The client's body stays what the route
// knows of the request: a block sent back with any other text goes on as sent (the provider refuses
// it). Across processes on one Redis: test/e2e/reasoning-processes.test.ts.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCloudcMock, CLOUDC_ACCESS_KEY_ID, CLOUDC_REGION, CLOUDC_SECRET_ACCESS_KEY } from '../mocks/cloudc/index.ts';
import type { MockServer } from '../mocks/http/mock-server.ts';
import { startMessagesMock, MESSAGES_MOCK_KEY } from '../mocks/messages/index.ts';
import { serveConfigs, type ServedConfigs } from './serve-in-process.ts';
import { countedBody, countOf, type ReasoningCall, REASONING_CALLS, secondTurn } from './reasoning-calls.ts';

const KEY = 'gw-reasoning-put-back';
const EMAIL = 'jane.doe@example.com';
const PII = { id: 'pii', 'default.piiRedact': {} };

let served: ServedConfigs;
let messages: MockServer;
let cloudc: MockServer;

beforeAll(async () => {
  [messages, cloudc] = await Promise.all([startMessagesMock({ label: 'messages' }), startCloudcMock({ label: 'cloudc' })]);
  const targets = {
    messages: { provider: 'anthropic', api_key: MESSAGES_MOCK_KEY, custom_host: messages.baseURL },
    cloudc: { provider: 'cloudc', custom_host: cloudc.url, cloudc_region: CLOUDC_REGION, cloudc_access_key_id: CLOUDC_ACCESS_KEY_ID, cloudc_secret_access_key: CLOUDC_SECRET_ACCESS_KEY },
  };
  served = await serveConfigs('reasoning-put-back', KEY, {
    'messages-out': { ...targets.messages, output_guardrails: [PII] },
    'cloudc-out': { ...targets.cloudc, output_guardrails: [PII] },
    'messages-plain': targets.messages,
    'messages-retry': { ...targets.messages, output_guardrails: [PII], retry: { attempts: 2, on_status_codes: [503] } },
  });
});

afterAll(async () => {
  await served?.close();
  await Promise.all([messages, cloudc].map((m) => m?.close()));
});

function send(call: ReasoningCall, config: string, body: unknown, key = KEY): Promise<Response> {
  return fetch(`${served.gateway.url}${call.path}`, {
    method: 'POST',
    headers: { 'x-gateway-api-key': key, 'x-gateway-config': config, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const mockOf = (call: ReasoningCall): MockServer => (call.family === 'messages' ? messages : cloudc);

describe('signed reasoning an output redaction rewrote, sent back in the next turn', () => {
  for (const call of REASONING_CALLS) {
    it(`${call.name}: the client sees it redacted, the provider gets its own words back`, async () => {
      const config = `${call.family}-out`;
      const first = await send(call, config, call.firstTurn(`write to ${EMAIL} today`));
      expect(first.status).toBe(200);
      const turn = await call.read(first);
      expect(turn.reasoning).toBe(`[${call.family}] thinking about: write to [EMAIL] today`);
      expect(JSON.stringify(turn.content)).not.toContain(`about: write to ${EMAIL}`);

      const mock = mockOf(call);
      const before = mock.requests.length;
      const second = await send(call, config, secondTurn(call, `write to ${EMAIL} today`, turn));
      const answer = await second.text();
      expect(second.status, answer).toBe(200);
      expect(mock.requests.length).toBe(before + 1);
      const sent = mock.requests.at(-1)!.json;
      expect(call.sentReasoning(sent)).toBe(`[${call.family}] thinking about: write to ${EMAIL} today`);

      // Its token count (which clients ask for between turns) counts what the call would send.
      const count = countOf(call, secondTurn(call, `write to ${EMAIL} today`, turn));
      const counted = await fetch(`${served.gateway.url}${count.path}`, {
        method: 'POST',
        headers: { 'x-gateway-api-key': KEY, 'x-gateway-config': config, 'content-type': 'application/json' },
        body: JSON.stringify(count.body),
      });
      expect(counted.status, await counted.clone().text()).toBe(200);
      expect(call.sentReasoning(countedBody(call, mock.requests.at(-1)!.json))).toBe(`[${call.family}] thinking about: write to ${EMAIL} today`);
    });
  }

  it('a block sent back with another text than the one given out goes on as sent: the provider refuses its signature', async () => {
    const call = REASONING_CALLS[0]!;
    const turn = await call.read(await send(call, 'messages-out', call.firstTurn(`write to ${EMAIL} today`)));
    const edited = { ...turn, content: call.withReasoning(turn.content, `${turn.reasoning} (edited)`) };
    const refused = await send(call, 'messages-out', secondTurn(call, `write to ${EMAIL} today`, edited));
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('Invalid `signature` in `thinking` block');
    expect(call.sentReasoning(messages.requests.at(-1)!.json)).toBe(`${turn.reasoning} (edited)`);
  });

  it('an assistant turn sent back without its reasoning is refused by the model, with thinking on (the mocks check it as the services do)', async () => {
    for (const call of [REASONING_CALLS[0]!, REASONING_CALLS.find((c) => c.name === 'converse')!]) {
      const turn = await call.read(await send(call, `${call.family}-out`, call.firstTurn('write to me')));
      const withoutReasoning = { ...turn, content: turn.content.filter((b) => b.type !== 'thinking' && b.reasoningContent === undefined) };
      const refused = await send(call, `${call.family}-out`, secondTurn(call, 'write to me', withoutReasoning));
      expect(refused.status).toBe(400);
      expect(await refused.text()).toContain('must start with a thinking block');
    }
  });

  it('every try of a retried request carries the original; the client\'s body is the exchange\'s again after each', async () => {
    const call = REASONING_CALLS[0]!;
    const turn = await call.read(await send(call, 'messages-retry', call.firstTurn(`write to ${EMAIL} today`)));
    expect(turn.reasoning).toContain('[EMAIL]');
    messages.script({ path: '/v1/messages', status: 503 });
    const before = messages.requests.length;
    const second = await send(call, 'messages-retry', secondTurn(call, `write to ${EMAIL} today`, turn));
    expect(second.status, await second.clone().text()).toBe(200);
    const tries = messages.requests.slice(before);
    expect(tries.length).toBe(2);
    for (const sent of tries) expect(call.sentReasoning(sent.json)).toBe(`[messages] thinking about: write to ${EMAIL} today`);
  });

  it('another organisation sending the block back gets nothing put back: the provider refuses its signature', async () => {
    const other = await served.gateway.store.apiKeys.create({ scope: 'admin', organisationId: randomUUID() });
    await served.gateway.store.changes.refresh();
    const call = REASONING_CALLS[0]!;
    const turn = await call.read(await send(call, 'messages-out', call.firstTurn(`write to ${EMAIL} today`)));
    const refused = await send(call, 'messages-out', secondTurn(call, `write to ${EMAIL} today`, turn), other.key);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('Invalid `signature` in `thinking` block');
    expect((await send(call, 'messages-out', secondTurn(call, `write to ${EMAIL} today`, turn))).status).toBe(200);
  });

  it('a route without output checks passes reasoning both ways as it is', async () => {
    const call = REASONING_CALLS[0]!;
    const turn = await call.read(await send(call, 'messages-plain', call.firstTurn(`write to ${EMAIL} today`)));
    expect(turn.reasoning).toBe(`[messages] thinking about: write to ${EMAIL} today`);
    const second = await send(call, 'messages-plain', secondTurn(call, `write to ${EMAIL} today`, turn));
    expect(second.status).toBe(200);
  });
});
