// The generated client's transport against small local servers that answer as a gateway might:
// retries of 429/503 that honour Retry-After (and stop at maxRetries), the per-call timeout and
// AbortSignal, the contract error naming the JSON pointer of a broken answer, and the gateway
// headers made from the SDK options.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientTimeoutError, ContractError, GatewayClient, gatewayHeaders, isGatewayError } from '../../generated/client/client.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())));
  server = undefined;
});

async function serve(handler: Handler): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

const HEALTH = { status: 'ok', version: '0.1.0', uptime_s: 1, configs: { revision: 'r', count: 0 } };

describe('client transport', () => {
  it('retries 429 and 503, waiting what Retry-After says, then answers', async () => {
    const seen: number[] = [];
    const url = await serve((req, res) => {
      seen.push(Date.now());
      if (seen.length === 1) res.writeHead(429, { 'retry-after': '0.2', 'content-type': 'application/json' }).end('{"error":{"message":"slow down","type":"rate_limit_error","param":null,"code":"rate_limited"}}');
      else if (seen.length === 2) res.writeHead(503, { 'retry-after': '0' }).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [], total: 0 }));
    });
    const page = await new GatewayClient({ baseURL: url, apiKey: 'k' }).configs.list();
    expect(page.total).toBe(0);
    expect(seen).toHaveLength(3);
    expect(seen[1] - seen[0]).toBeGreaterThanOrEqual(180);
  });

  it('gives up after maxRetries with the typed error of the last answer', async () => {
    let calls = 0;
    const url = await serve((_req, res) => {
      calls++;
      res.writeHead(429, { 'retry-after': '0', 'content-type': 'application/json', 'x-gateway-trace-id': 't-1' }).end('{"error":{"message":"limited","type":"rate_limit_error","param":null,"code":"rate_limited"}}');
    });
    const error = await new GatewayClient({ baseURL: url, apiKey: 'k', maxRetries: 1 }).configs.list().then(() => null, (e: unknown) => e);
    expect(calls).toBe(2);
    expect(isGatewayError(error, 'rate_limited')).toBe(true);
    expect(error).toMatchObject({ status: 429, code: 'rate_limited', traceId: 't-1', param: null });
  });

  it('times out a call that gets no answer, and stops on its AbortSignal', async () => {
    const url = await serve(() => {
      // never answers
    });
    const client = new GatewayClient({ baseURL: url, apiKey: 'k', maxRetries: 0 });
    await expect(client.health.get({ timeout: 100 })).rejects.toBeInstanceOf(ClientTimeoutError);
    const controller = new AbortController();
    const pending = client.health.get({ signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stopped by the caller')), 50);
    await expect(pending).rejects.toThrow('stopped by the caller');
  });

  it('names the JSON pointer of an answer that breaks its schema, only when asked to check', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 7 }], total: 1 }));
    });
    const unchecked = await new GatewayClient({ baseURL: url, apiKey: 'k' }).configs.list();
    expect(unchecked.total).toBe(1);
    const error = await new GatewayClient({ baseURL: url, apiKey: 'k', validateResponses: true }).configs.list().then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(ContractError);
    expect((error as ContractError).operationId).toBe('listConfigs');
    expect((error as ContractError).pointer).toMatch(/^\/data\/0/);
  });

  it('sends the gateway key, the SDK options as x-gateway-* headers, path parameters encoded, and queries', async () => {
    let seen: IncomingMessage | undefined;
    const url = await serve((req, res) => {
      seen = req;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(HEALTH));
    });
    const options = { apiKey: 'gw-key', virtualKey: 'vk', config: { retry: { attempts: 2 } }, traceId: 't', metadata: { team: 'a' }, cacheForceRefresh: true, cacheNamespace: 'ns', requestTimeout: 5000, forwardHeaders: ['x-a', 'x-b'] };
    await new GatewayClient({ baseURL: `${url}/v1/`, ...options }).logs.list({ trace_id: 'a b', 'metadata.team': 'x', limit: 2 });
    expect(seen?.url).toBe('/v1/logs?trace_id=a+b&metadata.team=x&limit=2');
    expect(seen?.headers).toMatchObject({
      'x-gateway-api-key': 'gw-key', 'x-gateway-virtual-key': 'vk', 'x-gateway-config': '{"retry":{"attempts":2}}', 'x-gateway-trace-id': 't',
      'x-gateway-metadata': '{"team":"a"}', 'x-gateway-cache-force-refresh': 'true', 'x-gateway-cache-namespace': 'ns', 'x-gateway-request-timeout': '5000', 'x-gateway-forward-headers': 'x-a,x-b',
    });
    expect(gatewayHeaders(options)).toEqual(Object.fromEntries(Object.entries(seen!.headers).filter(([name]) => name.startsWith('x-gateway-'))));
    await new GatewayClient({ baseURL: url, apiKey: 'k' }).configs.retrieve('a/b c').catch(() => undefined);
    expect(seen?.url).toBe('/v1/configs/a%2Fb%20c');
  });
});
