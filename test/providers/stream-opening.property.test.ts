// How each family's judge reads the start of a 2xx stream (runtime/providers/shared/stream-opening.ts):
// however the bytes arrive, a stream is `more` until its first event is whole, then the error answer
// it opened with (the status its type names, the error as the body) or `began`; never judged on a
// later event (keep-alive comments before the first are read past), or an answer that is not the family's stream.
import { describe, expect } from 'vitest';
import { test } from '@fast-check/vitest';
import fc from 'fast-check';
import type { OpeningJudge, StreamOpening } from '../../runtime/providers/shared/stream-opening.ts';
import { OPENING_BYTES, vendorStreamOpening } from '../../runtime/providers/shared/stream-opening.ts';
import { UNSAID_ERROR, vendorErrorStatus } from '../../runtime/providers/shared/error-answer.ts';
import { messagesStreamOpening } from '../../runtime/providers/anthropic/stream.ts';
import { generateContentStreamOpening } from '../../runtime/providers/cloudb/stream.ts';
import { converseStreamOpening } from '../../runtime/providers/cloudc/stream.ts';
import { eventMessage, exceptionMessage } from '../mocks/cloudc/event-stream.ts';

const SSE = { 'content-type': 'text/event-stream; charset=utf-8' };
const EVENT_STREAM = { 'content-type': 'application/vnd.amazon.eventstream' };

/** What the transport reads of an answer: its start, when it is one of the family's streams. */
function read(opening: OpeningJudge, headers: Record<string, string>, held: Buffer): StreamOpening | 'not a stream' {
  return opening.streams(headers) ? opening.judge(held) : 'not a stream';
}

/**
 * A judge's verdict on every prefix of `wire`: `more` before `firstEnd` bytes (the first event's
 * end), then `final` throughout.
 */
function verdictsOverPrefixes(judge: OpeningJudge, headers: Record<string, string>, wire: Buffer, firstEnd: number, final: StreamOpening): void {
  for (let length = 0; length <= wire.length; length++) {
    const verdict = read(judge, headers, wire.subarray(0, length));
    if (length < firstEnd) expect(verdict, `after ${length} bytes`).toBe('more');
    else expect(verdict, `after ${length} bytes`).toEqual(final);
  }
}

const lineEnd = fc.constantFrom('\n', '\r\n', '\r');
/** Where an event that ends with `text` is known to have ended: a CR ends a line, so a CRLF's LF is never waited for. */
const endOf = (text: string): number => Buffer.byteLength(text) - (text.endsWith('\r\n') ? 1 : 0);
const text = fc.string({ maxLength: 40, unit: 'grapheme' });
const chunk = (content: string) => JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content } }] });

describe('the vendor-shaped judge', () => {
  test.prop([text, fc.constantFrom(['rate_limit_exceeded', 429], ['server_error', 500], ['overloaded_error', 529], ['whatever', 500]), lineEnd, text])(
    'an error first is its error answer once whole, whatever follows',
    (message, [code, status], end, after) => {
      const data = JSON.stringify({ error: { message, type: 'requests', param: null, code } });
      const first = `data: ${data}${end}${end}`;
      const wire = Buffer.from(first + `data: ${chunk(after)}${end}${end}`);
      verdictsOverPrefixes(vendorStreamOpening, SSE, wire, endOf(first), { status, headers: { 'content-type': 'application/json' }, body: Buffer.from(data) });
    },
  );

  test.prop([text, lineEnd, text])('a chunk first has begun, even one whose text says "error", and an error after it is passed on', (content, end, message) => {
    const first = `data: ${chunk(content)}${end}${end}`;
    const wire = Buffer.from(first + `data: ${JSON.stringify({ error: { message } })}${end}${end}`);
    verdictsOverPrefixes(vendorStreamOpening, SSE, wire, endOf(first), 'began');
  });

  test.prop([text, lineEnd, fc.integer({ min: 1, max: 5 })])('keep-alive comments before the first event are read past: an error after them is the error answer', (message, end, comments) => {
    const data = JSON.stringify({ error: { message, type: 'upstream_error', code: 502 } });
    const first = `${`: OPENROUTER PROCESSING${end}${end}`.repeat(comments)}data: ${data}${end}${end}`;
    verdictsOverPrefixes(vendorStreamOpening, SSE, Buffer.from(first + `data: ${chunk('x')}${end}${end}`), endOf(first), { status: 502, headers: { 'content-type': 'application/json' }, body: Buffer.from(data) });
  });

  test.prop([fc.constantFrom(false, null, 0, '', true)])('an event whose `error` member is not an object or a message has begun', (error) => {
    expect(read(vendorStreamOpening, SSE, Buffer.from(`data: ${JSON.stringify({ type: 'message_start', error })}\n\n`))).toBe('began');
  });

  test.prop([fc.uint8Array({ maxLength: 200 })])('an answer that is not the family\'s stream is not read', (bytes) => {
    expect(read(vendorStreamOpening, { 'content-type': 'application/json' }, Buffer.from(bytes))).toBe('not a stream');
    expect(read(vendorStreamOpening, {}, Buffer.from(bytes))).toBe('not a stream');
    expect(read(converseStreamOpening, SSE, Buffer.from(bytes))).toBe('not a stream');
  });

  test.prop([fc.integer({ min: 0, max: 2000 })])('a first event longer than the bytes read for it has begun', (extra) => {
    const wire = Buffer.from(`data: ${'x'.repeat(OPENING_BYTES + extra)}`);
    expect(read(vendorStreamOpening, SSE, wire)).toBe('began');
  });

  test.prop([fc.oneof(fc.constant(null), fc.constant('not json'), fc.constant('{"error":null}'))])('an `error` event whose data holds no error object is still an error: 500, its words kept', (data) => {
    const verdict = read(vendorStreamOpening, SSE, Buffer.from(`event: error\ndata: ${data}\n\n`));
    expect(verdict).toMatchObject({ status: 500, headers: { 'content-type': 'application/json' } });
    const body = JSON.parse((verdict as { body: Buffer }).body.toString()) as { error: { message: string } };
    expect(body.error.message).toEqual(expect.any(String));
  });

  test.prop([fc.integer({ min: 400, max: 599 }), fc.boolean()])('an error\'s own HTTP status, as `status` or `code`, number or digits, is its status', (status, asText) => {
    expect(vendorErrorStatus({ status: asText ? String(status) : status })).toBe(status);
    expect(vendorErrorStatus({ code: asText ? String(status) : status, type: 'invalid_request_error' })).toBe(status);
  });
});

describe('the messages-style judge', () => {
  test.prop([fc.constantFrom(['overloaded_error', 529], ['rate_limit_error', 429], ['api_error', 500], ['invalid_request_error', 400]), text])(
    'an error event first is the error answer its type stands for',
    ([type, status], message) => {
      const data = JSON.stringify({ type: 'error', error: { type, message } });
      const first = `event: error\ndata: ${data}\n\n`;
      const wire = Buffer.from(first + 'event: message_start\ndata: {}\n\n');
      verdictsOverPrefixes(messagesStreamOpening, SSE, wire, Buffer.byteLength(first), { status, headers: { 'content-type': 'application/json' }, body: Buffer.from(data) });
    },
  );

  test.prop([fc.constantFrom('message_start', 'ping')])('any other event first has begun', (name) => {
    const first = `event: ${name}\ndata: {"type":"${name}"}\n\n`;
    verdictsOverPrefixes(messagesStreamOpening, SSE, Buffer.from(`${first}event: error\ndata: {}\n\n`), Buffer.byteLength(first), 'began');
  });
});

describe('the generateContent judge', () => {
  test.prop([fc.constantFrom(['RESOURCE_EXHAUSTED', 429, 429], ['UNAVAILABLE', 503, 503], ['INTERNAL', 0, 500]), text])(
    'an error first is the error answer of its code or status, in the API\'s own shape whole (the event\'s own body when it is)',
    ([name, code, status], message) => {
      const data = JSON.stringify({ error: { ...(code === 0 ? {} : { code }), message, status: name } });
      const first = `data: ${data}\r\n\r\n`;
      const whole = code !== 0 && message !== '';
      const body = whole ? data : JSON.stringify({ error: { code: status, message: message === '' ? UNSAID_ERROR : message, status: name } });
      verdictsOverPrefixes(generateContentStreamOpening, SSE, Buffer.from(first + 'data: {"candidates":[]}\r\n\r\n'), endOf(first), { status, headers: { 'content-type': 'application/json' }, body: Buffer.from(body) });
    },
  );

  test.prop([fc.constantFrom({}, [], { code: 'x' }, { message: 7 }, { code: 404 })])('an error that says nothing of itself is a 500 (or its code\'s), its body the API\'s shape with a message and a status name', (error) => {
    const verdict = read(generateContentStreamOpening, SSE, Buffer.from(`data: ${JSON.stringify({ error })}\r\n\r\n`));
    const status = (error as { code?: unknown }).code === 404 ? 404 : 500;
    expect(verdict).toMatchObject({ status });
    expect(JSON.parse((verdict as { body: Buffer }).body.toString())).toEqual({ error: { code: status, message: UNSAID_ERROR, status: status === 404 ? 'NOT_FOUND' : 'INTERNAL' } });
  });
});

describe('the converse-stream judge', () => {
  test.prop([fc.constantFrom(['throttlingException', 429], ['serviceUnavailableException', 503], ['modelStreamErrorException', 424]), text])(
    'an exception message first is the error answer of its type, the type in x-amzn-errortype',
    ([type, status], message) => {
      const first = exceptionMessage(type, message);
      const wire = Buffer.concat([first, eventMessage('messageStart', { role: 'assistant' })]);
      verdictsOverPrefixes(converseStreamOpening, EVENT_STREAM, wire, first.length, {
        status,
        headers: { 'content-type': 'application/json', 'x-amzn-errortype': type },
        // An exception without words says so, as its translation does.
        body: Buffer.from(JSON.stringify({ message: message === '' ? UNSAID_ERROR : message })),
      });
    },
  );

  test.prop([text])('an event first has begun, and corrupt framing is left to the stream\'s mapper', (message) => {
    const first = eventMessage('messageStart', { role: 'assistant' });
    verdictsOverPrefixes(converseStreamOpening, EVENT_STREAM, Buffer.concat([first, exceptionMessage('throttlingException', message)]), first.length, 'began');
    const corrupt = Buffer.from(first);
    corrupt[9] ^= 1;
    expect(read(converseStreamOpening, EVENT_STREAM, corrupt)).toBe('began');
  });
});

describe('an `error` event that is the error itself (the Responses API\'s)', () => {
  test.prop([fc.string({ minLength: 1, maxLength: 30 }), fc.constantFrom(['rate_limit_exceeded', 429], ['server_error', 500], ['ERR_UNKNOWN', 500])])(
    'is the error answer its code names, the event as the error in its body',
    (message, [code, status]) => {
      const event = { type: 'error', code, message, param: null, sequence_number: 1 };
      const verdict = read(vendorStreamOpening, SSE, Buffer.from(`event: error\ndata: ${JSON.stringify(event)}\n\n`));
      expect(verdict).toMatchObject({ status });
      expect(JSON.parse((verdict as { body: Buffer }).body.toString())).toEqual({ error: event });
    },
  );
});

describe('an error answer\'s body, which a pass-through client reads as it is', () => {
  test.prop([fc.oneof(fc.constant({}), fc.record({ code: fc.nat(600) }), fc.record({ message: fc.constant(7) }), fc.string({ minLength: 1, maxLength: 20 }))])(
    'always has an error message and type, the vendor\'s shape, whatever the event carried',
    (error) => {
      const verdict = read(vendorStreamOpening, SSE, Buffer.from(`data: ${JSON.stringify({ error })}\n\n`)) as { body: Buffer };
      expect(JSON.parse(verdict.body.toString())).toMatchObject({ error: { message: expect.any(String), type: expect.any(String) } });
    },
  );

  test.prop([fc.oneof(fc.constant('{"type":"error"}'), fc.constant('{"type":"error","error":{"type":"overloaded_error"}}'), fc.constant('{"type":"error","error":{"message":"x"}}'), fc.constant('not json'))])(
    'the messages API\'s: `{"type": "error", "error": {type, message}}`, whatever the event carried',
    (data) => {
      const verdict = read(messagesStreamOpening, SSE, Buffer.from(`event: error\ndata: ${data}\n\n`)) as { status: number; body: Buffer };
      expect(JSON.parse(verdict.body.toString())).toMatchObject({ type: 'error', error: { message: expect.any(String), type: expect.any(String) } });
      expect(verdict.status).toBe(data.includes('overloaded_error') ? 529 : 500);
    },
  );
});
