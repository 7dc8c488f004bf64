// A real gateway wired as `gateway serve` wires it (data plane, control plane, virtual keys, jobs) on
// SQLite or PostgreSQL, in front of vendor mocks (and a messages-style mock), with the official SDK
// as client and a raw client whose every answer is checked against its schema (test/api/contract.ts).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { setupControlPlane } from '../../runtime/api/index.ts';
import { setupVirtualKeys } from '../../runtime/api/virtual-keys/index.ts';
import { setupInference } from '../../runtime/inference/index.ts';
import { setupJobs, type Jobs } from '../../runtime/api/jobs.ts';
import { ModelCatalog } from '../../runtime/telemetry/model-catalog.ts';
import { DEFAULT_JOB_SETTINGS, type JobSettings } from '../../runtime/jobs/settings.ts';
import type { GatewayLogger, LogFields } from '../../runtime/core/log.ts';
import { type RunningGateway, startGateway } from '../../runtime/server/start.ts';
import { checkResponse } from '../api/contract.ts';
import type { RequestRecord } from '../../runtime/core/request-record.ts';
import { MESSAGES_MOCK_KEY, startMessagesMock } from '../mocks/messages/index.ts';
import type { MockServer } from '../mocks/http/mock-server.ts';
import { startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';
import { type BackendName, createLocation, type StoreLocation } from '../store/backends.ts';

export const GATEWAY_KEY = 'gw_jobs-test-admin-key-0123456789abcdefghij';
export { MESSAGES_MOCK_KEY, VENDOR_MOCK_KEY };

/** Small windows, so truncation is testable with short inputs. */
export const TEST_CATALOG = new ModelCatalog({
  models: [
    { id: 'vendor-chat-1', context_window: 100_000, pricing: { input_per_million: 1, output_per_million: 2 } },
    { id: 'vendor-chat-mini', context_window: 120, max_output_tokens: 64, pricing: { input_per_million: 0.1, output_per_million: 0.2 } },
    { id: 'claude-mock-1', context_window: 100_000, pricing: { input_per_million: 3, output_per_million: 15 } },
  ],
});

export interface LogLine {
  level: string;
  event: string;
  fields: LogFields;
}

export interface RawAnswer<T = any> {
  status: number;
  headers: Headers;
  body: T;
  /** The schema the body was checked against; null for the provider's own bytes. */
  schema: string | null;
}

export interface JobsGateway {
  gateway: RunningGateway;
  jobs: Jobs;
  vendor: VendorMock[];
  messages: MockServer;
  location: StoreLocation;
  logs: LogLine[];
  /** Every finished request record (live requests and batch lines). */
  records: RequestRecord[];
  url: string;
  client(headers?: Record<string, string>, apiKey?: string): OpenAI;
  /** Raw call; JSON answers are checked against their schema (contract.ts). */
  call<T = any>(method: string, path: string, options?: { body?: unknown; headers?: Record<string, string>; raw?: RequestInit['body'] }): Promise<RawAnswer<T>>;
  close(): Promise<void>;
}

export interface StartJobsOptions {
  vendorMocks?: number;
  settings?: Partial<JobSettings>;
  configs?: Record<string, unknown>;
}

export async function startJobsGateway(backend: BackendName, options: StartJobsOptions = {}): Promise<JobsGateway> {
  const location = await createLocation(backend);
  const vendor: VendorMock[] = [];
  for (let i = 0; i < (options.vendorMocks ?? 2); i++) vendor.push(await startVendorMock({ label: `mock${i}` }));
  const messages = await startMessagesMock({ label: 'messages' });
  const dir = await mkdtemp(join(tmpdir(), 'gateway-jobs-'));
  const configsDir = join(dir, 'configs');
  await mkdir(configsDir);
  for (const [id, config] of Object.entries(options.configs ?? {})) {
    let text = JSON.stringify(config, null, 2);
    vendor.forEach((mock, i) => (text = text.replaceAll(`{{mock${i}}}`, mock.baseURL)));
    text = text.replaceAll('{{messages}}', messages.baseURL);
    await writeFile(join(configsDir, `${id}.json`), text);
  }
  const logs: LogLine[] = [];
  const logger: GatewayLogger = {
    info: (event, fields = {}) => logs.push({ level: 'info', event, fields }),
    warn: (event, fields = {}) => logs.push({ level: 'warn', event, fields }),
    error: (event, fields = {}) => logs.push({ level: 'error', event, fields }),
  };
  let jobs!: Jobs;
  const records: RequestRecord[] = [];
  const settings: JobSettings = { ...DEFAULT_JOB_SETTINGS, batchPollMs: 50, batchLeaseMs: 2000, ...options.settings };
  const gateway = await startGateway({
    port: 0,
    dataDir: location.dataDir,
    databaseUrl: location.databaseUrl,
    configsDir,
    seedApiKey: GATEWAY_KEY,
    logger,
   
    storePollMs: 50,
    setup: async (setup) => {
      setup.onRecord((record) => records.push(record));
      const resolver = await setupInference({ ...setup, configsDir: null }, { settings: { retryBaseMs: 1, retryMaxMs: 20, inlineConfigCacheSize: 100 } });
      await setupControlPlane(setup, resolver);
      const virtualKeys = await setupVirtualKeys(setup, resolver, { env: { GATEWAY_MASTER_KEY: Buffer.alloc(32, 7).toString('base64') } });
      jobs = await setupJobs(setup, resolver, { settings, catalog: TEST_CATALOG, credentials: () => virtualKeys.ring, env: { GATEWAY_MASTER_KEY: Buffer.alloc(32, 7).toString('base64') } });
    },
  });
  return {
    gateway,
    jobs,
    vendor,
    messages,
    location,
    logs,
    records,
    url: gateway.url,
    client: (headers = {}, apiKey = VENDOR_MOCK_KEY) =>
      new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey, maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': GATEWAY_KEY, ...headers }, fetch: checkedFetch }),
    async call(method, path, callOptions = {}) {
      const headers: Record<string, string> = { 'x-gateway-api-key': GATEWAY_KEY, ...callOptions.headers };
      let body: RequestInit['body'] | undefined = callOptions.raw;
      if (callOptions.body !== undefined) {
        body = JSON.stringify(callOptions.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await fetch(`${gateway.url}${path}`, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = text;
      const isJson = (res.headers.get('content-type') ?? '').includes('application/json');
      if (isJson) parsed = JSON.parse(text);
      const schema = isJson ? checkResponse(method, path, res.status, parsed) : null;
      return { status: res.status, headers: res.headers, body: parsed as any, schema };
    },
    async close() {
      await gateway.close();
      await Promise.all([...vendor.map((m) => m.close()), messages.close()]);
      await location.remove();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The SDK's fetch, with every JSON answer checked against the schema of its route and status. */
async function checkedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const res = await fetch(input, init);
  if ((res.headers.get('content-type') ?? '').includes('application/json')) {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    checkResponse(init?.method ?? 'GET', url.pathname, res.status, await res.clone().json());
  }
  return res;
}

/** Provider headers for a vendor mock. */
export function vendorHeaders(mock: VendorMock): Record<string, string> {
  return { 'x-gateway-provider': 'openai', 'x-gateway-custom-host': mock.baseURL };
}

/** A vendor-shaped provider without files, batches, fine-tuning or Responses APIs, served by a vendor mock. */
export function plainHeaders(mock: VendorMock): Record<string, string> {
  return { 'x-gateway-provider': 'ollama', 'x-gateway-custom-host': mock.baseURL };
}

export function jsonl(lines: unknown[]): string {
  return lines.map((line) => JSON.stringify(line)).join('\n') + '\n';
}

export function chatLine(customId: string, text: string, model = 'vendor-chat-1'): Record<string, unknown> {
  return { custom_id: customId, method: 'POST', url: '/v1/chat/completions', body: { model, messages: [{ role: 'user', content: text }] } };
}

export async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
