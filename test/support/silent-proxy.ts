// A TCP proxy in front of a real server that can go silent: connections stay open and accepted, and
// nothing passes either way (a network partition, or a server stuck before it answers). What TCP
// keepalive never notices, since every socket on the way is alive. Its target can move for new
// connections while the open ones stay where they were, as a name does after a failover.
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';

export interface SilentProxy {
  readonly port: number;
  /** Silent from now on (true) or passing bytes again (false). */
  silent: boolean;
  /** Where new connections go; open ones stay on the port they were made to. */
  targetPort: number;
  close(): Promise<void>;
}

export async function startSilentProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<SilentProxy> {
  const sockets = new Set<Socket>();
  const proxy: { silent: boolean; targetPort: number } = { silent: false, targetPort };
  const server: Server = createServer((client) => {
    const upstream = connect(proxy.targetPort, targetHost);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    }
    client.on('data', (chunk) => void (proxy.silent || upstream.write(chunk)));
    upstream.on('data', (chunk) => void (proxy.silent || client.write(chunk)));
    // A goodbye is a byte stream too: while silent it is not passed on.
    client.on('end', () => void (proxy.silent || upstream.end()));
    upstream.on('end', () => void (proxy.silent || client.end()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(proxy, {
    port: (server.address() as AddressInfo).port,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}
