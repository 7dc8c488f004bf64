// DNS rebinding: a name that passed the custom-host check may answer with a metadata address a moment
// later. Connections resolve through the policy's connectLookup, so the socket itself refuses it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostPolicy, type ConnectResolver } from '../../runtime/providers/host-policy.ts';

let server: Server;
let port: number;

beforeAll(async () => {
  server = createServer((_req, res) => res.end('reached'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A resolver whose answers are scripted per call, like a rebinding DNS server. */
function scripted(...answers: string[][]): ConnectResolver {
  let call = 0;
  return (_hostname, _options, callback) => {
    const addresses = answers[Math.min(call++, answers.length - 1)];
    queueMicrotask(() => callback(null, addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))));
  };
}

async function get(policy: HostPolicy): Promise<string> {
  const pool = new Pool(`http://rebind.test:${port}`, { connect: { lookup: policy.connectLookup } });
  try {
    const { body } = await pool.request({ path: '/', method: 'GET' });
    return await body.text();
  } finally {
    await pool.destroy();
  }
}

describe('connectLookup', () => {
  it('connects to an allowed address', async () => {
    const policy = new HostPolicy([], { connectResolve: scripted(['127.0.0.1']) });
    expect(await get(policy)).toBe('reached');
  });

  it('refuses a name that now answers with the metadata address, though it passed the check before', async () => {
    const policy = new HostPolicy([], { resolve: async () => ['127.0.0.1'], connectResolve: scripted(['169.254.169.254']) });
    await expect(policy.check(new URL(`http://rebind.test:${port}`), 'custom_host')).resolves.toBeUndefined();
    await expect(get(policy)).rejects.toThrow(/link-local or metadata/);
  });

  it('drops blocked addresses from a mixed answer and uses the rest', async () => {
    const policy = new HostPolicy([], { connectResolve: scripted(['169.254.169.254', '127.0.0.1']) });
    expect(await get(policy)).toBe('reached');
  });

  it('lets an allow-listed range through', async () => {
    const policy = new HostPolicy(['169.254.0.0/16'], { connectResolve: scripted(['169.254.10.10']) });
    const addresses = await new Promise<string[]>((resolve, reject) => {
      policy.connectLookup('rebind.test', { all: true }, (error, found) => {
        if (error) reject(error);
        else resolve((found as unknown as { address: string }[]).map((entry) => entry.address));
      });
    });
    expect(addresses).toEqual(['169.254.10.10']);
  });
});
