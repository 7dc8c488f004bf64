// The HTTP core every provider mock shares: records each request, lets the family check its
// credential, applies the scripted step (delay, hang-up, canned body, error status in the family's
// own error shape), then hands the request to the family's routes.
import { createServer, ServerResponse } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo, Socket } from 'node:net';
import type { MockContext } from '../vendor/context.ts';
import { sleep } from '../vendor/context.ts';
import { ScriptQueue } from '../vendor/script.ts';
import type { RecordedRequest, RequestOutcome, VendorErrorFields, VendorMock } from '../vendor/types.ts';

/** What any provider mock offers a test: the vendor mock's interface. */
export type MockServer = VendorMock;

export interface MockFamily {
  label: string;
  models: readonly string[];
  port?: number;
  /** True to go on; otherwise the family has answered (401/403) itself. */
  authenticate(ctx: MockContext): Promise<boolean> | boolean;
  /** Answers a scripted error status in the family's own error shape. */
  sendError(ctx: MockContext, status: number, fields?: Partial<VendorErrorFields>): Promise<void>;
  /** Answers a scripted canned body. */
  sendBody(ctx: MockContext, status: number, contentType: string, body: Buffer): Promise<void>;
  route(ctx: MockContext): Promise<void>;
}

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

export async function startMockServer(family: MockFamily): Promise<MockServer> {
  const { label, models } = family;
  const requests: RecordedRequest[] = [];
  const script = new ScriptQueue();
  let ordinal = 0;

  /** `upgraded`: a WebSocket handshake, whose socket node:http handed over (it has no body to read). */
  async function handle(req: IncomingMessage, res: ServerResponse, upgraded = false): Promise<void> {
    const startedAt = Date.now();
    const bodyBytes = upgraded ? Buffer.alloc(0) : await readBody(req);
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

    if (!(await family.authenticate(ctx))) return;

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
        await family.sendBody(ctx, step.status ?? 200, step.contentType ?? 'application/json', Buffer.from(step.body));
        return;
      }
      if (step.status !== undefined && step.status >= 400) {
        await family.sendError(ctx, step.status, step.error);
        return;
      }
    }
    await family.route(ctx);
  }

  // A mock bug must show up as a failed request, never as a crashed test run.
  const fail = (res: ServerResponse) => (): void => {
    if (!res.headersSent) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `${label} mock failed`, type: 'server_error', param: null, code: null } }));
    } else {
      res.destroy();
    }
  };
  const server = createServer({ shouldUpgradeCallback: (req) => req.method === 'GET' && /websocket/i.test(req.headers.upgrade ?? '') }, (req, res) => {
    handle(req, res).catch(fail(res));
  });
  // A WebSocket handshake takes the same path, with a response on its socket: an error answer ends
  // the connection, and a family's WebSocket endpoint (the vendor's realtime API) writes its 101 itself.
  /** WebSocket sockets, which node:http's closeAllConnections does not count as its own. */
  const upgraded = new Set<Socket>();
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    socket.on('error', () => undefined);
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket);
    res.once('finish', () => socket.end());
    if (head.length > 0) socket.unshift(head);
    upgraded.add(socket);
    socket.once('close', () => upgraded.delete(socket));
    handle(req, res, true).catch(fail(res));
  });
  server.listen(family.port ?? 0, '127.0.0.1');
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
      for (const socket of upgraded) socket.destroy();
      await closed;
    },
  };
}

/** `Bearer <token>` → the token; null for anything else. */
export function bearerKey(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match === null ? null : match[1];
}

/** A key as error messages show it: never whole. */
export function maskKey(key: string): string {
  return key.length <= 8 ? '***' : `${key.slice(0, 3)}***${key.slice(-4)}`;
}
