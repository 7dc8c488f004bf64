// The checks that call out, against local test servers: jwt (a JSON Web Key Set served over HTTP,
// tokens signed with jose), webhook (verdicts, transformedData, timeouts, errors), log, and validUrls
// with DNS through an injected resolver. Every URL passes the custom-host safety policy first.
import { createSocket } from 'node:dgram';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { defaultCheckTools } from '../../runtime/inference/routers.ts';
import { HostPolicy } from '../../runtime/providers/host-policy.ts';
import { input, tools, verdictCheck } from './check-input.ts';

interface TestServer {
  url: string;
  received: Array<{ path: string; body: unknown; headers: IncomingMessage['headers'] }>;
  close(): Promise<void>;
}

async function serve(handle: (req: IncomingMessage, body: unknown, res: ServerResponse) => void): Promise<TestServer> {
  const received: TestServer['received'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body: unknown = text === '' ? null : JSON.parse(text);
      received.push({ path: req.url ?? '', body, headers: req.headers });
      handle(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}

describe('default.jwt', () => {
  let jwks: TestServer;
  let sign: (claims: Record<string, unknown>, expiresIn?: string) => Promise<string>;
  let signForeign: () => Promise<string>;
  let keysUp = true;
  let keysSlow = false;
  beforeAll(async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256');
    const foreign = await generateKeyPair('RS256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    jwks = await serve((_req, _body, res) => {
      const answer = () => (keysUp ? json(res, 200, { keys: [jwk] }) : json(res, 503, {}));
      if (keysSlow) setTimeout(answer, 200);
      else answer();
    });
    sign = (claims, expiresIn = '1h') => new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuedAt().setExpirationTime(expiresIn).setSubject('user-1').sign(privateKey);
    signForeign = () => new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).setIssuedAt().setExpirationTime('1h').sign(foreign.privateKey);
  });
  afterAll(() => jwks?.close());

  const check = (extra: Record<string, unknown> = {}) => verdictCheck('default.jwt', { jwksUri: `${jwks.url}/jwks.json`, headerKey: 'X-Auth-Token', ...extra });

  it('passes a current token signed by a key of the set, bare or as Bearer', async () => {
    const jwt = check();
    const token = await sign({ scope: 'chat' });
    expect((await jwt(input('', { headers: { 'x-auth-token': token } }))).verdict).toBe(true);
    expect((await jwt(input('', { headers: { 'x-auth-token': `Bearer ${token}` } }))).verdict).toBe(true);
  });

  it('fails a missing, expired, foreign or garbled token', async () => {
    const jwt = check();
    expect((await jwt(input(''))).verdict).toBe(false);
    expect((await jwt(input('', { headers: { 'x-auth-token': await sign({}, '-10m') } }))).verdict).toBe(false);
    expect((await jwt(input('', { headers: { 'x-auth-token': await signForeign() } }))).verdict).toBe(false);
    expect((await jwt(input('', { headers: { 'x-auth-token': 'not.a.jwt' } }))).verdict).toBe(false);
  });

  it('keeps the key set cacheMaxAge seconds: one fetch for many checks', async () => {
    const before = jwks.received.length;
    const jwt = check({ cacheMaxAge: 60 });
    const token = await sign({});
    await Promise.all([1, 2, 3, 4].map(() => jwt(input('', { headers: { 'x-auth-token': token } }))));
    expect(jwks.received.length - before).toBe(1);
  });

  it('fetches the key set for every request waiting on it even when the first of them is abandoned by its client', async () => {
    keysSlow = true;
    try {
      const jwt = check({ cacheMaxAge: 60 });
      const token = await sign({});
      const leaving = new AbortController();
      const first = Promise.resolve(jwt(input('', { headers: { 'x-auth-token': token }, signal: leaving.signal })));
      const second = Promise.resolve(jwt(input('', { headers: { 'x-auth-token': token } })));
      setTimeout(() => leaving.abort(new Error('the client left')), 20);
      await expect(first).rejects.toThrow('the client left');
      expect((await second).verdict).toBe(true);
    } finally {
      keysSlow = false;
    }
  });

  it('throws when the key set cannot be fetched (the hook runner fails it unless failOnError is false)', async () => {
    keysUp = false;
    try {
      await expect(Promise.resolve(check()(input('', { headers: { 'x-auth-token': await sign({}) } })))).rejects.toThrow(/503/);
    } finally {
      keysUp = true;
    }
  });
});

describe('default.webhook and default.log', () => {
  let hook: TestServer;
  beforeAll(async () => {
    hook = await serve((req, body, res) => {
      const text = JSON.stringify(body);
      if (req.url === '/slow') return void setTimeout(() => json(res, 200, { verdict: true }), 500);
      if (req.url === '/broken') return json(res, 500, { oops: true });
      if (req.url === '/transform') return json(res, 200, { verdict: true, transformedData: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'rewritten' }] } });
      json(res, 200, { verdict: !text.includes('forbidden'), explanation: 'looked at it' });
    });
  });
  afterAll(() => hook?.close());

  it('asks the endpoint with the request and, after the request, the answer, and takes its verdict', async () => {
    const webhook = verdictCheck('default.webhook', { webhookURL: `${hook.url}/judge`, headers: { 'X-Secret': 's3' } });
    const request = { model: 'm', messages: [{ role: 'user', content: 'fine' }] };
    expect(await webhook(input('fine', { request }))).toEqual({ verdict: true, explanation: 'looked at it' });
    expect((await webhook(input('', { phase: 'after', request, response: { choices: [{ message: { content: 'forbidden' } }] } }))).verdict).toBe(false);
    const last = hook.received.at(-1)!;
    expect(last.headers['x-secret']).toBe('s3');
    expect(last.body).toMatchObject({ event_type: 'after_request_hook', request: { json: request }, response: { json: { choices: [{ message: { content: 'forbidden' } }] } } });
  });

  it('returns transformedData as the replacement body', async () => {
    const webhook = verdictCheck('default.webhook', { webhookURL: `${hook.url}/transform` });
    expect(await webhook(input('x'))).toMatchObject({ verdict: true, transformedBody: { messages: [{ content: 'rewritten' }] } });
  });

  it('errors past its timeout and on a non-2xx answer', async () => {
    await expect(Promise.resolve(verdictCheck('default.webhook', { webhookURL: `${hook.url}/slow`, timeout: 50 })(input('x')))).rejects.toThrow(/within 50 ms/);
    await expect(Promise.resolve(verdictCheck('default.webhook', { webhookURL: `${hook.url}/broken` })(input('x')))).rejects.toThrow(/500/);
  });

  it('never calls a cloud metadata address', async () => {
    const webhook = verdictCheck('default.webhook', { webhookURL: 'http://169.254.169.254/latest/meta-data' });
    await expect(Promise.resolve(webhook(input('x')))).rejects.toThrow(/not allowed/);
  });

  it('serialise the event once for all the checks of a phase, which post the same bytes', async () => {
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      const phase = input('fine', { request: { model: 'm', messages: [{ role: 'user', content: 'x'.repeat(10_000) }] } });
      const checks = [1, 2, 3].map((i) => verdictCheck('default.webhook', { webhookURL: `${hook.url}/judge-${i}` }));
      const before = hook.received.length;
      await Promise.all([...checks.map((check) => check(phase)), verdictCheck('default.log', { logURL: `${hook.url}/log` })(phase)]);
      // The event of this input (its request is this object; the test server parses and serialises copies).
      const eventsOf = (request: unknown) => stringify.mock.calls.filter(([value]) => (value as { request?: { json?: unknown } } | null)?.request?.json === request);
      expect(eventsOf(phase.request)).toHaveLength(1);
      const posted = hook.received.slice(before).map((r) => JSON.stringify(r.body));
      expect(posted).toHaveLength(4);
      expect(new Set(posted).size).toBe(1);
      // Another phase (another input) is serialised on its own.
      const other = input('other', { request: { model: 'n' } });
      await checks[0](other);
      expect(eventsOf(other.request)).toHaveLength(1);
    } finally {
      stringify.mockRestore();
    }
  });

  it('log posts the exchange and always passes', async () => {
    const log = verdictCheck('default.log', { logURL: `${hook.url}/log` });
    expect((await log(input('x', { request: { model: 'm' } }))).verdict).toBe(true);
    expect(hook.received.at(-1)).toMatchObject({ path: '/log', body: { event_type: 'before_request_hook', request: { json: { model: 'm' } } } });
  });
});

describe('default.validUrls', () => {
  const resolve = async (host: string): Promise<string[]> => {
    if (host === 'public.example') return ['93.184.215.14'];
    if (host === 'internal.example') return ['10.1.2.3'];
    if (host === 'metadata.example') return ['169.254.169.254'];
    throw new Error('ENOTFOUND');
  };
  const check = (parameters: Record<string, unknown>) => verdictCheck('default.validUrls', parameters, tools({ resolve, hostPolicy: new HostPolicy() }));

  it('passes text whose URLs are well-formed, and text without URLs', async () => {
    expect((await check({})(input('see https://docs.example.com/a?b=1. and http://127.0.0.1:8080/x'))).verdict).toBe(true);
    expect((await check({})(input('no links here'))).verdict).toBe(true);
    expect((await check({})(input('[see https://docs.example.com/a] or http://[2606:4700::1111]:8080/x'))).verdict).toBe(true);
  });

  it('fails a malformed URL', async () => {
    expect((await check({})(input('go to http://exa mple'))).verdict).toBe(false);
    expect((await check({})(input('go to https://nodot/'))).verdict).toBe(false);
  });

  it('with onlyDNS, resolves each host once for all the checks of a phase (they read one text)', async () => {
    const asked: string[] = [];
    const counting = (host: string) => {
      asked.push(host);
      return resolve(host);
    };
    const checks = [1, 2, 3].map(() => verdictCheck('default.validUrls', { onlyDNS: true }, tools({ resolve: counting, hostPolicy: new HostPolicy() })));
    const phase = input('https://public.example/x and https://internal.example/y');
    expect((await Promise.all(checks.map((c) => c(phase)))).map((v) => v.verdict)).toEqual([false, false, false]);
    expect(asked.sort()).toEqual(['internal.example', 'public.example']);
    await checks[0](input('https://public.example/z'));
    expect(asked).toHaveLength(3);
  });

  it('with onlyDNS, fails a host that does not resolve or resolves to a private or metadata address', async () => {
    expect((await check({ onlyDNS: true })(input('https://public.example/x'))).verdict).toBe(true);
    expect((await check({ onlyDNS: true })(input('https://public.example/x and https://internal.example/'))).verdict).toBe(false);
    expect((await check({ onlyDNS: true })(input('https://metadata.example/'))).verdict).toBe(false);
    expect((await check({ onlyDNS: true })(input('https://nowhere.example/'))).verdict).toBe(false);
    expect((await check({ onlyDNS: true, not: true })(input('https://nowhere.example/'))).verdict).toBe(true);
  });

  it('with onlyDNS, resolves at most 20 distinct hosts: a text naming more fails without a query', async () => {
    const asked: string[] = [];
    const counting = verdictCheck('default.validUrls', { onlyDNS: true }, tools({ resolve: async (host) => (asked.push(host), ['93.184.215.14']), hostPolicy: new HostPolicy() }));
    const text = (n: number) => Array.from({ length: n }, (_, i) => `https://h${i}.example/`).join(' ');
    expect((await counting(input(`${text(20)} ${text(20)}`))).verdict).toBe(true);
    expect(asked).toHaveLength(20);
    const many = await counting(input(text(21)));
    expect(many).toMatchObject({ verdict: false, explanation: 'the text names 21 hosts, more than the 20 a check resolves' });
    expect(asked).toHaveLength(20);
  });

  it("the gateway's resolver gives up on a DNS server that never answers within its timeout (1 s), off libuv's threads", async () => {
    const silent = createSocket('udp4');
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve));
    try {
      const { resolve } = defaultCheckTools(new HostPolicy(), [`127.0.0.1:${silent.address().port}`]);
      const started = performance.now();
      await expect(resolve('never.example')).rejects.toThrow();
      expect(performance.now() - started).toBeLessThan(2500);
    } finally {
      silent.close();
    }
  });

  it('with onlyDNS, judges an IPv6 address that carries an IPv4 one by the IPv4 address', async () => {
    for (const url of ['http://[::ffff:127.0.0.1]/', 'http://[::ffff:a00:1]/', 'http://[64:ff9b::c0a8:101]/', 'http://[2002:a9fe:a9fe::1]/', 'http://[::10.0.0.1]/']) {
      expect((await check({ onlyDNS: true })(input(url))).verdict, url).toBe(false);
    }
    expect((await check({ onlyDNS: true })(input('http://[::ffff:93.184.215.14]/'))).verdict).toBe(true);
    expect((await check({ onlyDNS: true })(input('http://[2606:4700::1111]/'))).verdict).toBe(true);
  });
});
