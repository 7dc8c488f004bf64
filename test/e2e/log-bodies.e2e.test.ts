// GATEWAY_LOG_BODIES=on through a real `gateway serve`: request and response bodies are in the
// records, capped at GATEWAY_LOG_BODY_MAX_BYTES, with credentials and secret-shaped text replaced,
// streamed answers included; a large upload is logged as its capped start. (Off, the default, keeps
// no body: logs.e2e.test.ts.)
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';
import { type ServeProcess, startServe, stopServes, until } from './serve-processes.ts';
import { connectRealtime } from '../support/realtime-client.ts';

const ADMIN = 'gw_log-bodies-admin-key-0123456789abcdef';
const SECRET = 'sk-live0123456789abcdefghij';
const CAP = 2000;

describe('GATEWAY_LOG_BODIES=on', () => {
  let dir: string;
  let mock: VendorMock;
  let serve: ServeProcess;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gateway-log-bodies-'));
    mock = await startVendorMock({ label: 'bodies' });
    serve = await startServe({ GATEWAY_API_KEY: ADMIN, GATEWAY_LOG_BODIES: 'on', GATEWAY_LOG_BODY_MAX_BYTES: String(CAP), GATEWAY_LOG_FLUSH_MS: '50' }, join(dir, 'data'));
  });
  afterAll(async () => {
    if (serve !== undefined) await stopServes(serve);
    await mock?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const headers = (traceId: string, extra: Record<string, string> = {}) => ({
    'x-gateway-api-key': ADMIN, 'x-gateway-trace-id': traceId, authorization: `Bearer ${VENDOR_MOCK_KEY}`,
    'x-gateway-config': JSON.stringify({ provider: 'openai', custom_host: mock.baseURL }), ...extra,
  });
  async function recordOf(traceId: string): Promise<{ request_body: string | null; response_body: string | null; status: number }> {
    const page = await until(async () => (await (await fetch(`${serve.url}/v1/logs?trace_id=${traceId}`, { headers: { 'x-gateway-api-key': ADMIN } })).json()) as { data: Array<{ request_body: string | null; response_body: string | null; status: number }> }, (p) => p.data.length === 1);
    return page.data[0];
  }

  it('keeps a chat request and its answer, streamed or not, with credentials and secrets replaced', async () => {
    for (const stream of [false, true]) {
      const traceId = `bodies-${randomUUID()}`;
      const body = { model: 'gpt-4o-mini', stream, messages: [{ role: 'user', content: `my key is ${SECRET}` }], metadata_note: { api_key: 'cred-plain-value', password: 'hunter22' } };
      const res = await fetch(`${serve.url}/v1/chat/completions`, { method: 'POST', headers: { ...headers(traceId), 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(res.status).toBe(200);
      const answer = await res.text();
      // The mock repeats the prompt: the answer carries the secret too.
      expect(answer).toContain(SECRET.slice(0, 12));
      const record = await recordOf(traceId);
      const logged = `${record.request_body}\n${record.response_body}`;
      for (const secret of [SECRET.slice(0, 10), 'cred-plain', 'hunter22', VENDOR_MOCK_KEY]) expect(logged).not.toContain(secret);
      expect(JSON.parse(record.request_body!)).toMatchObject({ model: 'gpt-4o-mini', messages: [{ content: 'my key is [redacted]' }], metadata_note: { api_key: '[redacted]', password: '[redacted]' } });
      expect(record.response_body).toContain('[redacted]');
      if (stream) expect(record.response_body!.startsWith('data: ')).toBe(true);
      else expect(JSON.parse(record.response_body!)).toMatchObject({ object: 'chat.completion' });
    }
  });

  it('keeps the capped start of a body larger than the cap, of a long stream, and of a 12 MB upload', async () => {
    const traceId = `bodies-${randomUUID()}`;
    const long = { model: 'gpt-4o-mini', messages: [{ role: 'user', content: `${'word '.repeat(10_000)} ${SECRET}` }] };
    await (await fetch(`${serve.url}/v1/chat/completions`, { method: 'POST', headers: { ...headers(traceId), 'content-type': 'application/json' }, body: JSON.stringify(long) })).text();
    const record = await recordOf(traceId);
    expect(record.request_body!.endsWith('…[truncated]')).toBe(true);
    expect(Buffer.byteLength(record.request_body!.replace(/…\[truncated\]$/, ''))).toBeLessThanOrEqual(CAP);
    expect(record.request_body!.startsWith('{"model":"gpt-4o-mini","messages":[{"role":"user","content":"word word')).toBe(true);

    // A stream longer than what is kept: marked as cut even when redaction made the kept part shorter than the cap.
    const streamTrace = `bodies-${randomUUID()}`;
    const longSecret = `sk-${'L'.repeat(200)}`;
    const secrets = { model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: `${longSecret} `.repeat(150) }] };
    await (await fetch(`${serve.url}/v1/chat/completions`, { method: 'POST', headers: { ...headers(streamTrace), 'content-type': 'application/json' }, body: JSON.stringify(secrets) })).text();
    const streamed = await recordOf(streamTrace);
    expect(streamed.response_body!.endsWith('…[truncated]')).toBe(true);
    expect(streamed.response_body).not.toContain('LLLLLLLL');

    const uploadTrace = `bodies-${randomUUID()}`;
    const form = new FormData();
    form.append('model', 'whisper-1');
    form.append('file', new Blob([randomBytes(12 * 1024 * 1024)], { type: 'audio/mpeg' }), 'speech.mp3');
    const res = await fetch(`${serve.url}/v1/audio/transcriptions`, { method: 'POST', headers: headers(uploadTrace), body: form });
    await res.text();
    const upload = await recordOf(uploadTrace);
    expect(upload.request_body!.endsWith('…[truncated]')).toBe(true);
    expect(upload.request_body).toMatch(/^-+/);
    expect(Buffer.byteLength(upload.request_body!)).toBeLessThanOrEqual(CAP + 20);
  });

  it('keeps a realtime session\'s events each way, a line each, its audio as its length and its secrets replaced', async () => {
    const traceId = `bodies-${randomUUID()}`;
    const client = await connectRealtime(`${serve.url}/v1/realtime?model=gpt-realtime`, headers(traceId));
    client.socket.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: Buffer.alloc(3000).toString('base64') }));
    client.socket.send(JSON.stringify({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: `my key is ${SECRET}` }] } }));
    client.socket.send(JSON.stringify({ type: 'response.create' }));
    await client.event('response.done');
    client.socket.close();
    await client.closed;
    const record = await recordOf(traceId);
    expect(record.status).toBe(101);
    const sent = record.request_body!.split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(sent.map((event) => event.type)).toEqual(['input_audio_buffer.append', 'conversation.item.create', 'response.create']);
    expect(sent[0].audio).toBe('[4000 characters of base64 audio]');
    expect(record.request_body).toContain('my key is [redacted]');
    expect(record.request_body).not.toContain(SECRET.slice(0, 10));
    // The provider's: its audio delta (64 KiB in base64) cut to its length, so the cap holds the session's start.
    const received = record.response_body!.replace(/…\[truncated\]$/, '');
    expect(Buffer.byteLength(received)).toBeLessThanOrEqual(CAP);
    expect(received).toContain('"type":"session.created"');
    expect(received).toContain('"delta":"[65536 characters of base64 audio]"');
  });
});
