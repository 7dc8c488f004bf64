// The mock provider's realtime API (`GET /v1/realtime?model=…` over a WebSocket, RFC 6455), so a
// realtime session through the gateway can be tried without an account: `session.created` first,
// then `session.update` → `session.updated`, `conversation.item.create` → `conversation.item.added`
// (its text remembered), `response.create` → a text response of "[mock]" and the last text's words,
// ending in `response.done` with its usage (one token a word), anything else an `error` event.
// Pings are answered and a close is returned. Text only: it neither hears nor speaks audio.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketTextMessages } from '../core/web-socket-messages.ts';
import { asksForWebSocket } from '../core/web-socket.ts';
import { isJsonObject } from '../core/json-object.ts';
import { lastUserText, reply } from './mock-reply.ts';

/** RFC 6455 §1.3: what the accept key is made with. */
const ACCEPT_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const TEXT = 0x1;
const CLOSE = 0x8;
const PING = 0x9;
const PONG = 0xa;
/** An event longer than this is not read (the mock takes no audio). */
const MAX_EVENT_BYTES = 1024 * 1024;

/** Answers a handshake node:http handed over ('upgrade'): a session, or an HTTP error for anything else. */
export function answerRealtime(req: IncomingMessage, socket: Duplex, head: Buffer): void {
  socket.on('error', () => undefined);
  const url = new URL(req.url ?? '/', 'http://mock');
  const key = req.headers['sec-websocket-key'];
  const model = url.searchParams.get('model');
  if (url.pathname !== '/v1/realtime' || req.method !== 'GET' || !asksForWebSocket(req.headers.upgrade) || typeof key !== 'string') {
    return refuse(socket, 404, `no WebSocket at ${req.method} ${url.pathname}: the realtime API is GET /v1/realtime?model=…`, 'not_found');
  }
  if (model === null || model === '') return refuse(socket, 400, "Missing required parameter: 'model'.", 'missing_required_parameter');
  const offered = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
  socket.write([
    'HTTP/1.1 101 Switching Protocols',
    'upgrade: websocket',
    'connection: Upgrade',
    `sec-websocket-accept: ${createHash('sha1').update(key + ACCEPT_GUID).digest('base64')}`,
    ...(offered.includes('realtime') ? ['sec-websocket-protocol: realtime'] : []),
    '',
    '',
  ].join('\r\n'));
  new MockSession(socket, model).start(head);
}

class MockSession {
  readonly #socket: Duplex;
  readonly #model: string;
  readonly #id = `sess_mock${Date.now().toString(36)}`;
  #events = 0;
  /** The text of the conversation's last user message. */
  #said = '';

  constructor(socket: Duplex, model: string) {
    this.#socket = socket;
    this.#model = model;
  }

  start(head: Buffer): void {
    const messages = new WebSocketTextMessages(MAX_EVENT_BYTES, (opcode, payload) => {
      if (opcode === PING) this.#socket.write(frame(PONG, payload));
      else if (opcode === CLOSE) this.#socket.end(frame(CLOSE, payload.subarray(0, 2)));
    });
    const read = (chunk: Buffer): void => {
      for (const message of messages.push(chunk)) this.#answer(message);
    };
    this.#send({ type: 'session.created', session: this.#session() });
    if (head.length > 0) read(head);
    this.#socket.on('data', read);
    // A client that ends without a close frame: the session ends with it.
    this.#socket.on('end', () => this.#socket.end());
  }

  #session(extra: Record<string, unknown> = {}): Record<string, unknown> {
    return { type: 'realtime', object: 'realtime.session', id: this.#id, model: this.#model, output_modalities: ['text'], ...extra };
  }

  #answer(message: Buffer): void {
    let event: unknown;
    try {
      event = JSON.parse(message.toString('utf8'));
    } catch {
      return this.#error('invalid_json', 'The event is not JSON.', null);
    }
    if (!isJsonObject(event)) return this.#error('invalid_value', 'An event is a JSON object.', null);
    switch (event.type) {
      case 'session.update':
        return this.#send({ type: 'session.updated', session: this.#session(isJsonObject(event.session) ? event.session : {}) });
      case 'conversation.item.create': {
        const item = isJsonObject(event.item) ? event.item : {};
        if (item.role === 'user') this.#said = lastUserText([item]);
        return this.#send({ type: 'conversation.item.added', previous_item_id: null, item: { id: `item_mock${++this.#events}`, status: 'completed', ...item } });
      }
      case 'response.create':
        return this.#respond();
      default:
        return this.#error('invalid_value', `Invalid value: '${String(event.type)}'. The mock provider answers session.update, conversation.item.create and response.create.`, typeof event.event_id === 'string' ? event.event_id : null);
    }
  }

  #respond(): void {
    const id = `resp_mock${++this.#events}`;
    const item = `item_mock${++this.#events}`;
    const words = reply(this.#said);
    const text = words.join('');
    this.#send({ type: 'response.created', response: { id, object: 'realtime.response', status: 'in_progress', output: [] } });
    for (const delta of words) this.#send({ type: 'response.output_text.delta', response_id: id, item_id: item, output_index: 0, content_index: 0, delta });
    const input = Math.max(1, this.#said.split(/\s+/).filter((w) => w !== '').length);
    this.#send({
      type: 'response.done',
      response: {
        id,
        object: 'realtime.response',
        status: 'completed',
        output: [{ id: item, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] }],
        usage: { total_tokens: input + words.length, input_tokens: input, output_tokens: words.length, input_token_details: { text_tokens: input, audio_tokens: 0, cached_tokens: 0 }, output_token_details: { text_tokens: words.length, audio_tokens: 0 } },
      },
    });
  }

  #error(code: string, message: string, eventId: string | null): void {
    this.#send({ type: 'error', error: { type: 'invalid_request_error', code, message, param: null, event_id: eventId } });
  }

  #send(event: Record<string, unknown>): void {
    if (!this.#socket.writable) return;
    this.#socket.write(frame(TEXT, Buffer.from(JSON.stringify({ event_id: `event_mock${++this.#events}`, ...event }))));
  }
}

/** A whole frame from the server (unmasked). */
function frame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  const head = length < 126 ? Buffer.alloc(2) : length < 65_536 ? Buffer.alloc(4) : Buffer.alloc(10);
  head[0] = 0x80 | opcode;
  if (length < 126) head[1] = length;
  else if (length < 65_536) {
    head[1] = 126;
    head.writeUInt16BE(length, 2);
  } else {
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(length), 2);
  }
  return Buffer.concat([head, payload]);
}

function refuse(socket: Duplex, status: number, message: string, code: string): void {
  const body = JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code } });
  socket.end(`HTTP/1.1 ${status} ${status === 404 ? 'Not Found' : 'Bad Request'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
}
