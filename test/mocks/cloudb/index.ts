// A protocol-faithful mock of cloud family B: a service account whose key the mock made, the OAuth
// token endpoint that verifies the JWT assertion's signature, and the regional model endpoints
// (`/v1/projects/{p}/locations/{r}/publishers/google/models/{m}:generateContent` …, and Claude's
// `…/publishers/anthropic/models/{m}:rawPredict` and `:streamRawPredict`: claude.ts) that accept
// only tokens it issued (or a fixed access token), unexpired.
import { generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { startMockServer, bearerKey, type MockServer } from '../http/mock-server.ts';
import { sendBytes } from '../http/respond.ts';
import type { MockContext } from '../vendor/context.ts';
import { echo } from '../vendor/echo.ts';
import { countTokens, generateContent, predict, sendCloudbError } from './generate.ts';
import { rawPredict } from './claude.ts';
import { MockPromptCache } from '../http/prompt-cache.ts';
import { tokenEndpoint, type TokenAuthority } from './token-endpoint.ts';

export const CLOUDB_PROJECT = 'mock-project-123';
export const CLOUDB_REGION = 'us-central1';
/** Accepted as a ready-made access token (the Authorization form, without a service account). */
export const CLOUDB_STATIC_TOKEN = 'ya29.static-mock-token';
export { cloudbErrorBody } from './generate.ts';

export interface CloudbMock extends MockServer {
  /** The service-account key file's contents, with token_uri pointing at this mock. */
  serviceAccount: Record<string, string>;
  /** The same account with a private key the mock does not know (its JWTs fail verification). */
  foreignServiceAccount: Record<string, string>;
  /** Successful token exchanges so far. */
  tokenExchanges(): number;
  /** Makes every issued token invalid at once (as a key rotation would). */
  revokeTokens(): void;
}

export interface CloudbMockOptions {
  label?: string;
  project?: string;
  region?: string;
  /** `expires_in` of issued tokens (default 3599). */
  tokenLifetimeSeconds?: number;
  port?: number;
}

let cachedKeys: { privateKey: KeyObject; publicKey: KeyObject; other: KeyObject } | null = null;
/** RSA key generation is slow: one pair (and one foreign key) per test process. */
function keys(): { privateKey: KeyObject; publicKey: KeyObject; other: KeyObject } {
  if (cachedKeys === null) {
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    cachedKeys = { privateKey: pair.privateKey, publicKey: pair.publicKey, other };
  }
  return cachedKeys;
}

const MODEL_PATH = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^/:]+):(generateContent|streamGenerateContent|predict|countTokens|rawPredict|streamRawPredict)$/;

export async function startCloudbMock(options: CloudbMockOptions = {}): Promise<CloudbMock> {
  const project = options.project ?? CLOUDB_PROJECT;
  const region = options.region ?? CLOUDB_REGION;
  const { privateKey, publicKey, other } = keys();
  const keyId = randomBytes(20).toString('hex');
  const clientEmail = `gateway-test@${project}.iam.gserviceaccount.com`;
  const authority: TokenAuthority = { clientEmail, keyId, publicKey, tokenUri: '', lifetimeSeconds: options.tokenLifetimeSeconds ?? 3599, issued: new Map(), exchanges: 0 };

  const promptCache = new MockPromptCache();
  const server = await startMockServer({
    label: options.label ?? 'cloudb-mock',
    models: ['gemini-mock-pro', 'gemini-mock-flash', 'text-embedding-mock'],
    port: options.port,
    async authenticate(ctx: MockContext): Promise<boolean> {
      if (ctx.record.path === '/token') return true;
      const token = bearerKey(ctx.req.headers.authorization);
      if (token === null) {
        await sendCloudbError(ctx, 401, 'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.');
        return false;
      }
      const issued = authority.issued.get(token);
      if (token !== CLOUDB_STATIC_TOKEN && (issued === undefined || issued.expiresAt <= Date.now())) {
        await sendCloudbError(ctx, 401, 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.');
        return false;
      }
      return true;
    },
    sendError: (ctx, status, fields) => sendCloudbError(ctx, status, fields?.message),
    sendBody: (ctx, status, contentType, body) => sendBytes(ctx, status, { 'content-type': contentType, 'x-mock-instance': ctx.label }, body),
    async route(ctx: MockContext): Promise<void> {
      const { path, method } = ctx.record;
      if (path === '/token') return tokenEndpoint(ctx, authority);
      const match = MODEL_PATH.exec(path);
      if (match === null) return echo(ctx);
      if (method !== 'POST') return sendCloudbError(ctx, 405, 'Method not allowed.');
      const [, pathProject, location, publisher, model, verb] = match.map(decodeURIComponent);
      if (pathProject !== project) return sendCloudbError(ctx, 403, `Permission denied on resource project ${pathProject}.`);
      if (location !== region) return sendCloudbError(ctx, 400, `Location ${location} is not served by this endpoint.`);
      // Claude's models take the messages API's body through rawPredict (claude.ts); Gemini's their own calls.
      if ((publisher === 'anthropic') !== verb.endsWith('awPredict')) return sendCloudbError(ctx, 404, `Publisher model ${publisher}/${model} has no ${verb}.`);
      if (publisher === 'anthropic') return rawPredict(ctx, model, verb === 'streamRawPredict', promptCache);
      if (verb === 'predict') return predict(ctx, model);
      if (verb === 'countTokens') return countTokens(ctx);
      return generateContent(ctx, model, verb === 'streamGenerateContent', promptCache);
    },
  });
  authority.tokenUri = `${server.url}/token`;
  const account = (key: KeyObject): Record<string, string> => ({
    type: 'service_account',
    project_id: project,
    private_key_id: keyId,
    private_key: key.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: clientEmail,
    client_id: '100000000000000000001',
    auth_uri: 'https://accounts.example/o/oauth2/auth',
    token_uri: authority.tokenUri,
  });
  return {
    ...server,
    serviceAccount: account(privateKey),
    foreignServiceAccount: account(other),
    tokenExchanges: () => authority.exchanges,
    revokeTokens: () => authority.issued.clear(),
  };
}
