// One upstream call for one leaf: provider, credential, URL, headers and body, resolved from the
// leaf's plan merged with the request's headers (ARCHITECTURE §5: a leaf without a provider or
// credential takes them from x-gateway-provider and Authorization, and fails the request without).
import type { LeafTarget } from '../router/router-runtime.ts';
import { GatewayError } from '../server/errors.ts';
import type { ProviderRegistry } from '../providers/registry.ts';
import { send } from '../upstream/send.ts';
import type { UpstreamRequest, UpstreamResponse } from '../upstream/types.ts';
import type { InferenceRequest } from './inference-request.ts';

/** Headers of the client request that always go upstream; anything else only when forwarded. */
const PASSED_HEADERS = ['content-type', 'accept'];

interface BaseUrl {
  origin: string;
  /** Path prefix without a trailing slash, e.g. `/v1`. */
  prefix: string;
}

export class InferenceTransport {
  readonly #providers: ProviderRegistry;
  readonly #baseUrls = new Map<string, BaseUrl>();
  readonly #send: (req: UpstreamRequest) => Promise<UpstreamResponse>;

  constructor(providers: ProviderRegistry, sender: (req: UpstreamRequest) => Promise<UpstreamResponse> = send) {
    this.#providers = providers;
    this.#send = sender;
  }

  /** Bound once, so routers can call it as a plain function. */
  readonly call = (req: InferenceRequest, leaf: LeafTarget, signal: AbortSignal): Promise<UpstreamResponse> => {
    const plan = leaf.plan;
    if (plan.virtualKey !== null) {
      throw new GatewayError('unknown_virtual_key', `No virtual key "${plan.virtualKey}" is stored in this gateway.`, 'virtual_key');
    }
    const providerName = plan.provider ?? req.headerProvider;
    if (providerName === null) throw new GatewayError('missing_provider', undefined, 'x-gateway-provider');
    const adapter = this.#providers.get(providerName);
    const apiKey = plan.apiKey ?? req.bearerToken;
    if (apiKey === null) {
      throw new GatewayError('missing_provider_credentials', `The target ${plan.path} (provider "${providerName}") has no credential: send Authorization: Bearer <token> or set api_key.`, 'authorization');
    }
    const base = this.#baseUrl(plan.customHost ?? req.headerCustomHost ?? adapter.baseUrl);
    return this.#send({
      origin: base.origin,
      path: base.prefix + req.upstreamPath,
      method: req.method,
      headers: this.#headers(req, plan.forwardHeaders, adapter.authHeaders(apiKey, plan)),
      body: bodyFor(req, plan.overrideParams),
      signal,
    });
  };

  #headers(req: InferenceRequest, configForwarded: readonly string[], auth: Record<string, string>): Record<string, string> {
    const incoming = req.ctx.headers;
    const headers: Record<string, string> = {};
    for (const name of PASSED_HEADERS) {
      const value = incoming[name];
      if (typeof value === 'string') headers[name] = value;
    }
    for (const names of [configForwarded, req.ctx.forwardHeaders]) {
      for (const name of names) {
        const value = incoming[name];
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      }
    }
    // The credential is the gateway's to set; a forwarded header never replaces it.
    return Object.assign(headers, auth);
  }

  #baseUrl(url: string): BaseUrl {
    let base = this.#baseUrls.get(url);
    if (base === undefined) {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        throw new GatewayError('invalid_custom_host', `The custom host ${JSON.stringify(url)} is not a valid URL.`, 'custom_host');
      }
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
        throw new GatewayError('invalid_custom_host', `The custom host must be http:// or https://, not ${parsed.protocol}`, 'custom_host');
      }
      base = { origin: parsed.origin, prefix: parsed.pathname.replace(/\/+$/, '') };
      // Bounded: header-supplied hosts are client input.
      if (this.#baseUrls.size >= 1000) this.#baseUrls.clear();
      this.#baseUrls.set(url, base);
    }
    return base;
  }
}

/** The bytes to send: the client's own, or the parsed body with override_params applied. */
function bodyFor(req: InferenceRequest, overrides: Record<string, unknown>): Buffer | null {
  if (req.rawBody === null || req.rawBody.length === 0) return null;
  const params = req.params;
  if (hasKeys(overrides) && params !== null && typeof params === 'object' && !Array.isArray(params)) {
    return Buffer.from(JSON.stringify({ ...(params as Record<string, unknown>), ...overrides }));
  }
  return req.rawBody;
}

function hasKeys(object: Record<string, unknown>): boolean {
  for (const _ in object) return true;
  return false;
}
