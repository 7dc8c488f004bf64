// The vendor mock's HTTP server: records every request, checks the bearer key, applies the
// scripted step, then hands the request to its endpoint.
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { MockContext } from './context.ts';
import { sleep } from './context.ts';
import { sendBody, sendVendorError } from './respond.ts';
import { route } from './routes.ts';
import { ScriptQueue } from './script.ts';
import type { RecordedRequest, RequestOutcome, VendorMock, VendorMockOptions } from './types.ts';

export const VENDOR_MOCK_KEY = 'sk-vendor-mock-key';

export const DEFAULT_MODELS: readonly string[] = [
  'vendor-chat-1',
  'vendor-chat-mini',
  'vendor-instruct-1',
  'vendor-embed-1',
  'vendor-tts-1',
  'vendor-stt-1',
  'vendor-image-1',
];

/** Resolves with the whole body, or null when the client went away before sending all of it. */
function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', () => resolve(null));
    req.on('close', () => {
      if (!req.complete) resolve(null);
    });
  });
}

function parseJson(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

function bearerKey(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match === null ? null : match[1];
}

function maskKey(key: string): string {
  return key.length <= 8 ? '***' : `${key.slice(0, 3)}***${key.slice(-4)}`;
}

export async function startVendorMock(options: VendorMockOptions = {}): Promise<VendorMock> {
  const label = options.label ?? 'vendor-mock';
  const apiKeys = options.apiKeys ?? [VENDOR_MOCK_KEY];
  const models = options.models ?? DEFAULT_MODELS;
  const requests: RecordedRequest[] = [];
  const script = new ScriptQueue();
  let ordinal = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const startedAt = Date.now();
    const bodyBytes = await readBody(req);
    if (bodyBytes === null) return;
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    let purposelyDestroyed = false;
    let settle!: (outcome: RequestOutcome) => void;
    const record: RecordedRequest = {
      method: req.method ?? 'GET',
      path: q < 0 ? url : url.slice(0, q),
      query: q < 0 ? '' : url.slice(q + 1),
      headers: req.headers,
      rawHeaders: req.rawHeaders,
      body: bodyBytes.toString('utf8'),
      bodyBytes,
      json: parseJson(bodyBytes),
      remotePort: req.socket.remotePort ?? 0,
      instance: label,
      status: 0,
      responseHeaders: {},
      responseBytes: 0,
      drainWaits: 0,
      outcome: new Promise<RequestOutcome>((resolve) => (settle = resolve)),
    };
    requests.push(record);
    ordinal += 1;
    const onClose = (): void => settle(purposelyDestroyed ? 'mock-destroyed' : res.writableFinished ? 'finished' : 'client-closed');
    if (res.destroyed) onClose();
    else res.on('close', onClose);

    const ctx: MockContext = {
      req,
      res,
      record,
      step: null,
      label,
      ordinal,
      startedAt,
      models,
      destroyOnPurpose() {
        purposelyDestroyed = true;
        const socket = req.socket;
        if (!res.headersSent) {
          socket.destroy();
          return;
        }
        // Let what was written reach the client first, so the break lands mid-body.
        socket.end();
        setTimeout(() => socket.destroy(), 50).unref();
      },
    };

    const key = bearerKey(req.headers.authorization);
    if (key === null) {
      await sendVendorError(ctx, 401, {
        message:
          "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
      });
      return;
    }
    if (apiKeys !== 'any' && !apiKeys.includes(key)) {
      await sendVendorError(ctx, 401, { message: `Incorrect API key provided: ${maskKey(key)}.` });
      return;
    }

    const step = script.take(record.method, record.path);
    ctx.step = step;
    if (step !== null) {
      if (step.delayMs !== undefined) await sleep(step.delayMs);
      if (res.destroyed) return;
      if (step.hangUp === true) {
        ctx.destroyOnPurpose();
        return;
      }
      if (step.body !== undefined) {
        await sendBody(ctx, step.status ?? 200, step.contentType ?? 'application/json', Buffer.from(step.body));
        return;
      }
      if (step.status !== undefined && step.status >= 400) {
        await sendVendorError(ctx, step.status, step.error);
        return;
      }
    }
    await route(ctx);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      // A mock bug must show up as a failed request, never as a crashed test run.
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'vendor mock failed', type: 'server_error', param: null, code: null } }));
      } else {
        res.destroy();
      }
    });
  });
  server.listen(options.port ?? 0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    baseURL: `${url}/v1`,
    port,
    label,
    requests,
    script: (...steps) => script.add(steps),
    reset() {
      requests.length = 0;
      script.clear();
    },
    async close() {
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections();
      await closed;
    },
  };
}
