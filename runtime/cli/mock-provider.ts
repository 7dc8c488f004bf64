// `gateway mock-provider`: a local stand-in for the vendor's API, so a first routed request needs no
// provider account and no network, and CI can route against something real. It answers chat
// completions and responses (JSON or SSE), completions, embeddings, the model list and the realtime
// API's text sessions (mock-realtime.ts) in the vendor's wire format;
// the reply is "[mock] " and the prompt's words. Any bearer key is accepted. --fail-every N makes
// every Nth request answer --fail-status, to watch retries and fallback work.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from '../core/node-http.ts';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { ResponseEventFrames } from '../api/responses/events.ts';
import { OutputBuilder } from '../api/responses/output-builder.ts';
import { bagOfWordsOf } from './bag-of-words.ts';
import { lastUserText, reply } from './mock-reply.ts';
import { answerRealtime } from './mock-realtime.ts';
import { asksForWebSocket } from '../core/web-socket.ts';
import { EXIT_FAILURE, EXIT_OK, parseCommandArgs, parsePort, reportUsageError, UsageError } from './args.ts';
import { isJsonObject } from '../core/json-object.ts';

export const MOCK_PROVIDER_USAGE = `Usage: gateway mock-provider [--port N] [--host H] [--fail-every N] [--fail-status CODE] [--latency MS]

Runs a local provider that speaks the vendor's API (chat completions and responses with and without
streaming, completions, embeddings, models, and the realtime API's text sessions over a WebSocket at
GET /v1/realtime?model=…) and answers "[mock]" followed by the prompt's words. Its embeddings
are a hashed bag of words: texts sharing most of their words get close vectors, so a semantic cache
can be tried with it (docs/cache.md). Prints one line
with its base URL when ready; SIGINT or SIGTERM stop it. Point a config at it:
{"provider": "vendor", "custom_host": "http://127.0.0.1:9000/v1"}.

Options:
  --port N           port to listen on (default 9000; 0 picks a free port)
  --host H           address to bind (default 127.0.0.1)
  --fail-every N     answer every Nth request with --fail-status instead (default: never)
  --fail-status CODE the status of those answers (default 503)
  --latency MS       wait this long before each answer (default 0)
  -h, --help         show this help`;

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'fail-every': { type: 'string' },
  'fail-status': { type: 'string' },
  latency: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Small enough to read in a terminal, large enough that a few dozen words rarely share an index. */
const EMBEDDING_DIMENSIONS = 64;

interface MockSettings {
  failEvery: number;
  failStatus: number;
  latencyMs: number;
}

export async function runMockProvider(argv: string[]): Promise<number> {
  let port: number;
  let host: string;
  let settings: MockSettings;
  try {
    const { values } = parseCommandArgs(argv, OPTIONS);
    if (values.help === true) {
      process.stdout.write(`${MOCK_PROVIDER_USAGE}\n`);
      return EXIT_OK;
    }
    port = parsePort(values.port, 9000);
    host = values.host ?? '127.0.0.1';
    settings = { failEvery: integer(values['fail-every'], 0, '--fail-every', 0), failStatus: integer(values['fail-status'], 503, '--fail-status', 400, 599), latencyMs: integer(values.latency, 0, '--latency', 0) };
  } catch (err) {
    if (err instanceof UsageError) return reportUsageError('mock-provider', err, MOCK_PROVIDER_USAGE);
    throw err;
  }
  const server = startMockProvider(settings);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, resolve);
    });
  } catch (err) {
    process.stderr.write(`gateway mock-provider: ${(err as Error).message}\n`);
    return EXIT_FAILURE;
  }
  const address = server.address() as AddressInfo;
  process.stdout.write(`mock provider listening on http://${host.includes(':') ? `[${host}]` : host}:${address.port}/v1\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  return EXIT_OK;
}

function integer(text: string | undefined, fallback: number, flag: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) throw new UsageError(`${flag} must be an integer from ${min} to ${max}, not ${JSON.stringify(text)}`);
  return value;
}

export function startMockProvider(settings: MockSettings): ReturnType<typeof createServer> {
  let served = 0;
  // Only a WebSocket handshake is an upgrade here; any other (curl's h2c) is answered as HTTP/1.1.
  const server = createServer({ shouldUpgradeCallback: (req) => asksForWebSocket(req.headers.upgrade) }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      served++;
      const answer = (): void => {
        try {
          route(req, res, Buffer.concat(chunks), settings.failEvery > 0 && served % settings.failEvery === 0 ? settings.failStatus : null);
        } catch (error) {
          // A stand-in answers what it cannot handle; it never stops the user's session.
          if (!res.headersSent) json(res, 500, { error: { message: `the mock provider failed: ${(error as Error).message}`, type: 'server_error', param: null, code: 'mock_error' } });
          else res.destroy();
        }
      };
      if (settings.latencyMs > 0) setTimeout(answer, settings.latencyMs);
      else answer();
    });
  });
  // The realtime API's WebSocket (mock-realtime.ts). node:http neither counts nor closes a socket it
  // handed over, and its close waits for them: closeAllConnections cuts the sessions too.
  const sessions = new Set<Duplex>();
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    sessions.add(socket);
    socket.once('close', () => sessions.delete(socket));
    answerRealtime(req, socket, head);
  });
  const closeAll = server.closeAllConnections.bind(server);
  server.closeAllConnections = () => {
    closeAll();
    for (const socket of sessions) socket.destroy();
  };
  return server;
}

function route(req: IncomingMessage, res: ServerResponse, raw: Buffer, failStatus: number | null): void {
  const path = (req.url ?? '/').split('?')[0];
  if (failStatus !== null) return json(res, failStatus, { error: { message: `mock failure (every Nth request answers ${failStatus})`, type: 'server_error', param: null, code: 'mock_failure' } });
  if (req.method === 'GET' && path === '/v1/models') return json(res, 200, { object: 'list', data: [{ id: 'mock-chat', object: 'model', created: 0, owned_by: 'mock' }, { id: 'mock-embed', object: 'model', created: 0, owned_by: 'mock' }] });
  if (req.method !== 'POST') return json(res, 404, { error: { message: `no route ${req.method} ${path}`, type: 'invalid_request_error', param: null, code: 'not_found' } });
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    return json(res, 400, { error: { message: 'the body is not JSON', type: 'invalid_request_error', param: null, code: 'invalid_json' } });
  }
  if (!isJsonObject(parsed)) return json(res, 400, { error: { message: 'the body must be a JSON object', type: 'invalid_request_error', param: null, code: 'invalid_json' } });
  const body = parsed;
  const model = typeof body.model === 'string' ? body.model : 'mock-chat';
  const created = Math.floor(Date.now() / 1000);
  if (path === '/v1/chat/completions') {
    const messages = Array.isArray(body.messages) ? (body.messages as unknown[]).filter(isJsonObject) : [];
    const words = reply(lastUserText(messages));
    const usage = { prompt_tokens: messages.length * 4, completion_tokens: words.length, total_tokens: messages.length * 4 + words.length };
    if (body.stream === true) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const chunk = (delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}): string => `data: ${JSON.stringify({ id: 'chatcmpl-mock', object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
      res.write(chunk({ role: 'assistant', content: '' }, null));
      for (const word of words) res.write(chunk({ content: word }, null));
      res.write(chunk({}, 'stop'));
      if ((body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true) res.write(`data: ${JSON.stringify({ id: 'chatcmpl-mock', object: 'chat.completion.chunk', created, model, choices: [], usage })}\n\n`);
      return void res.end('data: [DONE]\n\n');
    }
    return json(res, 200, { id: 'chatcmpl-mock', object: 'chat.completion', created, model, choices: [{ index: 0, message: { role: 'assistant', content: words.join('') }, finish_reason: 'stop' }], usage });
  }
  if (path === '/v1/responses') return responses(res, body, model, created);
  if (path === '/v1/completions') {
    const words = reply(typeof body.prompt === 'string' ? body.prompt : '');
    return json(res, 200, { id: 'cmpl-mock', object: 'text_completion', created, model, choices: [{ index: 0, text: words.join(''), finish_reason: 'stop', logprobs: null }], usage: { prompt_tokens: 4, completion_tokens: words.length, total_tokens: 4 + words.length } });
  }
  if (path === '/v1/embeddings') {
    const inputs = Array.isArray(body.input) ? body.input : [body.input];
    const data = inputs.map((input, index) => ({ object: 'embedding', index, embedding: Array.from(bagOfWordsOf(String(input), EMBEDDING_DIMENSIONS)) }));
    return json(res, 200, { object: 'list', data, model, usage: { prompt_tokens: inputs.length, total_tokens: inputs.length } });
  }
  json(res, 404, { error: { message: `no route POST ${path}`, type: 'invalid_request_error', param: null, code: 'not_found' } });
}

/**
 * The Responses API (create only; the mock stores nothing, so a `previous_response_id` is not found,
 * as the vendor answers for one it does not hold). The answer is the chat answer's, in Responses
 * terms; `stream: true` sends the vendor's event sequence.
 */
function responses(res: ServerResponse, body: Record<string, unknown>, model: string, created: number): void {
  if (typeof body.previous_response_id === 'string') {
    return json(res, 404, { error: { message: `Previous response with id '${body.previous_response_id}' not found: the mock provider stores no responses.`, type: 'invalid_request_error', param: 'previous_response_id', code: 'previous_response_not_found' } });
  }
  const items = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : Array.isArray(body.input) ? (body.input as unknown[]).filter(isJsonObject) : [];
  const words = reply(lastUserText(items));
  const text = words.join('');
  const inputTokens = items.length * 4;
  const response = {
    id: `resp_mock${created}`, object: 'response', created_at: created, status: 'completed', error: null, incomplete_details: null,
    instructions: typeof body.instructions === 'string' ? body.instructions : null, max_output_tokens: body.max_output_tokens ?? null, model,
    output: [] as unknown[],
    output_text: text, parallel_tool_calls: true, previous_response_id: null, reasoning: null, store: false,
    temperature: body.temperature ?? 1, text: body.text ?? { format: { type: 'text' } }, tool_choice: 'auto', tools: [], top_p: body.top_p ?? 1, truncation: 'disabled',
    usage: { input_tokens: inputTokens, input_tokens_details: { cached_tokens: 0 }, output_tokens: words.length, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: inputTokens + words.length },
    metadata: body.metadata ?? {},
  };
  // The reply a word at a time, as the vendor streams it (the events only when streamed).
  const frames = body.stream === true ? new ResponseEventFrames({ obfuscation: false }) : null;
  frames?.opening(response);
  const builder = new OutputBuilder(false, frames?.emit ?? null);
  for (const word of words) builder.text(word);
  response.output = builder.end().output;
  if (frames === null) return json(res, 200, response);
  frames.closing(response);
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.end(frames.take());
}

function json(res: ServerResponse, status: number, value: unknown): void {
  const body = Buffer.from(JSON.stringify(value));
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(body.length) });
  res.end(body);
}
