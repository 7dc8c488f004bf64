// The floor: the least a Node proxy can do per request (node:http in, undici Pool dispatch out,
// keep-alive both ways, body bytes passed through, backpressure kept). The gateway is measured
// against it. Run: node bench/floor-proxy.ts <upstream-origin>; prints `floor listening on <url>`.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';

const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-connection', 'host', 'expect']);
const pool = new Pool(process.argv[2], { connections: 128, pipelining: 1, allowH2: false, keepAliveTimeout: 60_000 });

function endToEnd(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name in headers) if (!HOP.has(name)) out[name] = headers[name]!;
  return out;
}

const server = createServer({ keepAliveTimeout: 120_000, requestTimeout: 0 }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    pool.dispatch({ path: req.url!, method: req.method as 'POST', headers: endToEnd(req.headers), body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks) }, {
      onRequestStart(controller) {
        res.on('drain', () => controller.resume());
        res.on('close', () => { if (!res.writableFinished) controller.abort(new Error('client gone')); });
      },
      onResponseStart(_controller, status, headers) {
        res.writeHead(status, endToEnd(headers));
      },
      onResponseData(controller, chunk) {
        if (!res.write(chunk)) controller.pause();
      },
      onResponseEnd() {
        res.end();
      },
      onResponseError(_controller, error) {
        if (res.headersSent) res.destroy(error);
        else res.writeHead(502).end();
      },
    });
  });
});
server.listen(Number(process.argv[3] ?? 0), '127.0.0.1', () => {
  process.stdout.write(`floor listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
