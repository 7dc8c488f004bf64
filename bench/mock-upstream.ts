// The benchmark's upstream: a minimal, fast vendor stand-in (not test/mocks/vendor, which is faithful
// rather than fast). Fixed JSON body for chat completions; SSE when the body asks for a stream; 503
// under the /fail503 prefix, so a config can name a failing target by its custom_host alone.
// Run: node bench/mock-upstream.ts [port]; prints `mock listening on <url>`.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { COMPLETION } from './mock-answers.ts';

const UNAVAILABLE = Buffer.from(JSON.stringify({ error: { message: 'overloaded', type: 'server_error', param: null, code: 'overloaded' } }));
const WORDS = ['Hello', '!', ' How', ' can', ' I', ' help', ' you', ' today', '?'];
/** One SSE event per token, then a finish event and [DONE]: 11 writes per stream. */
export const SSE_EVENTS: readonly Buffer[] = [
  ...WORDS.map((word) => chunk({ content: word }, null)),
  chunk({}, 'stop'),
  Buffer.from('data: [DONE]\n\n'),
];
const STREAM_MARKER = Buffer.from('"stream":true');

function chunk(delta: Record<string, unknown>, finish: string | null): Buffer {
  const event = { id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'gpt-4o-mini', choices: [{ index: 0, delta, finish_reason: finish }] };
  return Buffer.from(`data: ${JSON.stringify(event)}\n\n`);
}

function answer(req: IncomingMessage, res: ServerResponse, body: Buffer): void {
  if (req.url!.startsWith('/fail503/')) {
    res.writeHead(503, { 'content-type': 'application/json', 'content-length': UNAVAILABLE.length });
    res.end(UNAVAILABLE);
  } else if (body.includes(STREAM_MARKER)) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const event of SSE_EVENTS) res.write(event);
    res.end();
  } else {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': COMPLETION.length });
    res.end(COMPLETION);
  }
}

const server = createServer({ keepAliveTimeout: 120_000, requestTimeout: 0 }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => answer(req, res, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
});
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  process.stdout.write(`mock listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
