// Real routing (ConfigResolver, compiled routers, the transport and the vendor adapter) over a fake
// network: the sender answers chat completions in-process after a delay the test chooses, and
// honours the abort signal like the real upstream layer. For runner tests that need many requests.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { ConfigResolver } from '../../runtime/inference/config-resolver.ts';
import type { InferenceSettings } from '../../runtime/inference/settings.ts';
import { InferenceTransport } from '../../runtime/inference/transport.ts';
import { defaultProviders } from '../../runtime/providers/registry.ts';
import { CircuitBreakers, MemoryBreakerStore } from '../../runtime/router/breaker.ts';
import type { UpstreamRequest, UpstreamResponse } from '../../runtime/upstream/types.ts';
import { RouteSealer } from '../../runtime/jobs/route-headers.ts';

export interface FakeReply {
  status: number;
  delayMs: number;
}

export interface FakeUpstream {
  resolver: ConfigResolver;
  /** Every request body that reached the "provider" (JSON), in arrival order. */
  received: Array<Record<string, unknown>>;
}

/** `reply` decides per request body; by default 200 at once. */
export function fakeUpstream(reply: (body: Record<string, unknown>) => FakeReply = () => ({ status: 200, delayMs: 0 })): FakeUpstream {
  const received: Array<Record<string, unknown>> = [];
  const sender = (req: UpstreamRequest): Promise<UpstreamResponse> => {
    const body = JSON.parse(req.body?.toString('utf8') ?? '{}') as Record<string, unknown>;
    received.push(body);
    const { status, delayMs } = reply(body);
    return new Promise((resolve, reject) => {
      if (req.signal.aborted) return reject(req.signal.reason);
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(req.signal.reason);
      };
      const timer = setTimeout(() => {
        req.signal.removeEventListener('abort', onAbort);
        const answer = status < 300
          ? { id: `chatcmpl-${randomBytes(4).toString('hex')}`, object: 'chat.completion', model: body.model, choices: [{ index: 0, message: { role: 'assistant', content: `echo ${JSON.stringify(body.messages)}` }, finish_reason: 'stop' }] }
          : { error: { message: `fake ${status}`, type: 'server_error', param: null, code: null } };
        resolve(jsonResponse(status, answer));
      }, delayMs);
      req.signal.addEventListener('abort', onAbort, { once: true });
    });
  };
  const settings: InferenceSettings = { retryBaseMs: 1, retryMaxMs: 5, inlineConfigCacheSize: 10 };
  const transport = new InferenceTransport(defaultProviders(), sender);
  return { resolver: new ConfigResolver({ transport, breakers: new CircuitBreakers(new MemoryBreakerStore(), Date.now), settings }), received };
}

function jsonResponse(status: number, value: unknown): UpstreamResponse {
  const bytes = Buffer.from(JSON.stringify(value));
  return {
    status,
    headers: { 'content-type': 'application/json', 'x-request-id': `req_${randomBytes(4).toString('hex')}` },
    async forwardTo(res: ServerResponse) {
      res.end(bytes);
    },
    readAll: async () => bytes,
    discard() {},
  };
}

export function testSealer(): RouteSealer {
  const key = randomBytes(32);
  return new RouteSealer({ key, id: key.toString('hex').slice(0, 8), source: 'env' });
}
