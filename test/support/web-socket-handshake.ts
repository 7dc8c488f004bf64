// A WebSocket handshake sent by hand through node:http (fetch refuses `connection` and `upgrade`),
// for what a WebSocket client does not show: the answer's status, headers and body. A 101 is
// answered by closing the connection at once.
import { request } from 'node:http';

export interface HandshakeAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The refusal's body; empty for a 101. */
  body: string;
}

/** `origin`: the server's `http://host:port`; `path` with its query string. */
export function webSocketHandshake(origin: string, path: string, headers: Record<string, string>): Promise<HandshakeAnswer> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(origin);
    const req = request({
      hostname,
      port,
      path,
      headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', ...headers },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '' });
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end();
  });
}
