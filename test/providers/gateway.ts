// A real gateway (HTTP server, store, routers, providers) for provider tests, with helpers that
// send chat requests through an inline config, by the vendor SDK or raw.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { setupInference } from '../../runtime/inference/index.ts';
import { silentLogger } from '../../runtime/core/log.ts';
import { startGateway, type RunningGateway } from '../../runtime/server/start.ts';

export const GATEWAY_KEY = 'gw-providers-key';

export interface ProviderGateway {
  gateway: RunningGateway;
  /** The vendor SDK through the gateway; `config` goes in x-gateway-config as inline JSON. */
  client(config: unknown, headers?: Record<string, string>): OpenAI;
  /** A raw POST with the gateway key and the inline config. */
  post(path: string, config: unknown, body: unknown, headers?: Record<string, string>, signal?: AbortSignal): Promise<Response>;
  close(): Promise<void>;
}

export async function startProviderGateway(): Promise<ProviderGateway> {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-providers-'));
  const gateway = await startGateway({
    port: 0,
    dataDir: join(dir, 'data'),
    seedApiKey: GATEWAY_KEY,
    logger: silentLogger,
    setup: async (setup) => {
      await setupInference(setup, { settings: { retryBaseMs: 1, retryMaxMs: 20, inlineConfigCacheSize: 200 } });
    },
  });
  const configHeader = (config: unknown) => (typeof config === 'string' ? config : JSON.stringify(config));
  return {
    gateway,
    client: (config, headers = {}) =>
      new OpenAI({
        baseURL: `${gateway.url}/v1`,
        apiKey: 'unused-provider-key',
        maxRetries: 0,
        defaultHeaders: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': configHeader(config), ...headers },
      }),
    post: (path, config, body, headers = {}, signal) =>
      fetch(`${gateway.url}${path}`, {
        method: 'POST',
        signal,
        headers: { 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-config': configHeader(config), 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      }),
    async close() {
      await gateway.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Splits an SSE body into its frames' `data` values (and `event` names). */
export function sseFrames(text: string): { event: string | null; data: string }[] {
  return text.split('\n\n').filter((f) => f.trim() !== '').map((frame) => {
    let event: string | null = null;
    const data: string[] = [];
    for (const line of frame.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
    }
    return { event, data: data.join('\n') };
  });
}
