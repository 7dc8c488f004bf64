// A provider that misbehaves at the byte level, for the gateway's defences: it reads each request
// (headers and a content-length body) and answers with exactly the bytes a test scripts: an invalid
// status, a body cut short, a stall. Loopback only.
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * What to do with one request: raw bytes to write (then close, unless `keepOpen`), or stall forever.
 * `later`: more bytes written that long after the first ones (a body that arrives in two pieces).
 */
export type RawAnswer = { bytes: string | Buffer; keepOpen?: boolean; later?: { afterMs: number; bytes: string | Buffer } } | { stall: true };

export interface RawProvider {
  /** Base URL with `/v1`, for custom_host. */
  baseURL: string;
  requests: number;
  close(): Promise<void>;
}

export async function startRawProvider(answer: (index: number) => RawAnswer): Promise<RawProvider> {
  const sockets = new Set<Socket>();
  const state = { requests: 0 };
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf('\r\n\r\n');
      if (end === -1) return;
      const head = buffered.subarray(0, end).toString('latin1');
      const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
      if (buffered.length < end + 4 + length) return;
      buffered = buffered.subarray(end + 4 + length);
      const reply = answer(state.requests++);
      if ('stall' in reply) return;
      socket.write(reply.bytes);
      const finish = (): void => {
        if (reply.keepOpen !== true) socket.end();
      };
      if (reply.later === undefined) finish();
      else {
        const { afterMs, bytes } = reply.later;
        setTimeout(() => {
          if (!socket.destroyed) socket.write(bytes);
          finish();
        }, afterMs);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return state.requests;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An HTTP/1.1 answer with a JSON body; `declared` overrides content-length (to cut the body short). */
export function httpAnswer(status: number, body: string, declared?: number): string {
  return `HTTP/1.1 ${status} X\r\ncontent-type: application/json\r\ncontent-length: ${declared ?? Buffer.byteLength(body)}\r\n\r\n${body}`;
}
