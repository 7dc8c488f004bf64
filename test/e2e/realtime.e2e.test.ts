// A realtime API's WebSocket through the pass-through: the handshake routed like any request (the
// gateway key, the config's target and credential, retries and fallbacks on a refused handshake), then
// the session's frames carried both ways, and the session logged once it ended, with the usage its
// responses reported (read from the provider's events as they went by) and its cost. A route whose
// hooks or guardrails would have to judge the session refuses it.
import { connect as connectTcp } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { REALTIME_USAGE, SESSIONS } from '../mocks/vendor/realtime.ts';
import { GATEWAY_KEY, startE2E, target, VENDOR_MOCK_KEY, type E2E } from './harness.ts';
import { type HandshakeAnswer, webSocketHandshake } from '../support/web-socket-handshake.ts';
import { connectRealtime, type RealtimeClient } from '../support/realtime-client.ts';
import { CLOUDA_MOCK_KEY, startCloudaMock } from '../mocks/clouda/index.ts';
import type { MockServer } from '../mocks/http/mock-server.ts';
import { requestLogWire } from '../../runtime/api/logs/wire.ts';

let e2e: E2E;
let clouda: MockServer;

beforeAll(async () => {
  clouda = await startCloudaMock({ label: 'clouda-realtime', deployments: { voice: 'gpt-realtime' } });
  e2e = await startE2E({
    mocks: 2,
    configs: {
      single: target(0),
      // The beta realtime API's header reaches the provider only where the route forwards it.
      beta: target(0, { forward_headers: ['openai-beta'] }),
      clouda: { provider: 'clouda', api_key: CLOUDA_MOCK_KEY, custom_host: `${clouda.url}/openai` },
      fallback: { strategy: { mode: 'fallback', on_status_codes: [503] }, targets: [target(0, { name: 'first' }), target(1, { name: 'second' })] },
      guarded: { ...target(0), input_guardrails: [{ id: 'no-secret', deny: true, 'default.contains': { words: ['secret'], operator: 'none' } }] },
    },
  });
});
afterAll(async () => {
  await e2e.close();
  await clouda.close();
});

/** A realtime client of the shared gateway, with its key and `config`. */
function connect(config: string, headers: Record<string, string> = {}, path = '/v1/realtime?model=gpt-realtime'): Promise<RealtimeClient> {
  return connectRealtime(`${e2e.gateway.url}${path}`, { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': config, ...headers });
}

/** A handshake by hand, to the shared gateway. */
function handshake(path: string, headers: Record<string, string>): Promise<HandshakeAnswer> {
  return webSocketHandshake(e2e.gateway.url, path, headers);
}

describe('a realtime session through the pass-through', () => {
  it('opens at the config\'s target with its credential, carries events both ways, and is logged with its responses\' usage and cost when it ends', async () => {
    const before = e2e.mocks[0].requests.length;
    const traceId = 'realtime-session-1';
    const client = await connect('single', { 'x-gateway-trace-id': traceId, authorization: 'Bearer not-the-config-key' });
    expect(client.socket.protocol).toBe('realtime');
    const created = await client.event('session.created');
    expect((created.session as { model: string }).model).toBe('gpt-realtime');
    client.socket.send(JSON.stringify({ type: 'session.update', session: { type: 'realtime', instructions: 'Be brief.' } }));
    client.socket.send(JSON.stringify({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hello' }] } }));
    client.socket.send(JSON.stringify({ type: 'response.create' }));
    const done = await client.event('response.done');
    expect((done.response as { status: string }).status).toBe('completed');
    const text = client.events.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta).join('');
    expect(text).toBe('Hello from the realtime mock.');
    // A second response: the session's usage is both.
    client.socket.send(JSON.stringify({ type: 'response.create' }));
    await vi.waitFor(() => expect(client.events.filter((e) => e.type === 'response.done')).toHaveLength(2));
    // The audio (a frame of a 64-bit length) and the fragmented response.done reached the client whole.
    expect(client.events.find((e) => e.type === 'response.output_audio.delta')!.delta).toHaveLength(65_536);
    expect((done.response as { usage: unknown }).usage).toEqual(REALTIME_USAGE);
    // The provider got the handshake on its own path, with the config's key and no extension offered.
    const upstream = e2e.mocks[0].requests[before];
    expect(upstream).toMatchObject({ method: 'GET', path: '/v1/realtime', query: 'model=gpt-realtime', status: 101 });
    expect(upstream.headers.authorization).toBe(`Bearer ${VENDOR_MOCK_KEY}`);
    expect(upstream.headers['sec-websocket-extensions']).toBeUndefined();
    expect(upstream.headers['x-gateway-api-key']).toBeUndefined();
    const session = SESSIONS.get(upstream)!;
    expect(session.received.map((e) => e.type)).toEqual(['session.update', 'conversation.item.create', 'response.create', 'response.create']);
    // A record is written when the session ends: the client's close reaches the provider.
    client.socket.close(1000, 'done');
    expect((await client.closed).code).toBe(1000);
    await session.closed;
    const record = await e2e.recordOf(traceId);
    expect(record).toMatchObject({ status: 101, provider: 'vendor', targetPath: 'config', routeKind: 'passthrough', errorCode: null, modelRequested: 'gpt-realtime', modelAnswered: 'gpt-realtime' });
    expect(record.latencyMs).toBeGreaterThanOrEqual(record.ttfbMs!);
    // Twice each response's: its cached input (text and audio) apart, its audio in and out apart.
    expect(record.usage).toEqual({ inputTokens: 80, outputTokens: 34, cachedInputTokens: 24, cachedAudioInputTokens: 8, audioInputTokens: 12, audioOutputTokens: 24, totalTokens: 114, estimated: false });
    // gpt-realtime's prices per million: text 4 in, 0.40 cached, 16 out; audio 32 in, 64 out.
    const perResponse = (22 * 4 + 12 * 0.4 + 6 * 32 + 5 * 16 + 12 * 64) / 1e6;
    expect(record.costUsd).toBeCloseTo(2 * perResponse, 12);
  });

  it('prices the input transcription a session turned on as its own model, beside the responses', async () => {
    // gpt-realtime's response (see above), and gpt-4o-transcribe's 20 audio tokens in ($6 a million) and 6 out ($10); whisper-1's 3 seconds at $0.006 a minute.
    const response = (22 * 4 + 12 * 0.4 + 6 * 32 + 5 * 16 + 12 * 64) / 1e6;
    for (const [model, transcription] of [['gpt-4o-transcribe', (20 * 6 + 6 * 10) / 1e6], ['whisper-1', (3 / 60) * 0.006], ['no-such-transcriber', null]] as const) {
      const traceId = `realtime-transcribed-${model}`;
      const client = await connect('single', { 'x-gateway-trace-id': traceId });
      client.socket.send(JSON.stringify({ type: 'session.update', session: { type: 'realtime', audio: { input: { transcription: { model } } } } }));
      await client.event('session.updated');
      client.socket.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: Buffer.alloc(3200).toString('base64') }));
      client.socket.send(JSON.stringify({ type: 'input_audio_buffer.commit' }));
      await client.event('conversation.item.input_audio_transcription.completed');
      client.socket.send(JSON.stringify({ type: 'response.create' }));
      await client.event('response.done');
      client.socket.close();
      await client.closed;
      const record = await e2e.recordOf(traceId);
      // The usage is the responses' (the session model's tokens); the cost adds the transcription's, unknown when its model has no price.
      expect(record.usage, model).toMatchObject({ inputTokens: 40, outputTokens: 17, totalTokens: 57 });
      if (transcription === null) expect(record.costUsd, model).toBeNull();
      else expect(record.costUsd, model).toBeCloseTo(response + transcription, 12);
    }
  });

  it('prices cached audio apart for a model whose cached audio and text differ (gpt-realtime-mini)', async () => {
    const traceId = 'realtime-mini';
    const client = await connect('single', { 'x-gateway-trace-id': traceId }, '/v1/realtime?model=gpt-realtime-mini');
    client.socket.send(JSON.stringify({ type: 'response.create' }));
    await client.event('response.done');
    client.socket.close();
    await client.closed;
    const record = await e2e.recordOf(traceId);
    // REALTIME_USAGE: 40 in (30 text, 10 audio; 12 cached, 4 of them audio), 17 out (12 audio).
    expect(record.usage).toMatchObject({ inputTokens: 40, cachedInputTokens: 12, cachedAudioInputTokens: 4, audioInputTokens: 6, audioOutputTokens: 12 });
    // Text $0.60 (cached $0.06), audio $10 (cached $0.30), output $2.40, audio output $20 a million.
    expect(record.costUsd).toBeCloseTo((22 * 0.6 + 8 * 0.06 + 4 * 0.3 + 6 * 10 + 5 * 2.4 + 12 * 20) / 1e6, 12);
    expect(requestLogWire(record).usage).toMatchObject({ cached_input_tokens: 12, cached_audio_input_tokens: 4, audio_input_tokens: 6 });
  });

  it('logs a transcription session (no model, no responses) with its transcription\'s usage, as that model, priced', async () => {
    // gpt-4o-transcribe's 20 audio tokens in ($6 a million) and 6 out ($10); whisper-1's 3 seconds at $0.006 a minute.
    const cases = [
      { beta: false, model: 'gpt-4o-transcribe', usage: { inputTokens: 20, outputTokens: 6, totalTokens: 26 }, cost: (20 * 6 + 6 * 10) / 1e6 },
      { beta: true, model: 'gpt-4o-transcribe', usage: { inputTokens: 20, outputTokens: 6, totalTokens: 26 }, cost: (20 * 6 + 6 * 10) / 1e6 },
      { beta: false, model: 'whisper-1', usage: { audioSeconds: 3 }, cost: (3 / 60) * 0.006 },
    ];
    for (const { beta, model, usage, cost } of cases) {
      const traceId = `realtime-transcription-${model}-${beta ? 'beta' : 'ga'}`;
      const client = await connect(beta ? 'beta' : 'single', { 'x-gateway-trace-id': traceId, 'openai-beta': 'realtime=v1' }, '/v1/realtime?intent=transcription');
      if (beta) {
        await client.event('transcription_session.created');
        client.socket.send(JSON.stringify({ type: 'transcription_session.update', session: { input_audio_transcription: { model } } }));
        await client.event('transcription_session.updated');
      } else {
        expect((await client.event('session.created')).session).toMatchObject({ type: 'transcription' });
        client.socket.send(JSON.stringify({ type: 'session.update', session: { type: 'transcription', audio: { input: { transcription: { model } } } } }));
        await client.event('session.updated');
      }
      for (let i = 0; i < 2; i++) {
        client.socket.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: Buffer.alloc(3200).toString('base64') }));
        client.socket.send(JSON.stringify({ type: 'input_audio_buffer.commit' }));
      }
      await vi.waitFor(() => expect(client.events.filter((e) => e.type === 'conversation.item.input_audio_transcription.completed')).toHaveLength(2));
      client.socket.close();
      await client.closed;
      const record = await e2e.recordOf(traceId);
      const twice = Object.fromEntries(Object.entries(usage).map(([name, n]) => [name, 2 * n]));
      expect(record, `${model} ${beta ? 'beta' : 'GA'}`).toMatchObject({ status: 101, modelRequested: null, modelAnswered: model, usage: { ...twice, estimated: false } });
      expect(record.costUsd, `${model} ${beta ? 'beta' : 'GA'}`).toBeCloseTo(2 * cost, 12);
    }
  });

  it('answers the handshake with the gateway\'s headers beside the provider\'s accept key', async () => {
    const answer = await handshake('/v1/realtime?model=gpt-realtime', { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'single', 'x-gateway-trace-id': 'realtime-head' });
    expect(answer.status).toBe(101);
    expect(answer.headers).toMatchObject({ 'sec-websocket-accept': 's3pPLMBiTxaQ9kYGzzhZRbK+xOo=', 'x-gateway-trace-id': 'realtime-head', 'x-gateway-provider': 'vendor', 'x-mock-instance': 'mock0' });
    expect(String(answer.headers.connection).toLowerCase()).toBe('upgrade');
  });

  it('falls back past a target that refuses the handshake, and a provider\'s refusal reaches the client as sent', async () => {
    e2e.mocks[0].script({ path: '/v1/realtime', status: 503 });
    const fallen = await handshake('/v1/realtime?model=gpt-realtime', { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'fallback', 'x-gateway-trace-id': 'realtime-fallback' });
    expect(fallen.status).toBe(101);
    expect(fallen.headers['x-gateway-last-used-option-index']).toBe('config.targets[1]');
    expect(fallen.headers['x-mock-instance']).toBe('mock1');
    const missing = await handshake('/v1/realtime', { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'single' });
    expect(missing.status).toBe(400);
    expect(JSON.parse(missing.body).error).toMatchObject({ param: 'model', code: 'missing_required_parameter' });
  });

  it('refuses a route with hooks or guardrails (they cannot judge the session), a handshake to the gateway\'s own endpoints, and a keyless one', async () => {
    const before = e2e.mocks[0].requests.length;
    for (const [path, config] of [['/v1/realtime?model=gpt-realtime', 'guarded'], ['/v1/models', 'single']] as const) {
      const refused = await handshake(path, { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': config });
      expect(refused.status, path).toBe(400);
      expect(JSON.parse(refused.body).error, path).toMatchObject({ code: 'endpoint_not_supported', param: 'upgrade' });
    }
    expect((await handshake('/v1/realtime?model=gpt-realtime', { 'x-gateway-config': 'single' })).status).toBe(401);
    expect(e2e.mocks[0].requests.length).toBe(before);
  });

  it('opens a session at cloud A\'s realtime API, its deployment and API version named in the query, with its api-key', async () => {
    const client = await connect('clouda', { 'x-gateway-trace-id': 'realtime-clouda' }, '/v1/realtime?api-version=2025-04-01-preview&deployment=voice');
    expect(((await client.event('session.created')).session as { model: string }).model).toBe('gpt-realtime');
    client.socket.send(JSON.stringify({ type: 'response.create' }));
    await client.event('response.done');
    client.socket.close();
    await client.closed;
    const upstream = clouda.requests.at(-1)!;
    expect(upstream).toMatchObject({ method: 'GET', path: '/openai/realtime', status: 101 });
    expect(Object.fromEntries(new URLSearchParams(upstream.query))).toEqual({ 'api-version': '2025-04-01-preview', deployment: 'voice' });
    expect(upstream.headers['api-key']).toBe(CLOUDA_MOCK_KEY);
    const record = await e2e.recordOf('realtime-clouda');
    expect(record).toMatchObject({ status: 101, provider: 'clouda', modelAnswered: 'gpt-realtime', usage: { inputTokens: REALTIME_USAGE.input_tokens, outputTokens: REALTIME_USAGE.output_tokens } });
    expect(record.costUsd).toBeGreaterThan(0);
    // Without a version of its own the target's data-plane version goes, which the realtime API does not serve: the service's refusal reaches the client.
    const refused = await handshake('/v1/realtime?deployment=voice', { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': 'clouda' });
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body).error.message).toContain('API version');
  });

  it('closes a refused handshake\'s connection even when its client keeps its own half open', async () => {
    const { hostname, port } = new URL(e2e.gateway.url);
    // A client that never ends its side: node:http does not watch a socket it handed over for a handshake.
    const socket = connectTcp({ host: hostname, port: Number(port), allowHalfOpen: true });
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    const ended = new Promise<void>((resolve) => socket.once('end', () => resolve()));
    // Its close is seen only when it writes: a reset once the gateway let the connection go.
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => undefined);
    socket.write(`GET /v1/models HTTP/1.1\r\nhost: ${hostname}\r\nconnection: Upgrade\r\nupgrade: websocket\r\nsec-websocket-version: 13\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nx-gateway-api-key: ${GATEWAY_KEY}\r\n\r\n`);
    await ended;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const writes = setInterval(() => socket.write('still here'), 100);
    const cut = new Promise<string>((resolve) => setTimeout(() => resolve('still open'), 3000));
    const outcome = await Promise.race([closed.then(() => 'closed'), cut]);
    clearInterval(writes);
    socket.destroy();
    expect(outcome).toBe('closed');
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
  });

  it('closes the provider\'s side when the client goes without a close frame', async () => {
    const before = e2e.mocks[0].requests.length;
    const client = await connect('single');
    await client.event('session.created');
    const session = SESSIONS.get(e2e.mocks[0].requests[before])!;
    // Node's WebSocket has no way to cut the TCP connection; a close frame is the nearest, and the provider answers it.
    client.socket.close();
    await session.closed;
  });
});
