// What must never leave the gateway: its own headers are never forwarded to a provider (refused in
// x-gateway-forward-headers and in configs), an inline config is never echoed whole in an error,
// and the SQLite store's files are readable by their owner only.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_FILE_NAME } from '../../runtime/store/sqlite/database.ts';
import { type E2E, errorOf, GATEWAY_KEY, startE2E, target } from './harness.ts';

const CHAT = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });

describe('secrets', () => {
  let e2e: E2E;

  beforeAll(async () => {
    e2e = await startE2E({ mocks: 1, configs: { chat: target(0) } });
  });
  afterAll(async () => {
    await e2e?.close();
  });

  it('refuses to forward the gateway key or any x-gateway-* header, and the provider never sees one', async () => {
    for (const list of ['x-gateway-api-key', 'x-request-id, X-Gateway-Cloudc-Secret-Access-Key']) {
      const res = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': 'chat', 'x-gateway-forward-headers': list, 'content-type': 'application/json' }, body: CHAT });
      expect(res.status).toBe(400);
      expect(await errorOf(res)).toMatchObject({ code: 'invalid_header', param: 'x-gateway-forward-headers' });
    }
    const inline = JSON.stringify({ ...target(0), forward_headers: ['x-gateway-api-key'] }).replace('{{mock0}}', e2e.mocks[0].baseURL);
    const refused = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': inline, 'content-type': 'application/json' }, body: CHAT });
    expect(refused.status).toBe(400);
    expect((await errorOf(refused)).errors).toEqual([expect.objectContaining({ code: 'CFG_FORWARD_HEADER_NOT_ALLOWED', pointer: '/forward_headers/0' })]);

    const ok = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': 'chat', 'x-gateway-forward-headers': 'x-request-id', 'x-request-id': 'r-1', 'content-type': 'application/json' }, body: CHAT });
    expect(ok.status).toBe(200);
    await ok.arrayBuffer();
    const seen = e2e.mocks[0].requests.flatMap((r) => Object.keys(r.headers));
    expect(seen.filter((name) => name.startsWith('x-gateway-'))).toEqual([]);
    expect(e2e.mocks[0].requests.some((r) => JSON.stringify(r.headers).includes(GATEWAY_KEY))).toBe(false);
    expect(e2e.mocks[0].requests.at(-1)?.headers['x-request-id']).toBe('r-1');
  });

  it('never echoes an inline config whole in an error', async () => {
    const secret = 'sk-live-0123456789abcdefSECRET';
    for (const value of [`{"provider": "openai", "api_key": "${secret}", oops}`, `not-a-config-${secret}-and-then-a-long-tail-${'x'.repeat(100)}`]) {
      const res = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': value, 'content-type': 'application/json' }, body: CHAT });
      expect(res.status).toBe(400);
      expect(await res.text()).not.toContain(secret);
    }
  });

  it('keeps the SQLite store readable by its owner only', () => {
    expect(e2e.gateway.store.backend).toBe('sqlite');
    const file = join(e2e.dataDir, SQLITE_FILE_NAME);
    for (const path of [file, `${file}-wal`, `${file}-shm`]) expect((statSync(path).mode & 0o777).toString(8), path).toBe('600');
  });
});

describe('small edges', () => {
  let e2e: E2E;

  beforeAll(async () => {
    e2e = await startE2E({
      mocks: 1,
      configs: { conditional: { strategy: { mode: 'conditional', conditions: [{ query: { 'params.model': 'x' }, then: 'a' }], default: 'a' }, targets: [{ name: 'a', ...target(0) }] } },
    });
  });
  afterAll(async () => {
    await e2e?.close();
  });

  it('answers CONNECT with 405 and the error body instead of dropping the socket', async () => {
    const { connect } = await import('node:net');
    const url = new URL(e2e.gateway.url);
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => socket.write('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk) => (text += chunk));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(reply).toMatch(/^HTTP\/1\.1 405 /);
    expect(reply).toContain('"code":"method_not_allowed"');
  });

  it('refuses an empty body with 400 invalid_json on a route whose conditions read the body, and the provider sees nothing', async () => {
    const before = e2e.mocks[0].requests.length;
    const res = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': 'conditional', 'content-type': 'application/json' }, body: '' });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).code).toBe('invalid_json');
    expect(e2e.mocks[0].requests.length).toBe(before);
  });

  it('refuses duplicate keys in inline configs and in configs saved through the API, as gateway compile does', async () => {
    const inline = `{"provider": "openai", "api_key": "a", "api_key": "b", "custom_host": "${e2e.mocks[0].baseURL}"}`;
    const res = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': inline, 'content-type': 'application/json' }, body: CHAT });
    expect(res.status).toBe(400);
    expect((await errorOf(res)).errors).toEqual([expect.objectContaining({ code: 'CFG_DUPLICATE_KEY', pointer: '/api_key' })]);
  });
});

describe('JSON nested thousands deep', () => {
  let e2e: E2E;

  beforeAll(async () => {
    e2e = await startE2E({ mocks: 1, configs: { chat: target(0) } });
  });
  afterAll(async () => {
    await e2e?.close();
  });

  it('is a 400 with a stable code, never a 500, in bodies and in inline configs', async () => {
    const deep = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
    // A body the gateway parses (completions are always checked); an unparsed body is only forwarded, never walked.
    const body = `{"model":"m","prompt":"hi","logit_bias":${deep(5000)}}`;
    const viaBody = await e2e.fetch('/v1/completions', { method: 'POST', headers: { 'x-gateway-config': 'chat', 'content-type': 'application/json' }, body });
    expect(viaBody.status).toBe(400);
    expect((await errorOf(viaBody)).code).toBe('json_too_deep');

    const nestedTargets = (n: number): string => (n === 0 ? '{"virtual_key":"v"}' : `{"strategy":{"mode":"fallback"},"targets":[${nestedTargets(n - 1)}]}`);
    for (const config of [nestedTargets(1000), `{"virtual_key":"v","override_params":${deep(3000)}}`]) {
      const res = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': config, 'content-type': 'application/json' }, body: CHAT });
      expect(res.status).toBe(400);
      const error = await errorOf(res);
      expect(error.code).toBe('invalid_config');
      expect(error.errors).toEqual([expect.objectContaining({ code: 'CFG_TOO_DEEP' })]);
    }
  });
});
