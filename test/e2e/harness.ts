// Starts the real gateway (HTTP server, compiled routers, SQLite store) in front of vendor mocks,
// with saved configs written to a temp folder, and hands tests an official-SDK client.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { setupInference } from '../../runtime/inference/index.ts';
import { setupJobs } from '../../runtime/api/jobs.ts';
import type { InferenceSettings } from '../../runtime/inference/settings.ts';
import { startGateway, type RunningGateway } from '../../runtime/server/start.ts';
import { silentLogger } from '../../runtime/core/log.ts';
import type { RequestRecord } from '../../runtime/core/request-record.ts';
import { startVendorMock, VENDOR_MOCK_KEY, type VendorMock } from '../mocks/vendor/index.ts';

export const GATEWAY_KEY = 'gw-e2e-key';
export { VENDOR_MOCK_KEY };

export interface E2E {
  gateway: RunningGateway;
  mocks: VendorMock[];
  /** The data directory (the SQLite store lives there). */
  dataDir: string;
  /** Every finished request record, in the order the responses finished. */
  records: RequestRecord[];
  /** Waits until a record with this trace id is finished (records are written once the response closed). */
  recordOf(traceId: string): Promise<RequestRecord>;
  /** Official vendor SDK pointed at the gateway; extra headers per client. */
  client(headers?: Record<string, string>): OpenAI;
  /** Raw fetch against the gateway with the API key header set. */
  fetch(path: string, init?: RequestInit & { headers?: Record<string, string> }): Promise<Response>;
  close(): Promise<void>;
}

/**
 * `env`: server settings read from the environment at start (GATEWAY_UPSTREAM_*, …), set while the
 * gateway starts and restored after; `configs` may use `{{mock0}}` … for the mocks' base URLs.
 */
/** `jobs`: the files, batches, fine-tuning and Responses APIs too (runtime/api/jobs.ts), as `gateway serve` has them. */
export async function startE2E(options: { mocks?: number; configs?: Record<string, unknown>; guardrails?: Record<string, unknown>; settings?: Partial<InferenceSettings>; env?: Record<string, string>; jobs?: boolean } = {}): Promise<E2E> {
  const mocks: VendorMock[] = [];
  for (let i = 0; i < (options.mocks ?? 2); i++) mocks.push(await startVendorMock({ label: `mock${i}` }));
  const dir = await mkdtemp(join(tmpdir(), 'gateway-e2e-'));
  const configsDir = join(dir, 'configs');
  await mkdir(configsDir);
  for (const [id, config] of Object.entries(options.configs ?? {})) {
    let text = JSON.stringify(config, null, 2);
    mocks.forEach((mock, i) => (text = text.replaceAll(`{{mock${i}}}`, mock.baseURL)));
    await writeFile(join(configsDir, `${id}.json`), text);
  }
  // File guardrails, in the guardrails folder beside the configs (the default serve reads).
  if (options.guardrails !== undefined) {
    await mkdir(join(dir, 'guardrails'));
    for (const [id, guardrail] of Object.entries(options.guardrails)) await writeFile(join(dir, 'guardrails', `${id}.json`), JSON.stringify(guardrail, null, 2));
  }
  const settings: InferenceSettings = { retryBaseMs: 1, retryMaxMs: 50, inlineConfigCacheSize: 100, ...options.settings };
  const records: RequestRecord[] = [];
  const saved = Object.fromEntries(Object.keys(options.env ?? {}).map((name) => [name, process.env[name]]));
  Object.assign(process.env, options.env);
  const gateway = await startGateway({
    port: 0,
    dataDir: join(dir, 'data'),
    configsDir,
    seedApiKey: GATEWAY_KEY,
    logger: silentLogger,
    setup: async (setup) => {
      setup.onRecord((record) => records.push(record));
      const resolver = await setupInference(setup, { settings });
      if (options.jobs === true) await setupJobs(setup, resolver);
    },
  }).finally(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });
  return {
    gateway,
    mocks,
    dataDir: join(dir, 'data'),
    records,
    async recordOf(traceId) {
      for (let waited = 0; waited < 2000; waited += 5) {
        const found = records.find((r) => r.traceId === traceId);
        if (found !== undefined) return found;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      throw new Error(`no record for trace id ${traceId}`);
    },
    client: (headers = {}) =>
      new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: VENDOR_MOCK_KEY, maxRetries: 0, defaultHeaders: { 'x-gateway-api-key': GATEWAY_KEY, ...headers } }),
    fetch: (path, init = {}) => fetch(`${gateway.url}${path}`, { ...init, headers: { 'x-gateway-api-key': GATEWAY_KEY, ...init.headers } }),
    async close() {
      await gateway.close();
      await Promise.all(mocks.map((m) => m.close()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export function target(mock: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { provider: 'vendor', api_key: VENDOR_MOCK_KEY, custom_host: `{{mock${mock}}}`, ...extra };
}

/** The gateway error object of a response (ARCHITECTURE §5 body), typed for assertions. */
export async function errorOf(res: Response): Promise<{ code: string; message: string; type: string; param: string | null; errors?: unknown[] }> {
  const body = (await res.json()) as { error: { code: string; message: string; type: string; param: string | null; errors?: unknown[] } };
  return body.error;
}
