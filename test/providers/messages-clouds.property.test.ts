// The messages API's create call as a Claude model's invoke on cloud C (messages-invoke.ts) and its
// rawPredict on cloud B (messages-raw-predict.ts): the body goes as it came but for the model (into
// the path), the API version and, on cloud C, `stream` (the invoke's name); the invoke stream's
// `chunk` events come back as the messages API's server-sent events, however the bytes are chunked,
// and an exception or a stream cut before message_stop ends it with the API's `error` event.
import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { GatewayError } from '../../runtime/core/errors.ts';
import { BEDROCK_ANTHROPIC_VERSION, InvokeMessagesStream, messagesCountOf as invokeCountOf, messagesInvokeOf } from '../../runtime/providers/cloudc/messages-invoke.ts';
import { messagesError } from '../../runtime/providers/shared/messages-call.ts';
import { messagesCountOf as rawPredictCountOf, messagesRawPredictOf, messagesRawPredictResponse, VERTEX_ANTHROPIC_VERSION } from '../../runtime/providers/cloudb/messages-raw-predict.ts';
import { statusOfException } from '../../runtime/providers/cloudc/response.ts';
import { eventMessage, exceptionMessage } from '../mocks/cloudc/index.ts';
import { cutAt } from '../support/cut.ts';
import { thrownBy } from './adapter-calls.ts';

const claudeModel = fc.constantFrom('anthropic.claude-3-7-sonnet-20250219-v1:0', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'global.anthropic.claude-opus-4-6-v1', 'arn:aws:bedrock:us-east-1::foundation-model/anthropic.claude-3-5-haiku-20241022-v1:0');
const member = fc.string({ minLength: 1, maxLength: 12 }).filter((name) => !['model', 'stream', 'anthropic_version', 'anthropic_beta', '__proto__'].includes(name));
// As JSON carries them (-0 is 0 there).
const rest = fc.dictionary(member, fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.parse(JSON.stringify(value)) as unknown), { maxKeys: 5 });
const beta = fc.stringMatching(/^[a-z0-9-]{1,30}$/);

/** The GatewayError `run` throws (none is a failure). */
function thrown(run: () => unknown): GatewayError {
  const error = thrownBy(run);
  if (error === null) throw new Error('nothing was thrown');
  return error;
}

describe('the invoke of a messages create call', () => {
  test.prop([claudeModel, fc.option(fc.boolean(), { nil: undefined }), rest, fc.constantFrom('/messages', '/messages?beta=true'), fc.array(beta, { maxLength: 3 })])(
    'is the body without model and stream, with the API version and the forwarded betas, sent to the model\'s invoke',
    (model, stream, others, path, betas) => {
      const body = { model, ...(stream === undefined ? {} : { stream }), ...others };
      const invoke = messagesInvokeOf(path, body, betas.length === 0 ? undefined : ` ${betas.join(' ,')} `, 'cloudc');
      expect(invoke.streamed).toBe(stream === true);
      expect(invoke.path).toBe(`/model/${encodeURIComponent(model)}/${stream === true ? 'invoke-with-response-stream' : 'invoke'}`);
      expect(JSON.parse(invoke.body.toString())).toEqual({ anthropic_version: BEDROCK_ANTHROPIC_VERSION, ...(betas.length === 0 ? {} : { anthropic_beta: betas }), ...others });
    },
  );

  test.prop([claudeModel, rest, fc.option(fc.integer({ min: 1, max: 64000 }), { nil: undefined }), fc.constantFrom('/messages/count_tokens', '/messages/count_tokens?beta=true')])(
    'counts on CountTokens the invoke body the create call would send, max_tokens 1 where the count names none',
    (model, others, maxTokens, path) => {
      const count = invokeCountOf(path, { model, ...others, ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }) }, undefined, 'cloudc');
      expect(count.path).toBe(`/model/${encodeURIComponent(model)}/count-tokens`);
      const wrapped = JSON.parse(count.body.toString()) as { input: { invokeModel: { body: string } } };
      expect(Object.keys(wrapped)).toEqual(['input']);
      expect(JSON.parse(Buffer.from(wrapped.input.invokeModel.body, 'base64').toString())).toEqual({ anthropic_version: BEDROCK_ANTHROPIC_VERSION, max_tokens: maxTokens ?? 1, ...others });
    },
  );

  test.prop([fc.string({ maxLength: 40 }).filter((model) => !model.includes('anthropic.claude'))])('refuses a model that is no Claude model ID, at /model', (model) => {
    const error = thrown(() => messagesInvokeOf('/messages', { model, max_tokens: 1, messages: [] }, undefined, 'cloudc'));
    expect(error.code).toBe('invalid_request_body');
    expect(error.param).toBe('/model');
  });

  test.prop([fc.stringMatching(/^[a-z_]{1,10}=[a-z0-9]{0,6}$/).filter((query) => query !== 'beta=true')])('refuses a query the invoke\'s URL has no place for, naming it', (query) => {
    const error = thrown(() => messagesInvokeOf(`/messages?${query}`, {}, undefined, 'cloudc'));
    expect(error.code).toBe('unsupported_parameter');
    expect(error.param).toBe(query.split('=')[0]);
  });

  test.prop([fc.oneof(fc.constant(undefined), fc.jsonValue().filter((v) => v === null || typeof v !== 'object' || Array.isArray(v)))])('refuses a body that is no JSON object (none, or another JSON value)', (body) => {
    expect(thrown(() => messagesInvokeOf('/messages', body, undefined, 'cloudc')).code).toBe('invalid_request_body');
  });
});

describe('the rawPredict of a messages create call', () => {
  const vertexModel = fc.constantFrom('claude-3-7-sonnet@20250219', 'claude-sonnet-4-5@20250929', 'claude-opus-4-1', 'claude-haiku-4-5@20251001');
  test.prop([vertexModel, fc.option(fc.boolean(), { nil: undefined }), rest, fc.constantFrom('/messages', '/messages?beta=true')])(
    'is the body without model, with the API version and `"stream": true` for a stream, sent to the model\'s rawPredict or streamRawPredict',
    (model, stream, others, path) => {
      const body = { model, ...(stream === undefined ? {} : { stream }), ...others };
      const predict = messagesRawPredictOf(path, body, 'cloudb');
      expect(predict.streamed).toBe(stream === true);
      expect(predict.path).toBe(`/publishers/anthropic/models/${model}:${stream === true ? 'streamRawPredict' : 'rawPredict'}`);
      expect(JSON.parse(predict.body.toString())).toEqual({ anthropic_version: VERTEX_ANTHROPIC_VERSION, ...others, ...(stream === true ? { stream: true } : {}) });
    },
  );

  test.prop([vertexModel, rest])('counts on the count-tokens resource, the body naming the model', (model, others) => {
    const count = rawPredictCountOf('/messages/count_tokens', { model, ...others }, 'cloudb');
    expect(count.path).toBe('/publishers/anthropic/models/count-tokens:rawPredict');
    expect(JSON.parse(count.body.toString())).toEqual({ anthropic_version: VERTEX_ANTHROPIC_VERSION, model, ...others });
  });

  test.prop([fc.string({ maxLength: 40 }).filter((model) => !model.startsWith('claude-'))])('refuses a model that is no Claude model of cloud B, at /model', (model) => {
    const error = thrown(() => messagesRawPredictOf('/messages', { model, max_tokens: 1, messages: [] }, 'cloudb'));
    expect(error.code).toBe('invalid_request_body');
    expect(error.param).toBe('/model');
  });

  test.prop([fc.integer({ min: 400, max: 599 }), fc.string({ minLength: 1, maxLength: 40 }), fc.constantFrom('INVALID_ARGUMENT', 'RESOURCE_EXHAUSTED', 'UNAVAILABLE')])(
    'answers the platform\'s errors in the messages API\'s shape, and Claude\'s own as they came',
    (status, said, name) => {
      const mapping = messagesRawPredictResponse('cloudb', () => undefined);
      expect(mapping.error!(status, Buffer.from(JSON.stringify({ error: { code: status, message: said, status: name } })), {})).toEqual(messagesError(status, `${name}: ${said}`));
      const claudes = { type: 'error', error: { type: 'overloaded_error', message: said } };
      expect(mapping.error!(status, Buffer.from(JSON.stringify(claudes)), {})).toEqual(claudes);
    },
  );
});

/** One event of the messages API's stream: its type and some members. */
const streamEvent = fc.record({ type: fc.constantFrom('message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'ping'), data: rest });
type StreamEvent = { type: string; [member: string]: unknown };

function chunkOf(event: StreamEvent, metrics = false): Buffer {
  const carried = metrics ? { ...event, 'amazon-bedrock-invocationMetrics': { inputTokenCount: 3, outputTokenCount: 4 } } : event;
  return eventMessage('chunk', { bytes: Buffer.from(JSON.stringify(carried)).toString('base64'), p: 'abcdef' });
}

/** The server-sent events of a text: `[event name, parsed data]`. */
function sseEvents(text: string): Array<[string, unknown]> {
  return text.split('\n\n').filter((frame) => frame !== '').map((frame) => {
    const [name, data] = frame.split('\n');
    return [name!.slice('event: '.length), JSON.parse(data!.slice('data: '.length))];
  });
}

function run(wire: Buffer, fractions: number[]): string {
  const mapper = new InvokeMessagesStream();
  const out = cutAt(wire, fractions.map((f) => Math.floor(f * wire.length))).map((chunk) => mapper.push(chunk)).join('');
  return out + mapper.end();
}

const fractions = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 10 });

describe('the invoke stream as the messages API\'s events', () => {
  test.prop([fc.array(streamEvent, { maxLength: 6 }), fractions])('gives each chunk\'s event under its type, the service\'s metrics left out, however the bytes are cut', (events, cuts) => {
    const sent: StreamEvent[] = [...events.map(({ type, data }) => ({ ...data, type })), { type: 'message_stop' }];
    const wire = Buffer.concat(sent.map((event, i) => chunkOf(event, i === sent.length - 1)));
    expect(sseEvents(run(wire, cuts))).toEqual(sent.map((event) => [event.type, event]));
  });

  test.prop([fc.array(streamEvent, { maxLength: 4 }), fc.constantFrom('throttlingException', 'modelStreamErrorException', 'internalServerException', 'serviceUnavailableException'), fc.string({ minLength: 1, maxLength: 30 }), fractions])(
    'ends with the API\'s error event at an exception, nothing after it',
    (events, exception, said, cuts) => {
      const before: StreamEvent[] = events.map(({ type, data }) => ({ ...data, type }));
      const wire = Buffer.concat([...before.map((event) => chunkOf(event)), exceptionMessage(exception, said), chunkOf({ type: 'message_stop' })]);
      const got = sseEvents(run(wire, cuts));
      expect(got.slice(0, -1)).toEqual(before.map((event) => [event.type, event]));
      expect(got.at(-1)).toEqual(['error', messagesError(statusOfException(exception), `${exception}: ${said}`)]);
    },
  );

  test.prop([fc.array(streamEvent, { maxLength: 4 }), fractions])('ends a stream cut before message_stop with the API\'s error event', (events, cuts) => {
    const sent: StreamEvent[] = events.map(({ type, data }) => ({ ...data, type }));
    const got = sseEvents(run(Buffer.concat(sent.map((event) => chunkOf(event))), cuts));
    expect(got.at(-1)?.[0]).toBe('error');
    expect((got.at(-1)?.[1] as { error: { type: string } }).error.type).toBe('api_error');
  });
});
