// Signed reasoning an output redaction rewrote, across `gateway serve` processes on one Redis: the
// first turn through one process, the second (sending the redacted reasoning back with a tool result)
// through another, which puts the original back for the provider (the mock checks the signature). The
// request log keeps what the client sent and got, never the original it was not shown.
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

  it('a second turn through another process on one Redis gets the original back to the provider; the log holds the redacted text', { timeout: 60_000 }, async () => {
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
    } finally {
      await stopServes(...processes);
      await redis.kill();
    }
  });
});
