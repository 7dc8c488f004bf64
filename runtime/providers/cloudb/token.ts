// Service account → OAuth access token (RFC 7523 JWT bearer grant): a JWT signed RS256 with the
// account's private key is exchanged at its token_uri. Tokens are cached per account until shortly
// before they expire, and concurrent requests share one exchange.
import { createHash, createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { GatewayError } from '../../core/errors.ts';
import { untilAborted } from '../../core/until-aborted.ts';
import { send } from '../../upstream/send.ts';
import type { UpstreamRequest, UpstreamResponse } from '../../upstream/types.ts';
import type { HostPolicy } from '../host-policy.ts';
import { jsonObjectOf } from '../shared/errors.ts';

export const DEFAULT_TOKEN_URI = 'https://oauth2.googleapis.com/token';
export const TOKEN_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
const JWT_LIFETIME_S = 3600;
/** Refresh this long before expiry (at most half the token's lifetime). */
const REFRESH_MARGIN_MS = 5 * 60_000;
const CACHE_LIMIT = 1000;
const EXCHANGE_TIMEOUT_MS = 30_000;

export interface ServiceAccount {
  clientEmail: string;
  privateKey: KeyObject;
  privateKeyId: string | null;
  tokenUri: string;
  projectId: string | null;
  /** Identity of the credential for the cache: never the key itself. */
  cacheKey: string;
}

const parsedAccounts = new WeakMap<object, ServiceAccount>();

/** Reads a service-account JSON object (the key file's contents); 400 naming what is wrong. */
export function serviceAccountOf(value: unknown, provider: string): ServiceAccount {
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      throw invalid(provider, 'is not a JSON object');
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid(provider, 'is not a JSON object');
  const known = parsedAccounts.get(value);
  if (known !== undefined) return known;
  const json = value as Record<string, unknown>;
  if (typeof json.client_email !== 'string' || json.client_email === '') throw invalid(provider, 'has no client_email');
  if (typeof json.private_key !== 'string' || json.private_key === '') throw invalid(provider, 'has no private_key');
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(json.private_key);
  } catch {
    throw invalid(provider, 'has a private_key that is not a PEM private key');
  }
  const tokenUri = typeof json.token_uri === 'string' && json.token_uri !== '' ? json.token_uri : DEFAULT_TOKEN_URI;
  const account: ServiceAccount = {
    clientEmail: json.client_email,
    privateKey,
    privateKeyId: typeof json.private_key_id === 'string' ? json.private_key_id : null,
    tokenUri,
    projectId: typeof json.project_id === 'string' && json.project_id !== '' ? json.project_id : null,
    cacheKey: createHash('sha256').update(`${json.client_email}\u0000${tokenUri}\u0000${json.private_key}`).digest('hex'),
  };
  parsedAccounts.set(value, account);
  return account;
}

function invalid(provider: string, what: string): GatewayError {
  return new GatewayError('invalid_provider_option', `cloudb_service_account_json ${what}.`, 'cloudb_service_account_json', { provider });
}

function base64url(data: Buffer | string): string {
  return Buffer.from(data).toString('base64url');
}

/** The signed assertion: header {alg: RS256, typ: JWT, kid}, claims {iss, scope, aud, iat, exp}. */
export function signedAssertion(account: ServiceAccount, nowMs: number): string {
  const iat = Math.floor(nowMs / 1000);
  const header = { alg: 'RS256', typ: 'JWT', ...(account.privateKeyId !== null ? { kid: account.privateKeyId } : {}) };
  const claims = { iss: account.clientEmail, scope: TOKEN_SCOPE, aud: account.tokenUri, iat, exp: iat + JWT_LIFETIME_S };
  const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  return `${input}.${base64url(sign('sha256', Buffer.from(input), account.privateKey))}`;
}

interface CachedToken {
  token: string;
  refreshAt: number;
}

export interface TokenSourceOptions {
  provider: string;
  sender?: (req: UpstreamRequest) => Promise<UpstreamResponse>;
  now?: () => number;
  /** Checks token_uri hosts other than the default one. */
  hostPolicy?: HostPolicy;
}

export class AccessTokens {
  readonly #options: TokenSourceOptions;
  readonly #cache = new Map<string, CachedToken>();
  readonly #pending = new Map<string, Promise<CachedToken>>();
  /** Exchanges made (for tests and metrics). */
  exchanges = 0;

  constructor(options: TokenSourceOptions) {
    this.#options = options;
  }

  async tokenFor(account: ServiceAccount, signal: AbortSignal): Promise<string> {
    const now = (this.#options.now ?? Date.now)();
    const cached = this.#cache.get(account.cacheKey);
    if (cached !== undefined && cached.refreshAt > now) return cached.token;
    let pending = this.#pending.get(account.cacheKey);
    if (pending === undefined) {
      // Shared by every waiter, so it must not die with the first waiter's client: its own deadline.
      pending = this.#exchange(account, AbortSignal.timeout(EXCHANGE_TIMEOUT_MS)).finally(() => this.#pending.delete(account.cacheKey));
      this.#pending.set(account.cacheKey, pending);
    }
    return (await untilAborted(pending, signal)).token;
  }

  /** Forgets an account's token (the provider said it was no longer valid). */
  forget(account: ServiceAccount): void {
    this.#cache.delete(account.cacheKey);
  }

  async #exchange(account: ServiceAccount, signal: AbortSignal): Promise<CachedToken> {
    const { provider } = this.#options;
    const now = this.#options.now ?? Date.now;
    let url: URL;
    try {
      url = new URL(account.tokenUri);
    } catch {
      throw invalid(provider, 'has a token_uri that is not a URL');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid(provider, 'has a token_uri that is not http(s)');
    if (account.tokenUri !== DEFAULT_TOKEN_URI) await this.#options.hostPolicy?.check(url, 'cloudb_service_account_json.token_uri');
    const body = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: signedAssertion(account, now()) }).toString();
    this.exchanges += 1;
    const response = await (this.#options.sender ?? send)({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: Buffer.from(body),
      signal,
    });
    const text = await response.readAll();
    const json = jsonObjectOf(text);
    if (response.status !== 200 || typeof json?.access_token !== 'string') {
      const reason = typeof json?.error_description === 'string' ? json.error_description : typeof json?.error === 'string' ? json.error : `status ${response.status}`;
      throw new GatewayError('provider_authentication_failed', `The provider "${provider}" refused the service account's token request: ${reason}`, 'cloudb_service_account_json', {
        provider,
        provider_status: response.status,
      });
    }
    const lifetimeMs = (typeof json.expires_in === 'number' && json.expires_in > 0 ? json.expires_in : 3600) * 1000;
    const token: CachedToken = { token: json.access_token, refreshAt: now() + lifetimeMs - Math.min(REFRESH_MARGIN_MS, lifetimeMs / 2) };
    if (this.#cache.size >= CACHE_LIMIT) this.#cache.clear();
    this.#cache.set(account.cacheKey, token);
    return token;
  }
}
