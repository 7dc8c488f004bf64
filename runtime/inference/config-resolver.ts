// Which router serves a request (ARCHITECTURE §4 step 2): a saved config named by ID, an inline
// config (checked, planned and emitted once per distinct config, then cached), or the single-target
// config that the provider headers describe.
import { createHash } from 'node:crypto';
import { checkConfig, type ConfigError, configTooDeep, findDuplicateKeys, type GuardrailLookup } from '../../compiler/config/index.ts';
import { planConfig } from '../../compiler/config/plan.ts';
import type { RoutePlan } from '../core/plan.ts';
import type { StoredCredentials } from '../providers/stored-credentials.ts';
import { canonicalJson } from '../core/canonical-json.ts';
import { GatewayError } from '../core/errors.ts';
import { CONFIG_HEADER } from '../core/gateway-headers.ts';
import { MAX_CONFIG_DEPTH, nestsDeeperThan } from '../../compiler/config/json-depth.ts';
import { LruMap } from './lru.ts';
import { buildRouter, defaultServices, type LoadedRouter, type RouterDeps } from './routers.ts';
import type { Services } from '../pipeline/services.ts';
import type { CircuitBreakers } from '../router/breaker.ts';
import type { InferenceTransport } from './transport.ts';
import { jsonErrorDetail } from '../../compiler/config/json-syntax-error.ts';
import { withoutEffect } from '../../compiler/config/without-effect.ts';
import { EVERY_ROUTING_HEADER } from '../pipeline/options.ts';
import { parseJson } from '../../compiler/config/json-parse.ts';


/** What a config ID can look like; anything else sent as one (a pasted config, a key) is not echoed back. */
const SAVED_ID = /^[A-Za-z0-9._:@-]{1,128}$/;

/** A resolver's routers call the real transport, whose stored credentials it installs. */
export interface ResolverDeps extends RouterDeps {
  transport: InferenceTransport;
}

/**
 * Text the routers kept by header text may have been built from, per entry of the count
 * (GATEWAY_INLINE_CONFIG_CACHE): a compiled config takes ~50 times its text (600 targets, 32 KB:
 * ~1.5 MB of RSS), so a thousand distinct such inline configs held ~1.5 GB. With this, 1,000 of up
 * to 4 KB are kept as before; larger ones evict the oldest sooner (~200 MB at most by default).
 */
const TEXT_PER_ROUTER = 4096;

export class ConfigResolver {
  readonly #deps: ResolverDeps;
  readonly #saved = new Map<string, LoadedRouter>();
  /** Exact header text → router: a cached inline config costs one map lookup, no parse. */
  readonly #inlineByText: LruMap<string, LoadedRouter>;
  /** Canonical hash → router: the same config spelt differently compiles once. */
  readonly #inlineByHash: LruMap<string, LoadedRouter>;
  readonly #fromHeaders: LruMap<string, LoadedRouter>;
  /** Where inline configs' guardrail names resolve: the control plane's catalog, once installed. */
  #guardrails: GuardrailLookup | null = null;

  constructor(deps: ResolverDeps) {
    this.#deps = { ...deps, services: deps.services ?? defaultServices() };
    const size = deps.settings.inlineConfigCacheSize;
    const text = size * TEXT_PER_ROUTER;
    this.#inlineByText = new LruMap(size, text);
    this.#inlineByHash = new LruMap(size, text);
    this.#fromHeaders = new LruMap(size, text);
  }

  /** What routers are built from: a simulation builds its own over the same transport and settings. */
  get deps(): Readonly<ResolverDeps> {
    return this.#deps;
  }

  /** The circuit breakers of every router (for /metrics). */
  get breakers(): CircuitBreakers {
    return this.#deps.breakers;
  }

  /** What every router's stages use (one object: installing a service reaches every router). */
  get services(): Services {
    return this.#deps.services!;
  }

  /**
   * Installs where inline configs' guardrail names resolve; called again when a guardrail changed,
   * so inline routers compiled with the old one are compiled again on their next use.
   */
  useGuardrails(guardrails: GuardrailLookup | null): void {
    this.#guardrails = guardrails;
    this.#inlineByText.clear();
    this.#inlineByHash.clear();
  }

  /** Installs (or atomically replaces) the router of a saved config. */
  setSaved(plan: RoutePlan): void {
    this.#saved.set(plan.configId, buildRouter(plan, this.#deps));
  }

  deleteSaved(id: string): boolean {
    return this.#saved.delete(id);
  }

  savedIds(): string[] {
    return [...this.#saved.keys()];
  }

  /** Router for the x-gateway-config header value: inline JSON or a saved config ID. */
  fromConfigHeader(value: string): LoadedRouter {
    const cached = this.#inlineByText.get(value);
    if (cached !== undefined) {
      this.#deps.services!.metrics?.inlineConfig(true);
      return cached;
    }
    const trimmed = value.trim();
    if (!trimmed.startsWith('{')) {
      const saved = this.#saved.get(trimmed);
      if (saved === undefined) throw new GatewayError('unknown_config_id', SAVED_ID.test(trimmed) ? `No saved config has the ID "${trimmed}".` : `No saved config has that ID (${trimmed.length} characters, not echoed: it is no config ID this gateway could have).`, CONFIG_HEADER);
      return saved;
    }
    const router = this.#compileInline(trimmed);
    this.#inlineByText.set(value, router, value.length);
    return router;
  }

  /** Installs the in-memory virtual keys and provider slugs the transport resolves leaves with. */
  useCredentials(credentials: StoredCredentials | null): void {
    this.#deps.transport.useCredentials(credentials);
  }

  /** Router for a request that names only a virtual key (x-gateway-virtual-key): `{virtual_key}` as a config. */
  fromVirtualKey(id: string): LoadedRouter {
    const key = `vk\u0000${id}`;
    let router = this.#fromHeaders.get(key);
    if (router === undefined) {
      router = headerRouter(buildRouter(planConfig({ virtual_key: id }, `headers:virtual-key:${id}`), this.#deps));
      this.#fromHeaders.set(key, router, key.length);
    }
    return router;
  }

  /** Router for requests that name their provider in headers (x-gateway-provider, x-gateway-custom-host). */
  fromProviderHeaders(provider: string, customHost: string | null): LoadedRouter {
    const key = `${provider}\u0000${customHost ?? ''}`;
    let router = this.#fromHeaders.get(key);
    if (router === undefined) {
      // Built straight from the plan stage: `{provider}` alone is not one of the 18 key sets, but
      // here the credential arrives in Authorization with every request, so it need not be embedded.
      const config = customHost === null ? { provider } : { provider, custom_host: customHost };
      router = headerRouter(buildRouter(planConfig(config, `headers:${provider}${customHost ? `@${customHost}` : ''}`), this.#deps));
      this.#fromHeaders.set(key, router, key.length);
    }
    return router;
  }

  #compileInline(text: string): LoadedRouter {
    let value: unknown;
    try {
      value = parseJson(text);
    } catch {
      // Not V8's message: it quotes the text around the error, and an inline config holds credentials.
      throw new GatewayError('invalid_config', `The ${CONFIG_HEADER} header is neither a saved config ID nor valid JSON${jsonErrorDetail(text)}.`, CONFIG_HEADER);
    }
    // Before any walk over it (canonical JSON, the validator) could overflow the stack.
    if (nestsDeeperThan(value, MAX_CONFIG_DEPTH)) throw invalidConfig([configTooDeep()]);
    // Checked on the text before the canonical hash (which cannot see them): one rule everywhere.
    const duplicates = findDuplicateKeys(text);
    if (duplicates.length > 0) throw invalidConfig(duplicates);
    const hash = createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 24);
    const known = this.#inlineByHash.get(hash);
    this.#deps.services!.metrics?.inlineConfig(known !== undefined);
    if (known !== undefined) return known;
    const result = checkConfig(value, `inline:${hash}`, { guardrails: this.#guardrails, secrets: 'refuse' });
    if (!result.ok) throw invalidConfig(result.errors);
    // Nothing reviews an inline config: a field that would have no effect is refused, not warned.
    const idle = withoutEffect(value);
    if (idle.length > 0) throw invalidConfig(idle);
    const router = buildRouter(result.plan, this.#deps);
    this.#inlineByHash.set(hash, router, text.length);
    return router;
  }
}

/** 400 `invalid_config` with every compile error (code, pointer, message, hint). */
function invalidConfig(errors: ReadonlyArray<Omit<ConfigError, 'code'> & { code: string }>): GatewayError {
  const first = errors[0];
  return new GatewayError('invalid_config', `The config is not valid: ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`, CONFIG_HEADER, {
    errors: errors.map(({ code, pointer, message, hint }) => ({ code, pointer, message, ...(hint ? { hint } : {}) })),
  });
}

/** A router built from the routing headers themselves reads them all: its plan is what they said. */
function headerRouter(router: LoadedRouter): LoadedRouter {
  return { ...router, routingHeaders: EVERY_ROUTING_HEADER };
}
