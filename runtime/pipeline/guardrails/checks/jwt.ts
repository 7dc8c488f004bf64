// default.jwt: the request header headerKey carries a JWT (`Bearer <token>` or the bare token) whose
// signature verifies against the JSON Web Key Set at jwksUri (fetched through the custom-host policy
// and kept cacheMaxAge seconds) and whose exp, nbf (with clockTolerance) and maxTokenAge hold. A bad,
// expired or missing token fails the check; a key set that cannot be fetched is an error, which fails
// the check unless failOnError is false.
import type { JSONWebKeySet, JWTVerifyGetKey } from 'jose';
import type { CheckDefinition } from '../check.ts';
import { hookHttp } from '../hook-http.ts';
import { untilAborted } from '../../../core/until-aborted.ts';

const JWKS_TIMEOUT_MS = 5000;

/** jose, loaded the first time a jwt check runs: a gateway whose configs use none never holds it. */
let jose: Promise<typeof import('jose')> | null = null;
const loadJose = (): Promise<typeof import('jose')> => (jose ??= import('jose'));

export const jwt: CheckDefinition = {
  kind: 'verdict',
  readsText: false,
  failOnErrorByDefault: true,
  prepare(parameters, tools) {
    const url = new URL(parameters.jwksUri as string);
    const header = (parameters.headerKey as string).toLowerCase();
    const maxAgeMs = (typeof parameters.cacheMaxAge === 'number' ? parameters.cacheMaxAge : 86_400) * 1000;
    const options = {
      algorithms: Array.isArray(parameters.algorithms) ? (parameters.algorithms as string[]) : undefined,
      clockTolerance: typeof parameters.clockTolerance === 'number' ? parameters.clockTolerance : 5,
      maxTokenAge: typeof parameters.maxTokenAge === 'string' ? parameters.maxTokenAge.replace(' ', '') : undefined,
    };
    let keys: { getKey: JWTVerifyGetKey; expires: number } | null = null;
    let fetching: Promise<JWTVerifyGetKey> | null = null;
    const keySet = async (signal: AbortSignal): Promise<JWTVerifyGetKey> => {
      if (keys !== null && keys.expires > tools.now()) return keys.getKey;
      // Concurrent requests share one fetch, bounded by its own timeout: each stops waiting when its
      // client leaves, and the fetch goes on for the others.
      fetching ??= (async () => {
        try {
          const answer = await hookHttp(tools.hostPolicy, url, 'jwksUri', { method: 'GET', timeoutMs: JWKS_TIMEOUT_MS });
          if (answer.status !== 200) throw new Error(`the key set at ${url.host} answered ${answer.status}`);
          const { createLocalJWKSet } = await loadJose();
          const getKey = createLocalJWKSet(JSON.parse(answer.body.toString('utf8')) as JSONWebKeySet);
          keys = { getKey, expires: tools.now() + maxAgeMs };
          return getKey;
        } finally {
          fetching = null;
        }
      })();
      return untilAborted(fetching, signal);
    };
    return async (input) => {
      const raw = input.headers[header];
      if (raw === undefined || raw.trim() === '') return { verdict: false, explanation: `no token in the ${header} header` };
      const token = raw.replace(/^Bearer\s+/i, '').trim();
      const getKey = await keySet(input.signal);
      const { errors: joseErrors, jwtVerify } = await loadJose();
      try {
        const verified = await jwtVerify(token, getKey, { ...options, currentDate: new Date(tools.now()) });
        return { verdict: true, explanation: `token of ${typeof verified.payload.sub === 'string' ? verified.payload.sub : 'an unnamed subject'} verified` };
      } catch (error) {
        if (error instanceof joseErrors.JOSEError) return { verdict: false, explanation: `the token is not valid: ${error.message}` };
        throw error;
      }
    };
  },
};
