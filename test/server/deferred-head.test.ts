// GatewayResponse.deferHead: a head chosen for an answer whose body is still to come is written with
// the first byte (or the end), and an error answered before then replaces it outright.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayResponse } from '../../runtime/server/gateway-response.ts';
import { sendGatewayError } from '../../runtime/server/respond.ts';
import { GatewayError } from '../../runtime/core/errors.ts';

let server: Server | null = null;

afterEach(async () => {
  await new Promise((resolve) => server?.close(resolve));
  server = null;
});

async function serve(handler: (res: GatewayResponse) => void): Promise<Response> {
  server = createServer({ ServerResponse: GatewayResponse }, (req, res) => {
    req.resume();
    req.on('end', () => handler(res as GatewayResponse));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { method: 'POST', body: 'x' });
}

describe('a deferred head', () => {
  it('is not sent until the first byte, then written with it', async () => {
    const res = await serve((out) => {
      out.deferHead(201, { 'content-type': 'text/plain', 'x-chosen': 'yes' });
      expect(out.headersSent).toBe(false);
      out.write('first ');
      expect(out.headersSent).toBe(true);
      out.end('last');
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-chosen')).toBe('yes');
    expect(await res.text()).toBe('first last');
  });

  it('is written by an end with no body', async () => {
    const res = await serve((out) => {
      out.deferHead(204, {});
      out.end();
    });
    expect(res.status).toBe(204);
  });

  it('is dropped for an error when no byte followed, and an error sent outright replaces it', async () => {
    const dropped = await serve((out) => {
      out.deferHead(200, { 'content-type': 'audio/mpeg' });
      expect(out.dropDeferredHead()).toBe(true);
      expect(out.dropDeferredHead()).toBe(false);
      sendGatewayError(out, new GatewayError('provider_invalid_response', 'broke off'));
    });
    expect(dropped.status).toBe(502);
    expect(((await dropped.json()) as { error: { code: string } }).error.code).toBe('provider_invalid_response');
    await new Promise((resolve) => server?.close(resolve));
    const replaced = await serve((out) => {
      out.deferHead(200, { 'content-type': 'audio/mpeg' });
      sendGatewayError(out, new GatewayError('request_timeout', 'too slow'));
    });
    expect(replaced.status).toBe(408);
    expect(replaced.headers.get('content-type')).toContain('application/json');
  });
});
