// POST /v1/configs/{id}/simulate over HTTP: a dry run through a saved config's router with scripted
// answers. The config's only provider is a real local server that counts requests: it must see none.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiGateway, startApiGateway } from './harness.ts';

const CHAT = { model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] };

describe('config simulation API', () => {
  let api: ApiGateway;
  let provider: Server;
  let providerHits = 0;
  let providerUrl = '';
  beforeAll(async () => {
    provider = createServer((_req, res) => {
      providerHits++;
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
    providerUrl = `http://127.0.0.1:${(provider.address() as { port: number }).port}`;
    api = await startApiGateway('sqlite');
    const config = {
      strategy: { mode: 'fallback', on_status_codes: [429, 503] },
      retry: { attempts: 2, on_status_codes: [429], use_retry_after_headers: true },
      targets: [
        { name: 'primary', provider: 'openai', api_key: 'sk-secret-primary-0001', custom_host: providerUrl, override_params: { model: 'gpt-4o-mini' } },
        { name: 'backup', provider: 'openai', api_key: 'sk-secret-backup-0002', custom_host: providerUrl, cb_config: { failure_threshold: 2, cooldown_interval: 60000 } },
      ],
    };
    const saved = await api.call('POST', '/v1/configs', { body: { id: 'sim', config } });
    expect(saved.status).toBe(200);
  });
  afterAll(async () => {
    await api?.close();
    await new Promise<void>((resolve) => provider?.close(() => resolve()));
  });

  it('reports every try, the backoff, the answer and the headers, and calls no provider', async () => {
    const res = await api.call('POST', '/v1/configs/sim/simulate', { body: { request: CHAT, outcomes: { primary: [{ status: 429, retry_after: 3 }, 503] } } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.schema).toBe('resources/simulation.json');
    expect(res.body.attempts.map((a: { target: string; then: string }) => [a.target, a.then])).toEqual([
      ['config.targets[0]', 'retry'],
      ['config.targets[0]', 'fallback'],
      ['config.targets[1]', 'answer'],
    ]);
    // retry-after 3 s, capped as this gateway caps every wait (GATEWAY_RETRY_MAX_MS: 50 ms in the harness).
    expect(res.body.attempts[0]).toMatchObject({ name: 'primary', provider: 'vendor', model: 'gpt-4o-mini', result: { status: 429, error: null }, backoff_ms: 50 });
    expect(res.body.attempts[2]).toMatchObject({ model: 'gpt-4o', result: { status: 200 } });
    expect(res.body.answer).toEqual({ status: 200, target: 'config.targets[1]', provider: 'vendor', retries: 0, error: null });
    expect(res.body.headers).toMatchObject({ 'x-gateway-last-used-option-index': 'config.targets[1]', 'x-gateway-retry-attempt-count': '0', 'x-gateway-provider': 'vendor', 'x-gateway-cache-status': 'DISABLED' });
    expect(JSON.stringify(res.body)).not.toContain('sk-secret');
    expect(providerHits).toBe(0);
  });

  it('times out, fails over an open circuit, and answers with the gateway error when every target fails', async () => {
    const res = await api.call('POST', '/v1/configs/sim/simulate', { body: { request: CHAT, outcomes: { 'config.targets[0]': ['timeout'] }, open_circuits: ['backup'] } });
    expect(res.status).toBe(200);
    // A timeout (408) is not in the fallback list: the answer is the timeout, and the open circuit is never reached.
    expect(res.body.attempts).toHaveLength(1);
    expect(res.body.answer).toMatchObject({ status: 408, target: 'config.targets[0]', error: { code: 'request_timeout' } });
    const unreachable = await api.call('POST', '/v1/configs/sim/simulate', { body: { request: CHAT, outcomes: { primary: [503], backup: ['unreachable'] } } });
    expect(unreachable.body.answer).toMatchObject({ status: 502, target: 'config.targets[1]', error: { code: 'provider_unreachable' } });
    expect(providerHits).toBe(0);
  });

  it('opens the circuit a request would meet: a target read from the routing headers has one per host they name', async () => {
    const config = {
      strategy: { mode: 'fallback' },
      cb_config: { failure_threshold: 1, cooldown_interval: 60000 },
      targets: [{ name: 'by-header', provider: 'openai', api_key: 'sk-secret-by-header-03' }, { name: 'fixed', provider: 'openai', api_key: 'sk-secret-fixed-0004', custom_host: providerUrl }],
    };
    expect((await api.call('POST', '/v1/configs', { body: { id: 'sim-host', config } })).status).toBe(200);
    const res = await api.call('POST', '/v1/configs/sim-host/simulate', { body: { request: CHAT, headers: { 'x-gateway-custom-host': `${providerUrl}/v1` }, open_circuits: ['by-header'] } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.attempts.map((a: { target: string }) => a.target)).toEqual(['config.targets[1]']);
    expect(providerHits).toBe(0);
  });

  it('answers an invalid body as the server would, without a try', async () => {
    const res = await api.call('POST', '/v1/configs/sim/simulate', { body: { request: { model: 'gpt-4o' } } });
    expect(res.status).toBe(200);
    expect(res.body.attempts).toEqual([]);
    expect(res.body.answer).toMatchObject({ status: 400, error: { code: 'invalid_request_body' } });
  });

  it('refuses unknown targets (with did you mean), strategies, circuits without a breaker and unknown configs', async () => {
    const typo = await api.call('POST', '/v1/configs/sim/simulate', { body: { request: CHAT, outcomes: { primery: [503] } } });
    expect(typo.status).toBe(400);
    expect(typo.body.error).toMatchObject({ code: 'invalid_simulation', param: '/outcomes' });
    expect(typo.body.error.message).toContain('did you mean "primary"?');
    const strategy = await api.call('POST', '/v1/configs/sim/simulate', { body: { request: CHAT, outcomes: { config: [503] } } });
    expect(strategy.body.error.message).toContain('is a fallback strategy');
    const noBreaker = await api.call('POST', '/v1/configs/sim/simulate', { body: { request: CHAT, open_circuits: ['primary'] } });
    expect(noBreaker.body.error).toMatchObject({ code: 'invalid_simulation', param: 'open_circuits' });
    const badOutcome = await api.call('POST', '/v1/configs/sim/simulate', { body: { request: CHAT, outcomes: { primary: [99] } } });
    expect(badOutcome.status).toBe(400);
    expect((await api.call('POST', '/v1/configs/nope/simulate', { body: { request: CHAT } })).status).toBe(404);
    // A misspelt gateway header is refused as the server refuses it, not simulated as if left out.
    const header = await api.call('POST', '/v1/configs/sim/simulate', { body: { request: CHAT, headers: { 'x-gateway-request-timout': '5' } } });
    expect(header.status).toBe(400);
    expect(header.body.error).toMatchObject({ code: 'invalid_header', param: 'x-gateway-request-timout' });
    expect(header.body.error.message).toContain('did you mean "x-gateway-request-timeout"?');
  });

  it('needs the admin scope', async () => {
    const res = await api.call('POST', '/v1/configs/sim/simulate', { body: { request: CHAT }, key: null });
    expect(res.status).toBe(401);
  });
});
