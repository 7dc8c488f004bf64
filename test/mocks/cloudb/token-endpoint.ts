// The OAuth token endpoint of cloud family B: a JWT-bearer grant whose assertion must be an RS256
// JWT signed by the service account's key, issued by its client_email, for this endpoint, and
// short-lived. Verified here with the public key, independently of the gateway's signer.
import { randomBytes, verify, type KeyObject } from 'node:crypto';
import type { MockContext } from '../vendor/context.ts';
import { sendBytes } from '../http/respond.ts';

export interface IssuedToken {
  token: string;
  expiresAt: number;
}

export interface TokenAuthority {
  clientEmail: string;
  keyId: string;
  publicKey: KeyObject;
  tokenUri: string;
  lifetimeSeconds: number;
  issued: Map<string, IssuedToken>;
  /** Assertions accepted (one per exchange). */
  exchanges: number;
}

function oauthError(ctx: MockContext, status: number, error: string, description: string): Promise<void> {
  return sendBytes(ctx, status, { 'content-type': 'application/json; charset=utf-8' }, Buffer.from(JSON.stringify({ error, error_description: description })));
}

function decodePart(part: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export async function tokenEndpoint(ctx: MockContext, authority: TokenAuthority): Promise<void> {
  if (ctx.record.method !== 'POST') return oauthError(ctx, 405, 'invalid_request', 'Method not allowed.');
  if (!String(ctx.req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
    return oauthError(ctx, 400, 'invalid_request', 'Content-Type must be application/x-www-form-urlencoded.');
  }
  const form = new URLSearchParams(ctx.record.body);
  if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return oauthError(ctx, 400, 'unsupported_grant_type', 'Invalid grant_type.');
  const assertion = form.get('assertion') ?? '';
  const parts = assertion.split('.');
  if (parts.length !== 3) return oauthError(ctx, 400, 'invalid_grant', 'Invalid JWT: not three segments.');
  const header = decodePart(parts[0]);
  const claims = decodePart(parts[1]);
  if (header === null || claims === null) return oauthError(ctx, 400, 'invalid_grant', 'Invalid JWT: segments are not base64url JSON.');
  if (header.alg !== 'RS256') return oauthError(ctx, 400, 'invalid_grant', 'Invalid JWT: alg must be RS256.');
  if (header.kid !== undefined && header.kid !== authority.keyId) return oauthError(ctx, 400, 'invalid_grant', 'Invalid JWT Signature.');
  const signatureValid = verify('sha256', Buffer.from(`${parts[0]}.${parts[1]}`), authority.publicKey, Buffer.from(parts[2], 'base64url'));
  if (!signatureValid) return oauthError(ctx, 400, 'invalid_grant', 'Invalid JWT Signature.');
  if (claims.iss !== authority.clientEmail) return oauthError(ctx, 400, 'invalid_grant', 'Invalid email or User ID');
  if (claims.aud !== authority.tokenUri) return oauthError(ctx, 400, 'invalid_grant', 'Invalid JWT: audience is not this token endpoint.');
  if (typeof claims.scope !== 'string' || !claims.scope.split(' ').includes('https://www.googleapis.com/auth/cloud-platform')) {
    return oauthError(ctx, 400, 'invalid_scope', 'Invalid OAuth scope or ID token audience provided.');
  }
  const now = Math.floor(Date.now() / 1000);
  const { iat, exp } = claims;
  if (typeof iat !== 'number' || typeof exp !== 'number' || iat > now + 60 || exp <= now || exp - iat > 3600) {
    return oauthError(ctx, 400, 'invalid_grant', 'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.');
  }
  authority.exchanges += 1;
  const token = `ya29.mock-${randomBytes(16).toString('base64url')}`;
  authority.issued.set(token, { token, expiresAt: Date.now() + authority.lifetimeSeconds * 1000 });
  return sendBytes(ctx, 200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache, no-store, max-age=0, must-revalidate' },
    Buffer.from(JSON.stringify({ access_token: token, expires_in: authority.lifetimeSeconds, token_type: 'Bearer' })));
}
