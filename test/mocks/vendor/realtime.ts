// The vendor's realtime API over a WebSocket (`GET /v1/realtime?model=…`), as far as the tests drive
// it: the handshake (a model is required; no extension is agreed), `session.created` first, then an
// answer to each client event: `session.update` → `session.updated`, `conversation.item.create` →
// `conversation.item.added`, `input_audio_buffer.commit` → `input_audio_buffer.committed` and, when
// the session turned on input transcription (`session.update`'s `audio.input.transcription`), its
// `conversation.item.input_audio_transcription.completed` with its usage, `response.create` → a short text response with its audio (one large
// `response.output_audio.delta`, in a frame of a 64-bit length) ending in `response.done` with its
// usage (text, audio and cached tokens; sent in two fragments with a ping between, as RFC 6455 lets a
// server), anything else an `error` event. Pings are answered, a close is returned.
// `?intent=transcription` opens a transcription session instead (no model): its session's type is
// `transcription`, or with the beta header (`openai-beta: realtime=v1`) its events are the beta's
// `transcription_session.created`/`.update`/`.updated` (the transcription model in
// `input_audio_transcription`); it transcribes what is committed and makes no responses.
import type { Socket } from 'node:net';
import type { MockContext } from './context.ts';
import { vendorId } from './context.ts';
import { sendVendorError, vendorHeaders } from './respond.ts';
import { acceptKey, encodeFrame, FrameReader, OPCODE } from '../http/web-socket.ts';

/** What a test can see of one session: the client's events as the mock got them, and its end. */
interface RealtimeSession {
  received: Array<Record<string, unknown>>;
  closed: Promise<void>;
}

/** The sessions the mocks opened, by their handshake's recorded request (VendorMock.requests). */
export const SESSIONS = new WeakMap<object, RealtimeSession>();

const ANSWER_TEXT = 'Hello from the realtime mock.';

export async function realtime(ctx: MockContext): Promise<void> {
  const query = new URLSearchParams(ctx.record.query);
  if (query.get('intent') === 'transcription') return realtimeSession(ctx, null, vendorHeaders(ctx));
  const model = query.get('model');
  if (model === null || model === '') return sendVendorError(ctx, 400, { message: "Missing required parameter: 'model'.", param: 'model', code: 'missing_required_parameter' });
  return realtimeSession(ctx, model, vendorHeaders(ctx));
}

/** The session itself, of `model` (null: a transcription session), once the family's own checks passed (cloud A names a deployment instead), its 101 with `headers`. */
export async function realtimeSession(ctx: MockContext, model: string | null, headers: Readonly<Record<string, string>>): Promise<void> {
  const { req, record } = ctx;
  const key = req.headers['sec-websocket-key'];
  if (!/(?:^|,)\s*websocket\s*(?:,|$)/i.test(req.headers.upgrade ?? '') || typeof key !== 'string') {
    return sendVendorError(ctx, 400, { message: 'The realtime API is reached over a WebSocket: send the upgrade handshake.', code: 'websocket_required' });
  }
  const socket = req.socket as Socket;
  const offered = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
  const head = [
    'HTTP/1.1 101 Switching Protocols',
    'upgrade: websocket',
    'connection: Upgrade',
    `sec-websocket-accept: ${acceptKey(key)}`,
    ...(offered.includes('realtime') ? ['sec-websocket-protocol: realtime'] : []),
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  record.status = 101;
  socket.write(`${head.join('\r\n')}\r\n\r\n`);
  let ended!: () => void;
  const session: RealtimeSession = { received: [], closed: new Promise((resolve) => (ended = resolve)) };
  SESSIONS.set(record, session);
  socket.once('close', () => ended());
  const send = (event: Record<string, unknown>, fragmented = false): void => {
    if (socket.destroyed) return;
    const payload = Buffer.from(JSON.stringify({ event_id: vendorId('event_'), ...event }));
    if (!fragmented) {
      socket.write(encodeFrame(OPCODE.text, payload));
      return;
    }
    const half = payload.length >> 1;
    socket.write(Buffer.concat([encodeFrame(OPCODE.text, payload.subarray(0, half), false), encodeFrame(OPCODE.ping, Buffer.from('mock')), encodeFrame(OPCODE.continuation, payload.subarray(half))]));
  };
  const sessionId = vendorId('sess_');
  const state: SessionState = { transcription: null, model, beta: /realtime=v1/.test(String(req.headers['openai-beta'] ?? '')) };
  if (model !== null) send({ type: 'session.created', session: { type: 'realtime', object: 'realtime.session', id: sessionId, model, output_modalities: ['audio'] } });
  else if (state.beta) send({ type: 'transcription_session.created', session: { object: 'realtime.transcription_session', id: sessionId, input_audio_transcription: null } });
  else send({ type: 'session.created', session: { type: 'transcription', object: 'realtime.transcription_session', id: sessionId, audio: { input: { transcription: null } } } });
  const reader = new FrameReader();
  socket.on('data', (chunk: Buffer) => {
    let messages;
    try {
      messages = reader.push(chunk);
    } catch {
      // RFC 6455 §7.4.1: 1002, a protocol error.
      socket.end(encodeFrame(OPCODE.close, Buffer.from([0x03, 0xea])));
      return;
    }
    for (const message of messages) {
      if (message.opcode === OPCODE.close) {
        socket.end(encodeFrame(OPCODE.close, message.payload.subarray(0, 2)));
        return;
      }
      if (message.opcode === OPCODE.ping) socket.write(encodeFrame(OPCODE.pong, message.payload));
      if (message.opcode !== OPCODE.text) continue;
      let event: Record<string, unknown>;
      try {
        event = JSON.parse(message.payload.toString('utf8')) as Record<string, unknown>;
      } catch {
        send({ type: 'error', error: { type: 'invalid_request_error', code: 'invalid_json', message: 'The event is not JSON.', param: null, event_id: null } });
        continue;
      }
      session.received.push(event);
      answer(event, send, state);
    }
  });
}

/** What each response reports it used: `REALTIME_USAGE` in the vendor's words. */
export const REALTIME_USAGE = {
  total_tokens: 57,
  input_tokens: 40,
  output_tokens: 17,
  input_token_details: { text_tokens: 30, audio_tokens: 10, image_tokens: 0, cached_tokens: 12, cached_tokens_details: { text_tokens: 8, audio_tokens: 4, image_tokens: 0 } },
  output_token_details: { text_tokens: 5, audio_tokens: 12 },
};

/** The audio a response carries: 48 KiB of PCM (zeros), sent in base64 in one event. */
const ANSWER_AUDIO = Buffer.alloc(48 * 1024).toString('base64');

/** What a session was told to do: the model of its input transcription (none: the audio is not transcribed). */
interface SessionState {
  transcription: string | null;
  /** The session's model; null for a transcription session. */
  model: string | null;
  /** The beta's events (openai-beta: realtime=v1): a transcription session's are `transcription_session.*`. */
  beta: boolean;
}

/** What a transcription of the input reports: tokens (gpt-4o-transcribe and its mini), or seconds (whisper-1). */
export const TRANSCRIPTION_USAGE = {
  tokens: { type: 'tokens', total_tokens: 26, input_tokens: 20, input_token_details: { text_tokens: 0, audio_tokens: 20 }, output_tokens: 6 },
  duration: { type: 'duration', seconds: 3 },
} as const;

function answer(event: Record<string, unknown>, send: (event: Record<string, unknown>, fragmented?: boolean) => void, state: SessionState): void {
  const { model } = state;
  switch (event.type) {
    case 'session.update': {
      const session = event.session as { audio?: { input?: { transcription?: { model?: string } | null } } } | undefined;
      const transcription = session?.audio?.input?.transcription;
      if (transcription !== undefined) state.transcription = transcription?.model ?? null;
      const own = model === null ? { type: 'transcription', object: 'realtime.transcription_session' } : { type: 'realtime', object: 'realtime.session', model };
      send({ type: 'session.updated', session: { ...own, ...(event.session as object) } });
      return;
    }
    case 'transcription_session.update': {
      if (model !== null || !state.beta) break;
      const session = event.session as { input_audio_transcription?: { model?: string } | null } | undefined;
      const transcription = session?.input_audio_transcription;
      if (transcription !== undefined) state.transcription = transcription?.model ?? null;
      send({ type: 'transcription_session.updated', session: { object: 'realtime.transcription_session', ...(event.session as object) } });
      return;
    }
    case 'input_audio_buffer.append':
      return;
    case 'input_audio_buffer.commit': {
      const item = vendorId('item_');
      send({ type: 'input_audio_buffer.committed', previous_item_id: null, item_id: item });
      if (state.transcription !== null) {
        const usage = state.transcription === 'whisper-1' ? TRANSCRIPTION_USAGE.duration : TRANSCRIPTION_USAGE.tokens;
        send({ type: 'conversation.item.input_audio_transcription.completed', item_id: item, content_index: 0, transcript: 'Hello there.', usage });
      }
      return;
    }
    case 'conversation.item.create':
      send({ type: 'conversation.item.added', previous_item_id: null, item: { id: vendorId('item_'), ...(event.item as object) } });
      return;
    case 'response.create': {
      if (model === null) break;
      const id = vendorId('resp_');
      const item = vendorId('item_');
      send({ type: 'response.created', response: { id, object: 'realtime.response', status: 'in_progress', output: [] } });
      for (const delta of ANSWER_TEXT.split(/(?<= )/)) send({ type: 'response.output_text.delta', response_id: id, item_id: item, output_index: 0, content_index: 0, delta });
      send({ type: 'response.output_audio.delta', response_id: id, item_id: item, output_index: 0, content_index: 1, delta: ANSWER_AUDIO });
      send({
        type: 'response.done',
        response: {
          id,
          object: 'realtime.response',
          status: 'completed',
          output: [{ id: item, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: ANSWER_TEXT }] }],
          usage: REALTIME_USAGE,
        },
      }, true);
      return;
    }
  }
  send({ type: 'error', error: { type: 'invalid_request_error', code: 'invalid_value', message: `Invalid value: '${String(event.type)}'.`, param: 'type', event_id: event.event_id ?? null } });
}
