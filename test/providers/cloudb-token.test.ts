// Cloud B credentials: the service account's signed JWT is exchanged at the token endpoint (which
// verifies its signature), the token is cached until shortly before it expires and shared by
// concurrent requests, and a refused exchange is a mapped 401, never a request without auth.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccessTokens, serviceAccountOf, signedAssertion } from '../../runtime/providers/cloudb/token.ts';
import { startCloudbMock, CLOUDB_REGION, type CloudbMock } from '../mocks/cloudb/index.ts';
import { startProviderGateway, type ProviderGateway } from './gateway.ts';

let mock: CloudbMock;
let shortLived: CloudbMock;
let gw: ProviderGateway;

beforeAll(async () => {
  [mock, shortLived, gw] = await Promise.all([startCloudbMock({ label: 'b' }), startCloudbMock({ label: 'short', tokenLifetimeSeconds: 2 }), startProviderGateway()]);
});
afterAll(async () => {
  await Promise.all([mock.close(), shortLived.close(), gw.close()]);
});

const chat = { model: 'gemini-mock-flash', messages: [{ role: 'user' as const, content: 'token please' }] };
const config = (m: CloudbMock, account: unknown = m.serviceAccount) => ({ provider: 'cloudb', custom_host: `${m.url}/v1`, cloudb_region: CLOUDB_REGION, cloudb_service_account_json: account });

describe('the signed assertion', () => {
  it('is an RS256 JWT for the cloud-platform scope, issued by the account, for its token endpoint, one hour long', () => {
    const account = serviceAccountOf(mock.serviceAccount, 'cloudb');
    const [header, claims, signature] = signedAssertion(account, Date.UTC(2025, 0, 1)).split('.');
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toEqual({ alg: 'RS256', typ: 'JWT', kid: mock.serviceAccount.private_key_id });
    expect(JSON.parse(Buffer.from(claims, 'base64url').toString())).toEqual({
      iss: mock.serviceAccount.client_email,
      scope: 'https://www.googleapis.com/auth/cloud-platform',
      aud: mock.serviceAccount.token_uri,
      iat: 1735689600,
      exp: 1735693200,
    });
    expect(Buffer.from(signature, 'base64url')).toHaveLength(256);
  });
});

describe('token exchange through the gateway', () => {
  it('exchanges once and reuses the token across requests and configs spelt differently', async () => {
    const before = mock.tokenExchanges();
    await Promise.all([1, 2, 3].map(() => gw.client(config(mock)).chat.completions.create(chat)));
    const reordered = Object.fromEntries(Object.entries(mock.serviceAccount).reverse());
    const data = await gw.client(config(mock, reordered)).chat.completions.create(chat);
    expect(data.choices[0].message.content).toBe('[b] token please');
    expect(mock.tokenExchanges() - before).toBe(1);
    const seen = mock.requests.filter((r) => r.path !== '/token').at(-1)!;
    expect(String(seen.headers.authorization)).toMatch(/^Bearer ya29\.mock-/);
    const exchange = mock.requests.find((r) => r.path === '/token')!;
    expect(exchange.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(new URLSearchParams(exchange.body).get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
  });

  it('refreshes a token shortly before it expires', async () => {
    const before = shortLived.tokenExchanges();
    await gw.client(config(shortLived)).chat.completions.create(chat);
    await gw.client(config(shortLived)).chat.completions.create(chat);
    expect(shortLived.tokenExchanges() - before).toBe(1);
    // Lifetime 2 s, refreshed at half of it.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await gw.client(config(shortLived)).chat.completions.create(chat);
    expect(shortLived.tokenExchanges() - before).toBe(2);
  });

  it('drops a cached token the provider stops accepting, and gets a new one next time', async () => {
    await gw.client(config(mock)).chat.completions.create(chat);
    mock.revokeTokens();
    const before = mock.tokenExchanges();
    const refused = await gw.post('/v1/chat/completions', config(mock), chat);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: object }).error).toMatchObject({ provider: 'cloudb', code: 'UNAUTHENTICATED', type: 'authentication_error' });
    const data = await gw.client(config(mock)).chat.completions.create(chat);
    expect(data.choices[0].message.content).toBe('[b] token please');
    expect(mock.tokenExchanges() - before).toBe(1);
  });

  it('forgets a refused token even when a fallback discards the answer unread', async () => {
    await gw.client(config(mock)).chat.completions.create(chat);
    mock.revokeTokens();
    const before = mock.tokenExchanges();
    const { data, response } = await gw.client({ strategy: { mode: 'fallback' }, targets: [config(mock), config(mock)] }).chat.completions.create(chat).withResponse();
    expect(data.choices[0].message.content).toBe('[b] token please');
    expect(response.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    expect(mock.tokenExchanges() - before).toBe(1);
  });

  it('embeds through :predict with the same token', async () => {
    const result = await gw.client(config(mock)).embeddings.create({ model: 'text-embedding-mock', input: ['one two', 'three'], dimensions: 4 });
    expect(result.data.map((d) => [d.index, d.embedding.length])).toEqual([[0, 4], [1, 4]]);
    expect(result.usage.prompt_tokens).toBe(3);
    expect(mock.requests.at(-1)!.path).toBe(`/v1/projects/mock-project-123/locations/${CLOUDB_REGION}/publishers/google/models/text-embedding-mock:predict`);
  });

  it('maps a refused exchange (a key the endpoint cannot verify) to 401 provider_authentication_failed naming the provider', async () => {
    const res = await gw.post('/v1/chat/completions', config(mock, mock.foreignServiceAccount), chat);
    expect(res.status).toBe(401);
    const body = (await res.json()) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({ code: 'provider_authentication_failed', provider: 'cloudb', provider_status: 400 });
    expect(String(body.error.message)).toContain('Invalid JWT Signature.');
    expect(JSON.stringify(body)).not.toContain('PRIVATE KEY');
    // Nothing was sent to the model endpoint without a token.
    expect(mock.requests.at(-1)!.path).toBe('/token');
  });

  it('accepts the service account as JSON text in x-gateway-cloudb-service-account-json', async () => {
    const data = await gw.client({ provider: 'cloudb', custom_host: `${mock.url}/v1`, cloudb_region: CLOUDB_REGION }, { 'x-gateway-cloudb-service-account-json': JSON.stringify(mock.serviceAccount) }).chat.completions.create(chat);
    expect(data.choices[0].message.content).toBe('[b] token please');
  });

  it('shares one exchange between concurrent requests, each honouring its own abort', async () => {
    const tokens = new AccessTokens({ provider: 'cloudb' });
    const fresh = await startCloudbMock({ label: 'fresh' });
    try {
      const account = serviceAccountOf({ ...fresh.serviceAccount }, 'cloudb');
      const aborted = new AbortController();
      aborted.abort(new Error('client gone'));
      await expect(tokens.tokenFor(account, aborted.signal)).rejects.toThrow('client gone');
      const all = await Promise.all([1, 2, 3, 4].map(() => tokens.tokenFor(account, new AbortController().signal)));
      expect(new Set(all).size).toBe(1);
      expect(fresh.tokenExchanges()).toBe(1);
    } finally {
      await fresh.close();
    }
  });
});
