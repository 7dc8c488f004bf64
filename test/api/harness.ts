// A real gateway (data plane + control plane, as `gateway serve` wires them) on a free port, on
// SQLite or PostgreSQL, with a client whose every response is checked against its schema.
import { setupControlPlane, type ControlPlane } from '../../runtime/api/index.ts';
import { setupInference } from '../../runtime/inference/index.ts';
import type { InferenceSettings } from '../../runtime/inference/settings.ts';
import { silentLogger, type GatewayLogger } from '../../runtime/core/log.ts';
import { type RunningGateway, startGateway } from '../../runtime/server/start.ts';
import { type BackendName, createLocation, type StoreLocation } from '../store/backends.ts';
import { checkResponse } from './contract.ts';

export const ADMIN_KEY = 'gw_admin-test-key-0123456789abcdefghijklmnop';

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  /** The schema file the body was checked against (null: the provider's body). */
  schema: string | null;
}

export interface ApiClient {
  call<T = any>(method: string, path: string, options?: { body?: unknown; rawBody?: string; key?: string | null; headers?: Record<string, string> }): Promise<ApiResponse<T>>;
}

export interface ApiGateway extends ApiClient {
  gateway: RunningGateway;
  controlPlane: ControlPlane;
  location: StoreLocation;
  url: string;
  close(): Promise<void>;
}

export interface StartApiOptions {
  configsDir?: string | null;
  guardrailsDir?: string | null;
  settings?: Partial<InferenceSettings>;
  logger?: GatewayLogger;
  /** Reuse a location (a second process's worth of gateway on the same store). */
  location?: StoreLocation;
}

export async function startApiGateway(backend: BackendName, options: StartApiOptions = {}): Promise<ApiGateway> {
  const location = options.location ?? (await createLocation(backend));
  let controlPlane!: ControlPlane;
  const settings: InferenceSettings = { retryBaseMs: 1, retryMaxMs: 50, inlineConfigCacheSize: 100, ...options.settings };
  const gateway = await startGateway({
    port: 0,
    dataDir: location.dataDir,
    databaseUrl: location.databaseUrl,
    configsDir: options.configsDir ?? null,
    guardrailsDir: options.guardrailsDir ?? null,
    seedApiKey: ADMIN_KEY,
    logger: options.logger ?? silentLogger,
   
    storePollMs: 50,
    setup: async (setup) => {
      const resolver = await setupInference({ ...setup, configsDir: null }, { settings });
      controlPlane = await setupControlPlane(setup, resolver);
    },
  });
  const client = apiClient(gateway.url);
  return {
    ...client,
    gateway,
    controlPlane,
    location,
    url: gateway.url,
    async close() {
      await gateway.close();
      if (options.location === undefined) await location.remove();
    },
  };
}

/** `defaultKey` goes in x-gateway-api-key unless a call names another key (or null for none). */
export function apiClient(baseUrl: string, defaultKey: string = ADMIN_KEY): ApiClient {
  return {
    async call(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      const key = options.key === undefined ? defaultKey : options.key;
      if (key !== null) headers['x-gateway-api-key'] = key;
      let body: string | undefined = options.rawBody;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['content-type'] = 'application/json';
      }
      const res = await fetch(`${baseUrl}${path}`, { method, headers, body });
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new Error(`${method} ${path} → ${res.status}: not JSON: ${text.slice(0, 500)}`);
      }
      const schema = checkResponse(method, path, res.status, parsed);
      return { status: res.status, headers: res.headers, body: parsed as any, schema };
    },
  };
}
