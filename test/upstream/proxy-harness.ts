// The smallest gateway that uses the upstream layer the way the server will: one node:http server
// that sends every request to one origin and forwards the answer. Tests drive the real send()
// through it and read back what each exchange ended with.
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { send } from '../../runtime/upstream/send.ts';
import type { UpstreamRequest } from '../../runtime/upstream/types.ts';

export type ExchangeResult =
  | { kind: 'forwarded'; status: number }
  | { kind: 'send-failed'; error: unknown }
  | { kind: 'forward-failed'; status: number; error: unknown };

export interface Proxy {
  url: string;
  /** One entry per client request, in completion order. */
  results: ExchangeResult[];
  /** Resolves with the next result to be recorded. */
  nextResult(): Promise<ExchangeResult>;
  close(): Promise<void>;
}

const METHODS = new Set(['GET', 'POST', 'PUT', 'DELETE', 'PATCH']);

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export interface ProxyOptions {
  /**
   * Abort the upstream signal when the client response closes early, as the real server does
   * (default true). Off, only forwardTo's own client watch notices the client leaving.
   */
  abortOnClientClose?: boolean;
}

export async function startProxy(origin: string, options: ProxyOptions = {}): Promise<Proxy> {
  const abortOnClientClose = options.abortOnClientClose ?? true;
  const results: ExchangeResult[] = [];
  let waiters: ((r: ExchangeResult) => void)[] = [];
  const record = (result: ExchangeResult): void => {
    results.push(result);
    const ready = waiters;
    waiters = [];
    for (const waiter of ready) waiter(result);
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const clientGone = new AbortController();
    res.on('close', () => {
      if (abortOnClientClose && !res.writableFinished) clientGone.abort(new Error('client went away'));
    });
    const body = await readBody(req);
    const method = req.method ?? 'GET';
    const upstream: UpstreamRequest = {
      origin,
      path: req.url ?? '/',
      method: (METHODS.has(method) ? method : 'GET') as UpstreamRequest['method'],
      headers: flatHeaders(req),
      body: body.length === 0 ? null : body,
      signal: clientGone.signal,
    };
    let response;
    try {
      response = await send(upstream);
    } catch (error) {
      record({ kind: 'send-failed', error });
      if (!res.destroyed) {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'provider_unreachable' } }));
      }
      return;
    }
    res.writeHead(response.status, response.headers);
    try {
      await response.forwardTo(res);
      record({ kind: 'forwarded', status: response.status });
    } catch (error) {
      record({ kind: 'forward-failed', status: response.status, error });
      res.destroy();
    }
  }

  const server = createServer((req, res) => {
    // Only the client aborting its own upload lands here; the exchange itself records its errors.
    handle(req, res).catch(() => res.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    results,
    nextResult: () => new Promise((resolve) => waiters.push(resolve)),
    async close() {
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await closed;
    },
  };
}
