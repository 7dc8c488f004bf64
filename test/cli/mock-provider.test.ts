// `gateway mock-provider` is what a newcomer first routes to: whatever a client sends through the
// gateway (which passes bodies on as they are), it answers and keeps serving.
import type { AddressInfo } from 'node:net';
import { fc, test } from '@fast-check/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { request } from 'node:http';
import { startMockProvider } from '../../runtime/cli/mock-provider.ts';
import { connectRealtime } from '../support/realtime-client.ts';
import { webSocketHandshake } from '../support/web-socket-handshake.ts';

let server: ReturnType<typeof startMockProvider>;
let base: string;

beforeAll(async () => {
  server = startMockProvider({ failEvery: 0, failStatus: 503, latencyMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function post(path: string, body: string): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  return { status: res.status, json: await res.json() };
}

it('answers 400 for a body that is JSON but not an object, and odd messages are skipped', async () => {
  for (const body of ['null', '[1,2]', '"text"', '7']) {
    const answer = await post('/chat/completions', body);
    expect(answer.status, body).toBe(400);
    expect(answer.json.error.code).toBe('invalid_json');
  }
  const chat = await post('/chat/completions', JSON.stringify({ model: 'm', messages: [null, 1, 'x', { role: 'user', content: 'still here' }] }));
  expect(chat.status).toBe(200);
  expect(chat.json.choices[0].message.content).toBe('[mock] still here');
});

it('reads text parts of a message, and answers a previous_response_id as not found, since it stores nothing', async () => {
  const chat = await post('/chat/completions', JSON.stringify({ model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text: 'two' }, { type: 'image_url', image_url: { url: 'x' } }, { type: 'text', text: 'parts' }] }] }));
  expect(chat.json.choices[0].message.content).toBe('[mock] two parts');
  const chained = await post('/responses', JSON.stringify({ model: 'm', input: 'again', previous_response_id: 'resp_1' }));
  expect(chained.status).toBe(404);
  expect(chained.json.error).toMatchObject({ code: 'previous_response_not_found', param: 'previous_response_id' });
});

test.prop([fc.constantFrom('/chat/completions', '/completions', '/embeddings', '/responses'), fc.jsonValue({ maxDepth: 3 })], { numRuns: 150 })('answers any JSON on every path and keeps serving', async (path, value) => {
  const answer = await post(path, JSON.stringify(value));
  expect([200, 400]).toContain(answer.status);
  expect((await fetch(`${base}/models`)).status).toBe(200);
});

it('holds a realtime text session over a WebSocket: the last text said, answered with its usage, and a close returned', async () => {
  const client = await connectRealtime(`${base}/realtime?model=gpt-realtime`, {});
  expect(((await client.event('session.created')).session as { model: string }).model).toBe('gpt-realtime');
  client.socket.send(JSON.stringify({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello over a socket' }] } }));
  client.socket.send(JSON.stringify({ type: 'response.create' }));
  const done = (await client.event('response.done')).response as { usage: { input_tokens: number; output_tokens: number }; output: Array<{ content: Array<{ text: string }> }> };
  expect(done.output[0].content[0].text).toBe('[mock] hello over a socket');
  expect(done.usage).toMatchObject({ input_tokens: 4, output_tokens: 5 });
  expect(client.events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta).join('')).toBe('[mock] hello over a socket');
  client.socket.send('not json');
  expect(((await client.event('error')).error as { code: string }).code).toBe('invalid_json');
  client.socket.close(1000, 'bye');
  expect((await client.closed).code).toBe(1000);
  // Anything else asking for a WebSocket is refused; another upgrade (curl's h2c) is answered as HTTP/1.1.
  expect((await webSocketHandshake(base.replace(/\/v1$/, ''), '/v1/chat', {})).status).toBe(404);
  expect((await webSocketHandshake(base.replace(/\/v1$/, ''), '/v1/realtime', {})).status).toBe(400);
  const h2c = await new Promise<number>((resolve, reject) => {
    const req = request(`${base}/models`, { headers: { connection: 'Upgrade, HTTP2-Settings', upgrade: 'h2c', 'http2-settings': 'AAMAAABkAAQCAAAAAAIAAAAA' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
  expect(h2c).toBe(200);
});
