// Which pass-through calls are metered (a family's own chat call to a target of that family), which
// are read in a family's own dialect (its chat calls and token counts, to any target), and the
// model such a call names in its path: the ID as the client sent it, percent-encoded or not; an
// escape that is no escape is kept as written, never thrown on.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { planConfig } from '../../compiler/config/plan.ts';
import { newRequestRecord } from '../../runtime/core/request-record.ts';
import { meteredPassThrough, ownAnswerReading, passThroughDialect, pathModel } from '../../runtime/pipeline/metered-pass-through.ts';
import { newExchange } from '../../runtime/pipeline/new-exchange.ts';
import { EVERY_ROUTING_HEADER, gatewayOptions } from '../../runtime/pipeline/options.ts';
import { requestedModel } from '../../runtime/pipeline/request-model.ts';

const PLAN = planConfig({ provider: 'openai', api_key: 'sk-test' }, 'plain');

/** A pass-through exchange (no route of its own: handler null) for `method` and `upstreamPath` (the path after /v1). */
function passThrough(method: 'POST' | 'GET', upstreamPath: string, body: object = {}) {
  return newExchange({
    source: 'http', handler: null, operationId: 'passThroughPost', method, upstreamPath, pathname: `/v1${upstreamPath}`,
    rawBody: Buffer.from(JSON.stringify(body)),
    options: gatewayOptions({}, { traceId: 't', metadata: {}, requestTimeoutMs: null, forwardHeaders: [], cacheForceRefresh: false, cacheNamespace: null }, { forwardedHeaders: [], checkHeaders: [], optionReaders: null, routingHeaders: EVERY_ROUTING_HEADER, adapterSetHeaders: new Set() }),
    plan: PLAN, caller: null, record: newRequestRecord('t', method, `/v1${upstreamPath}`), signal: new AbortController().signal, readJson: () => Promise.resolve(body),
  });
}

const GENERATE = (model: string, verb: string) => `/projects/p/locations/us-central1/publishers/google/models/${model}:${verb}`;

describe('meteredPassThrough', () => {
  it('meters a family\'s own chat call to a target of that family only, with or without a query', () => {
    const cases: Array<[string, string, string, string | null]> = [
      ['POST', '/messages', 'anthropic', 'messages'],
      ['POST', '/messages?beta=true', 'anthropic', 'messages'],
      ['POST', '/messages/count_tokens', 'anthropic', null],
      // Every target answers the messages API's create call in its shapes: Claude's hosts as itself, the others as a chat completion.
      ['POST', '/messages', 'vendor', 'messages'],
      ['POST', '/messages?beta=true', 'cloudc', 'messages'],
      ['POST', '/messages', 'cloudb', 'messages'],
      ['POST', '/messages/count_tokens', 'cloudc', null],
      // Claude's rawPredict on cloud B; not another publisher's, nor its count.
      ['POST', '/projects/p/locations/us-east5/publishers/anthropic/models/claude-3-7-sonnet@20250219:rawPredict', 'cloudb', 'messages'],
      ['POST', '/projects/p/locations/us-east5/publishers/anthropic/models/claude-3-7-sonnet@20250219:streamRawPredict', 'cloudb', 'messages'],
      ['POST', '/projects/p/locations/us-east5/publishers/anthropic/models/claude-3-7-sonnet@20250219:rawPredict', 'vendor', null],
      ['POST', '/projects/p/locations/us-east5/publishers/anthropic/models/count-tokens:rawPredict', 'cloudb', null],
      ['GET', '/messages', 'anthropic', null],
      ['POST', GENERATE('gemini-2.0-flash', 'generateContent'), 'cloudb', 'generateContent'],
      ['POST', GENERATE('gemini-2.0-flash', 'streamGenerateContent?alt=sse'), 'cloudb', 'generateContent'],
      ['POST', '/projects/p/locations/l/endpoints/123:generateContent', 'cloudb', 'generateContent'],
      ['POST', GENERATE('gemini-2.0-flash', 'countTokens'), 'cloudb', null],
      ['POST', '/model/amazon.nova-lite-v1%3A0/count-tokens', 'cloudc', null],
      ['POST', GENERATE('gemini-2.0-flash', 'generateContent'), 'anthropic', null],
      ['POST', '/model/anthropic.claude-3-7-sonnet-20250219-v1%3A0/converse', 'cloudc', 'converse'],
      ['POST', '/model/amazon.nova-lite-v1%3A0/converse-stream', 'cloudc', 'converse'],
      ['POST', '/model/us.anthropic.claude-3-7-sonnet-20250219-v1%3A0/invoke', 'cloudc', 'messages'],
      ['POST', '/model/anthropic.claude-3-7-sonnet-20250219-v1%3A0/invoke-with-response-stream', 'cloudc', 'messages'],
      // Another model's invoke: its vendor's own format, metered by the counts the service reports beside it.
      ['POST', '/model/amazon.titan-text-express-v1/invoke', 'cloudc', 'invoke'],
      ['POST', '/model/meta.llama3-70b-instruct-v1%3A0/invoke-with-response-stream', 'cloudc', 'invoke'],
      ['POST', '/model/amazon.titan-text-express-v1/invoke', 'anthropic', null],
      ['POST', '/model/anthropic.claude-3-7-sonnet-20250219-v1%3A0/converse', 'cloudb', null],
      // Cloud B's embeddings: a text embedding model's :predict; an image model's, the multimodal embedding's, an endpoint's are not.
      ['POST', GENERATE('text-embedding-005', 'predict'), 'cloudb', 'predict'],
      ['POST', GENERATE('gemini-embedding-001', 'predict'), 'cloudb', 'predict'],
      ['POST', GENERATE('textembedding-gecko@003', 'predict'), 'cloudb', 'predict'],
      ['POST', GENERATE('text-embedding-005', 'predict'), 'vendor', null],
      ['POST', GENERATE('multimodalembedding@001', 'predict'), 'cloudb', null],
      // Its image generation: an Imagen model's :predict, metered by the images it answers.
      ['POST', GENERATE('imagen-3.0-generate-002', 'predict'), 'cloudb', 'imagePredict'],
      ['POST', GENERATE('imagen-3.0-generate-002', 'predict'), 'vendor', null],
      ['POST', '/projects/p/locations/l/endpoints/123:predict', 'cloudb', null],
    ];
    for (const [method, path, provider, dialect] of cases) expect(meteredPassThrough(passThrough(method as 'POST' | 'GET', path), provider), `${method} ${path} to ${provider}`).toBe(dialect);
  });
});

describe('the dialect a pass-through request is read in', () => {
  it('is the family\'s own chat call\'s or its token count\'s, whatever the target; its answer is one without text (a count\'s, cloud B\'s :predict\'s) only from its family', () => {
    const cases: Array<[string, string, string | null, string, string | null]> = [
      ['POST', '/messages', 'messages', 'anthropic', null],
      ['POST', '/messages/count_tokens', 'messages', 'anthropic', 'counts'],
      ['POST', '/messages/count_tokens?beta=true', 'messages', 'vendor', null],
      ['POST', '/messages/count_tokens', 'messages', 'cloudc', 'counts'],
      ['POST', '/messages/count_tokens', 'messages', 'cloudb', 'counts'],
      ['POST', '/projects/p/locations/us-east5/publishers/anthropic/models/count-tokens:rawPredict', 'messages', 'cloudb', 'counts'],
      ['POST', '/projects/p/locations/us-east5/publishers/anthropic/models/claude-3-7-sonnet@20250219:streamRawPredict', 'messages', 'cloudb', null],
      ['POST', GENERATE('gemini-2.0-flash', 'countTokens'), 'generateContent', 'cloudb', 'counts'],
      ['POST', GENERATE('gemini-2.0-flash', 'countTokens'), 'generateContent', 'anthropic', null],
      ['POST', '/model/anthropic.claude-3-7-sonnet-20250219-v1%3A0/converse', 'converse', 'cloudc', null],
      ['POST', '/model/anthropic.claude-3-7-sonnet-20250219-v1%3A0/count-tokens', 'claudeCount', 'cloudc', 'counts'],
      ['POST', '/model/amazon.nova-lite-v1%3A0/count-tokens', 'converseCount', 'cloudc', 'counts'],
      ['POST', '/model/amazon.nova-lite-v1%3A0/count-tokens', 'converseCount', 'anthropic', null],
      ['POST', '/model/anthropic.claude-3-7-sonnet-20250219-v1%3A0/invoke', 'messages', 'anthropic', null],
      // Another model's invoke: read in its vendor's format where the gateway knows it.
      ['POST', '/model/amazon.titan-text-express-v1/invoke', 'titan', 'cloudc', null],
      ['POST', '/model/us.amazon.nova-pro-v1%3A0/invoke-with-response-stream', 'nova', 'openai', null],
      ['POST', '/model/amazon.nova-canvas-v1%3A0/invoke', null, 'cloudc', null],
      ['POST', '/model/meta.llama3-70b-instruct-v1%3A0/invoke', 'llama', 'cloudc', null],
      ['POST', '/model/mistral.mixtral-8x7b-instruct-v0%3A1/invoke', 'mistral', 'cloudc', null],
      ['POST', '/model/mistral.mistral-large-2407-v1%3A0/invoke', 'mistral', 'cloudc', null],
      ['POST', '/model/mistral.mistral-large-3-675b-instruct/invoke', null, 'cloudc', null],
      ['POST', '/model/openai.gpt-oss-120b-1%3A0/invoke-with-response-stream', 'openaiChat', 'cloudc', null],
      ['POST', '/model/us.deepseek.r1-v1%3A0/invoke', 'deepseek', 'cloudc', null],
      ['POST', '/model/cohere.command-r-v1%3A0/invoke', null, 'cloudc', null],
      // Cloud B's :predict answers vectors or images: no text either.
      ['POST', GENERATE('text-embedding-005', 'predict'), 'predict', 'cloudb', 'vectors'],
      ['POST', GENERATE('imagen-3.0-generate-002', 'predict'), 'imagePredict', 'cloudb', 'images'],
      ['POST', GENERATE('imagen-3.0-generate-002', 'predict'), 'imagePredict', 'vendor', null],
      ['POST', GENERATE('veo-2.0-generate-001', 'predict'), null, 'cloudb', null],
      ['POST', '/threads/t1/messages', null, 'vendor', null],
      ['GET', '/messages', null, 'anthropic', null],
    ];
    for (const [method, path, dialect, provider, textless] of cases) {
      const x = passThrough(method as 'POST' | 'GET', path);
      expect(passThroughDialect(x), `${method} ${path}`).toBe(dialect);
      const reading = ownAnswerReading(x, provider);
      expect(reading === 'counts' || reading === 'vectors' || reading === 'images' ? reading : null, `${method} ${path} to ${provider}`).toBe(textless);
    }
  });
});

describe('how a pass-through answer is read', () => {
  it('in the family\'s own chat call\'s dialect, or another model\'s invoke format the gateway reads, or as the answer without text it is, when a target of that family answered', () => {
    const cases: Array<[string, string, string | null]> = [
      ['/messages', 'anthropic', 'messages'],
      ['/messages', 'openai', 'messages'],
      ['/messages', 'cloudc', 'messages'],
      ['/messages/count_tokens', 'anthropic', 'counts'],
      [GENERATE('gemini-2.0-flash', 'streamGenerateContent?alt=sse'), 'cloudb', 'generateContent'],
      [GENERATE('text-embedding-005', 'predict'), 'cloudb', 'vectors'],
      [GENERATE('imagen-4.0-generate-001', 'predict'), 'cloudb', 'images'],
      [GENERATE('imagen-4.0-generate-001', 'predict'), 'openai', null],
      ['/model/amazon.nova-lite-v1%3A0/converse', 'cloudc', 'converse'],
      ['/model/anthropic.claude-3-7-sonnet-20250219-v1%3A0/invoke', 'cloudc', 'messages'],
      ['/model/amazon.nova-lite-v1%3A0/invoke', 'cloudc', 'nova'],
      ['/model/amazon.titan-text-premier-v1%3A0/invoke-with-response-stream', 'cloudc', 'titan'],
      ['/model/meta.llama3-8b-instruct-v1%3A0/invoke', 'cloudc', 'llama'],
      ['/model/meta.llama3-8b-instruct-v1%3A0/invoke', 'anthropic', null],
      ['/model/mistral.mistral-7b-instruct-v0%3A2/invoke', 'cloudc', 'mistral'],
      ['/model/amazon.titan-embed-text-v2%3A0/invoke', 'cloudc', null],
      ['/model/ai21.jamba-1-5-large-v1%3A0/invoke', 'cloudc', null],
      ['/model/amazon.nova-lite-v1%3A0/count-tokens', 'cloudc', 'counts'],
    ];
    for (const [path, provider, reading] of cases) expect(ownAnswerReading(passThrough('POST', path), provider), `${path} to ${provider}`).toBe(reading);
  });
});

describe('the model a pass-through call names in its path', () => {
  const modelId = fc.string({ minLength: 1, maxLength: 40, unit: 'grapheme' });
  test.prop([modelId, fc.constantFrom('generateContent', 'streamGenerateContent?alt=sse', 'predict', 'converse', 'converse-stream', 'invoke', 'invoke-with-response-stream')])(
    'is the ID the client sent, percent-encoded',
    (id, verb) => {
      const encoded = encodeURIComponent(id);
      const path = verb.includes('GenerateContent') || verb === 'generateContent' || verb === 'predict' ? GENERATE(encoded, verb) : `/model/${encoded}/${verb}`;
      expect(pathModel(passThrough('POST', path))).toBe(id);
      // The body's model, when it names one, comes first.
      expect(requestedModel(passThrough('POST', path, { model: 'from-body' }))).toBe('from-body');
      expect(requestedModel(passThrough('POST', path))).toBe(id);
    },
  );

  it('keeps an escape that is no escape as written, and names nothing for other paths', () => {
    expect(pathModel(passThrough('POST', '/model/bad%E0%A4model/converse'))).toBe('bad%E0%A4model');
    expect(pathModel(passThrough('POST', '/models/gpt-4o'))).toBeNull();
    expect(pathModel(passThrough('POST', '/messages'))).toBeNull();
  });
});
