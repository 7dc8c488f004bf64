// A provider over HTTPS with a certificate from a private authority (a self-hosted model server): not
// trusted by default, with an answer that says how to trust it, and reached once the gateway is
// started with NODE_EXTRA_CA_CERTS naming that authority. The certificate is made for the test by
// the openssl command.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type E2E, errorOf, startE2E } from './harness.ts';
import { startServe, stopServes } from './serve-processes.ts';

const ADMIN = 'gw_provider-tls-admin-key-0123456789abcdef';
const CHAT = JSON.stringify({ model: 'local-model', messages: [{ role: 'user', content: 'hi' }] });
const ANSWER = { id: 'chatcmpl-tls', object: 'chat.completion', created: 1, model: 'local-model', choices: [{ index: 0, message: { role: 'assistant', content: 'over TLS' }, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } };

describe('a provider whose certificate comes from a private authority', () => {
  let dir: string;
  let provider: Server;
  let baseURL: string;
  let e2e: E2E;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gateway-tls-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'ca.pem'), '-days', '2', '-subj', '/CN=self-hosted model server', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
    provider = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'ca.pem')) }, (req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(ANSWER)));
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    baseURL = `https://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`;
    e2e = await startE2E();
  });
  afterAll(async () => {
    await e2e?.close();
    provider?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const config = () => JSON.stringify({ provider: 'openai', api_key: 'sk-local', custom_host: baseURL });

  it('is not trusted by default, and the answer says how to trust it', async () => {
    const res = await e2e.fetch('/v1/chat/completions', { method: 'POST', headers: { 'x-gateway-config': config(), 'content-type': 'application/json' }, body: CHAT });
    expect(res.status).toBe(502);
    const error = await errorOf(res);
    expect(error.code).toBe('provider_unreachable');
    expect(error.message).toContain('self-signed certificate; to trust a private certificate authority, start the gateway with NODE_EXTRA_CA_CERTS=/path/to/ca.pem');
    expect(error.message).not.toContain('try running Node.js');
  });

  it('is reached by a gateway started with NODE_EXTRA_CA_CERTS naming the authority', async () => {
    const serve = await startServe({ NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem'), GATEWAY_API_KEY: ADMIN }, join(dir, 'data'));
    try {
      const res = await fetch(`${serve.url}/v1/chat/completions`, { method: 'POST', headers: { 'x-gateway-api-key': ADMIN, 'x-gateway-config': config(), 'content-type': 'application/json' }, body: CHAT });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ id: 'chatcmpl-tls', choices: [{ message: { content: 'over TLS' } }] });
    } finally {
      await stopServes(serve);
    }
  });
});
