// Calling an adapter directly, as the transport does, for unit and property tests.
import { GatewayError } from '../../runtime/core/errors.ts';
import type { EndpointKind, PreparedCall, ProviderAdapter, ProviderCall } from '../../runtime/providers/types.ts';

/** One call of each endpoint kind, for tests that run an adapter over every endpoint it has. */
export const CALL_OF_ENDPOINT: Readonly<Record<EndpointKind, Partial<ProviderCall>>> = {
  chat: { path: '/chat/completions', body: { model: 'm', messages: [{ role: 'user', content: 'hi' }] } },
  completions: { endpoint: 'completions', path: '/completions', body: { model: 'm', prompt: 'hi' } },
  embeddings: { endpoint: 'embeddings', path: '/embeddings', body: { model: 'm', input: 'hi' } },
  audio: { endpoint: 'audio', path: '/audio/speech', body: { model: 'm', input: 'hi', voice: 'alloy' } },
  images: { endpoint: 'images', path: '/images/generations', body: { model: 'm', prompt: 'a cat' } },
  models: { endpoint: 'models', method: 'GET', path: '/models' },
  passthrough: { endpoint: 'passthrough', path: '/vector_stores', body: { name: 'v' } },
};

export function providerCall(fields: Partial<ProviderCall> & { endpoint?: EndpointKind }): ProviderCall {
  const body = fields.body;
  return {
    endpoint: 'chat',
    method: 'POST',
    path: '/chat/completions',
    body,
    rawBody: body === undefined ? null : Buffer.from(JSON.stringify(body)),
    apiKey: 'test-key',
    options: {},
    customHost: null,
    strictVendorCompliance: false,
    headers: {},
    signal: new AbortController().signal,
    keptThinking: null,
    keepThinking: null,
    ...fields,
  };
}

export async function prepare(adapter: ProviderAdapter, fields: Partial<ProviderCall>): Promise<PreparedCall> {
  return adapter.prepare(providerCall(fields));
}

export function sentJson(prepared: PreparedCall): Record<string, any> {
  return JSON.parse(prepared.body!.toString('utf8')) as Record<string, any>;
}

/** The GatewayError `run` throws, or null (any other error is rethrown). */
export function thrownBy(run: () => unknown): GatewayError | null {
  try {
    run();
    return null;
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
}

/** The GatewayError an adapter throws, or null. */
export async function refusal(adapter: ProviderAdapter, fields: Partial<ProviderCall>): Promise<GatewayError | null> {
  try {
    await adapter.prepare(providerCall(fields));
    return null;
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
}
