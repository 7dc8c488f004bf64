// Signed reasoning an output redaction rewrote, across `gateway serve` processes on one Redis: the
// first turn through one process, the second (sending the redacted reasoning back with a tool result)
// through another, which puts the original back for the provider (the mock checks the signature). The
// request log keeps what the client sent and got, never the original it was not shown. And the
// signed thinking the chat translation kept through one process is put back by another.
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MockServer } from '../mocks/http/mock-server.ts';
import { startMessagesMock, MESSAGES_MOCK_KEY } from '../mocks/messages/index.ts';
import { REASONING_CALLS, secondTurn } from './reasoning-calls.ts';
import { type ServeProcess, startPrivateRedis, startServe, stopServes, until } from './serve-processes.ts';

const ADMIN = 'gw_reasoning-processes-admin-0123456789abc';
const EMAIL = 'jane.doe@example.com';

describe('rewritten reasoning across processes', () => {
  let mock: MockServer;
  let dir: string;
  beforeAll(async () => {
    mock = await startMessagesMock({ label: 'messages' });
    dir = await mkdtemp(join(tmpdir(), 'gateway-reasoning-processes-'));
    await mkdir(join(dir, 'configs'));
    await writeFile(join(dir, 'configs', 'pii-out.json'), JSON.stringify({ provider: 'anthropic', api_key: MESSAGES_MOCK_KEY, custom_host: mock.baseURL, output_guardrails: [{ id: 'pii', 'default.piiRedact': {} }] }));
  });
  afterAll(async () => {
    await mock?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a second turn through another process on one Redis gets the original back to the provider (the log holds the redacted text), and so does a chat agent\'s tool-use turn', { timeout: 60_000 }, async () => {
    const redis = await startPrivateRedis();
    const processes: ServeProcess[] = [];
    try {
      const env = { GATEWAY_API_KEY: ADMIN, REDIS_URL: redis.url, GATEWAY_MEMORY_TUNING: 'off', GATEWAY_LOG_BODIES: 'on', GATEWAY_LOG_FLUSH_MS: '50' };
      processes.push(await startServe(env, join(dir, 'data'), ['--configs', join(dir, 'configs')]));
      processes.push(await startServe(env, join(dir, 'data'), ['--configs', join(dir, 'configs')]));
      const [a, b] = processes.map((p) => p.url);
      const call = REASONING_CALLS.find((c) => c.name === 'messages, streamed')!;
      const question = `write to ${EMAIL} today`;
      const send = (url: string, body: unknown, trace: string) => fetch(`${url}${call.path}`, {
        method: 'POST',
        headers: { 'x-gateway-api-key': ADMIN, 'x-gateway-config': 'pii-out', 'x-gateway-trace-id': trace, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const run = randomUUID();
      const turn = await call.read(await send(a, call.firstTurn(question), `first-${run}`));
      expect(turn.reasoning).toBe('[messages] thinking about: write to [EMAIL] today');

      const second = await send(b, secondTurn(call, question, turn), `second-${run}`);
      expect(second.status, await second.clone().text()).toBe(200);
      await second.text();
      expect(call.sentReasoning(mock.requests.at(-1)!.json)).toBe(`[messages] thinking about: ${question}`);

      const record = async (url: string, trace: string) => (await until(async () => (await (await fetch(`${url}/v1/logs?trace_id=${trace}`, { headers: { 'x-gateway-api-key': ADMIN } })).json()) as { data: Array<{ request_body: string; response_body: string }> }, (page) => page.data.length === 1)).data[0]!;
      const first = await record(a, `first-${run}`);
      expect(first.response_body).toContain('write to [EMAIL] today');
      expect(first.response_body).not.toContain(`about: write to ${EMAIL}`);
      const logged = await record(b, `second-${run}`);
      expect(logged.request_body).toContain('thinking about: write to [EMAIL] today');
      expect(logged.request_body).not.toContain(`about: write to ${EMAIL}`);

      // A chat agent's tool-use turns with thinking: the thinking the translation kept through one process is put back by the other.
      const chat = (url: string, messages: unknown[]) => fetch(`${url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'x-gateway-api-key': ADMIN, 'x-gateway-config': 'pii-out', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'claude-sonnet-4-0', max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 }, tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }], messages }),
      });
      const ask = { role: 'user', content: `look up ${EMAIL} ${run}` };
      const called = (await (await chat(a, [ask])).json()) as { choices: Array<{ message: { reasoning_content: string; tool_calls: Array<{ id: string }> } }> };
      const calls = called.choices[0]!.message.tool_calls;
      expect(called.choices[0]!.message.reasoning_content).toContain('[EMAIL]');
      const answered = await chat(b, [ask, { role: 'assistant', content: null, tool_calls: calls }, { role: 'tool', tool_call_id: calls[0]!.id, content: 'done' }]);
      expect(answered.status, await answered.clone().text()).toBe(200);
      await answered.text();
      expect((mock.requests.at(-1)!.json as any).messages[1].content[0]).toMatchObject({ type: 'thinking', thinking: `[messages] thinking about: look up ${EMAIL} ${run}` });
    } finally {
      await stopServes(...processes);
      await redis.kill();
    }
  });
});
