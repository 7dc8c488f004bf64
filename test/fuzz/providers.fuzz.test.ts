// The provider fuzzer: a provider that misbehaves on command (stalls, resets, garbage, huge lines,
// broken framing, statuses HTTP does not have), chosen per request by fast-check, behind a fallback
// to a healthy mock, or behind output guardrails that read and rewrite its answers (of a plausible
// shape with members of any type), or through a realtime session it opened and then fills with
// frames of any content. Whatever it does: the gateway answers (no hang), never with its own 500, every error
// body is well formed, the event loop never stalls past 100 ms, and memory stays bounded.
import { fc } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { type E2E, GATEWAY_KEY, startE2E, target } from '../e2e/harness.ts';
import { encodeFrame, OPCODE } from '../mocks/http/web-socket.ts';
import { httpAnswer, type RawAnswer, type RawProvider, startRawProvider } from '../mocks/http/raw-provider.ts';
import { liveHeap } from './request-fuzz.ts';
import { watchStalls } from './stall-watch.ts';
import { eventMessage, exceptionMessage } from '../mocks/cloudc/event-stream.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 80);
// A stalled provider holds a case for the 300 ms headers timeout (an eighth of the cases), and some
// fall back after it: `npm run fuzz -- --runs N` must not time out for the number of cases alone.
const CASE_BUDGET_MS = 250;
const CHAT = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });

/** Answers of a plausible shape with members of any type: what output guardrails read and rewrite (choices, messages, reasoning, log probabilities). */
const oddMember = fc.oneof(fc.json({ maxDepth: 2 }).map((j) => JSON.parse(j) as unknown), fc.constant('mail jane.doe@example.com'));
const oddChoice = fc.record({ index: oddMember, message: fc.oneof(oddMember, fc.record({ role: fc.constant('assistant'), content: oddMember, reasoning_content: oddMember, refusal: oddMember, audio: oddMember })), delta: oddMember, text: oddMember, logprobs: oddMember }, { requiredKeys: [] });
/** Usage and model as the log, the metrics and the limits read them: counts of any size or sign, names of any text. */
const oddCount = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(1e308, -1, 2 ** 53 + 1), oddMember);
const oddDetails = fc.oneof(oddMember, fc.record({ cached_tokens: oddCount, audio_tokens: oddCount, cache_creation_tokens: oddCount, image_tokens: oddCount }, { requiredKeys: [] }));
const oddUsage = fc.oneof(oddMember, fc.record({
  type: fc.oneof(fc.constantFrom('tokens', 'duration'), oddMember), seconds: oddCount,
  prompt_tokens: oddCount, completion_tokens: oddCount, total_tokens: oddCount, input_tokens: oddCount, output_tokens: oddCount,
  prompt_tokens_details: oddDetails, input_tokens_details: oddDetails, input_token_details: oddDetails, completion_tokens_details: fc.oneof(oddMember, fc.record({ audio_tokens: oddCount })),
}, { requiredKeys: [] }));
const oddModel = fc.oneof(oddMember, fc.constantFrom('gpt-4o-mini', 'm\n# HELP x', 'a"b\\', '\u0000', 'x'.repeat(300)));
const oddAnswer = fc.record({ model: oddModel, usage: oddUsage, choices: fc.oneof(oddMember, fc.array(fc.oneof(oddChoice, oddMember), { maxLength: 3 })), text: oddMember, segments: oddMember }, { requiredKeys: [] });
// Transcript, image and speech events too: their last one carries the usage the log reads.
const oddEvent = fc.record({ type: fc.constantFrom('transcript.text.delta', 'transcript.text.done', 'image_generation.partial_image', 'image_generation.completed', 'speech.audio.delta', 'speech.audio.done'), delta: oddMember, text: oddMember, b64_json: oddMember, usage: oddUsage }, { requiredKeys: ['type'] });
// An error as an event, first or later (a proxy's `data: {"error": …}`), whose members are any JSON.
const oddError = fc.record({ error: fc.oneof(oddMember, fc.record({ message: oddMember, type: oddMember, code: oddMember, status: oddMember }, { requiredKeys: [] })) });
const oddStream = fc.array(fc.oneof(oddAnswer, oddEvent, oddError), { maxLength: 4 })
  .map((events): RawAnswer => ({ bytes: `HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')}data: [DONE]\n\n` }));

/** Messages-API answers and events with members of any type: what the gateway translates into chat. */
const oddBlock = fc.record({ type: fc.constantFrom('text', 'thinking', 'tool_use', 'redacted_thinking', 'odd'), text: oddMember, thinking: oddMember, id: oddMember, name: oddMember, input: oddMember }, { requiredKeys: ['type'] });
const oddMessage = fc.record({ id: oddMember, type: fc.constant('message'), role: oddMember, model: oddMember, content: fc.oneof(oddMember, fc.array(fc.oneof(oddBlock, oddMember), { maxLength: 3 })), stop_reason: oddMember, usage: oddMember }, { requiredKeys: ['type'] });
const oddMessagesEvent = fc.record({ type: fc.constantFrom('message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop', 'ping', 'error'), message: fc.oneof(oddMessage, oddMember), index: oddMember, content_block: fc.oneof(oddBlock, oddMember), delta: fc.oneof(fc.record({ type: fc.constantFrom('text_delta', 'thinking_delta', 'input_json_delta'), text: oddMember, thinking: oddMember, partial_json: oddMember, stop_reason: oddMember }), oddMember), usage: oddMember, error: oddMember }, { requiredKeys: ['type'] });
const oddMessagesStream = fc.array(oddMessagesEvent, { maxLength: 5 })
  .map((events): RawAnswer => ({ bytes: `HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n${events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join('')}` }));

/**
 * Cloud C's binary event stream with events of any content: converse's (a metadata event's usage of
 * any shape), an invoke stream's chunks carrying messages events, exceptions; cut anywhere or not.
 */
const oddConverseUsage = fc.oneof(oddMember, fc.record({ inputTokens: oddCount, outputTokens: oddCount, totalTokens: oddCount, cacheReadInputTokens: oddCount, cacheWriteInputTokens: oddCount }, { requiredKeys: [] }));
const oddEventMessage = fc.oneof(
  fc.record({ type: fc.constantFrom('messageStart', 'contentBlockStart', 'contentBlockDelta', 'contentBlockStop', 'messageStop', 'metadata'), contentBlockIndex: fc.oneof(fc.nat(3), oddMember), delta: fc.oneof(oddMember, fc.record({ text: oddMember }), fc.record({ reasoningContent: fc.record({ text: oddMember }) })), usage: oddConverseUsage, stopReason: oddMember })
    .map(({ type, ...payload }) => eventMessage(type, payload)),
  oddMessagesEvent.map((event) => eventMessage('chunk', { bytes: Buffer.from(JSON.stringify(event)).toString('base64') })),
  fc.constantFrom('chunk', 'metadata').map((type) => eventMessage(type, { bytes: 'not base64 of JSON %%%' })),
  // Another model's invoke stream: chunks of its vendor's own format (Titan's, Llama's, Mistral's in either form, Nova's one-member converse events), the service's counts of any shape.
  fc.record({
    outputText: oddMember, index: fc.oneof(fc.nat(2), oddMember), generation: oddMember, outputs: fc.oneof(oddMember, fc.array(fc.oneof(oddMember, fc.record({ text: oddMember, stop_reason: oddMember }, { requiredKeys: [] })), { maxLength: 3 })),
    contentBlockDelta: fc.oneof(oddMember, fc.record({ contentBlockIndex: fc.oneof(fc.nat(3), oddMember), delta: fc.oneof(oddMember, fc.record({ text: oddMember })) }, { requiredKeys: [] })),
    choices: fc.oneof(oddMember, fc.array(fc.oneof(oddMember, fc.record({
      index: fc.oneof(fc.nat(2), oddMember),
      delta: fc.oneof(oddMember, fc.record({ content: oddMember, reasoning_content: oddMember, refusal: oddMember }, { requiredKeys: [] })),
      message: fc.oneof(oddMember, fc.record({ role: oddMember, content: oddMember }, { requiredKeys: [] })),
      finish_reason: oddMember, stop_reason: oddMember,
    }, { requiredKeys: [] })), { maxLength: 3 })),
    'amazon-bedrock-invocationMetrics': fc.oneof(oddMember, fc.record({ inputTokenCount: oddCount, outputTokenCount: oddCount, cacheReadInputTokenCount: oddCount }, { requiredKeys: [] })),
  }, { requiredKeys: [] })
    .map((chunk) => eventMessage('chunk', { bytes: Buffer.from(JSON.stringify(chunk)).toString('base64') })),
  fc.constant(exceptionMessage('throttlingException', 'slow down')),
);
const oddEventStream = fc.tuple(fc.array(oddEventMessage, { maxLength: 5 }), fc.option(fc.nat()))
  .map(([messages, cut]): RawAnswer => {
    const body = Buffer.concat(messages);
    return { bytes: Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\ncontent-type: application/vnd.amazon.eventstream\r\n\r\n'), cut === null ? body : body.subarray(0, cut % (body.length + 1))]) };
  });

/** generateContent's answers (candidates and their parts) and converse's, with members of any type: what guardrails read in their own shapes. */
const oddPart = fc.oneof(oddMember, fc.record({ text: oddMember, thought: oddMember, functionCall: oddMember }, { requiredKeys: [] }));
const oddCandidate = fc.record({ index: fc.oneof(fc.nat(2), oddMember), content: fc.oneof(oddMember, fc.record({ role: oddMember, parts: fc.oneof(oddMember, fc.array(oddPart, { maxLength: 3 })) })), finishReason: oddMember, logprobsResult: oddMember }, { requiredKeys: [] });
const oddGenerateContent = fc.record({ candidates: fc.oneof(oddMember, fc.array(fc.oneof(oddCandidate, oddMember), { maxLength: 3 })), usageMetadata: oddMember, modelVersion: oddModel }, { requiredKeys: [] });
const oddConverseAnswer = fc.record({
  output: fc.oneof(oddMember, fc.record({ message: fc.oneof(oddMember, fc.record({ role: oddMember, content: fc.oneof(oddMember, fc.array(fc.oneof(oddMember, fc.record({ text: oddMember, reasoningContent: fc.oneof(oddMember, fc.record({ reasoningText: oddMember })), toolUse: oddMember }, { requiredKeys: [] })), { maxLength: 3 })) })) })),
  usage: oddConverseUsage, stopReason: oddMember,
}, { requiredKeys: [] });
const oddOwnAnswers = fc.oneof(
  oddGenerateContent.map((answer): RawAnswer => ({ bytes: httpAnswer(200, JSON.stringify(answer)) })),
  fc.array(oddGenerateContent, { maxLength: 4 }).map((answers): RawAnswer => ({ bytes: httpAnswer(200, JSON.stringify(answers)) })),
  fc.array(oddGenerateContent, { maxLength: 4 }).map((events): RawAnswer => ({ bytes: `HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n${events.map((e) => `data: ${JSON.stringify(e)}\r\n\r\n`).join('')}` })),
  oddConverseAnswer.map((answer): RawAnswer => ({ bytes: httpAnswer(200, JSON.stringify(answer)) })),
);

/**
 * A provider that accepts a WebSocket handshake (or answers 101 to a request that asked for none) and
 * then sends frames of any content: realtime events whose usage and model are of any shape (what the
 * log reads a session's usage from), fragments, control frames, bytes that are no framing at all;
 * cut anywhere or not.
 */
const oddRealtimeEvent = fc.oneof(
  fc.record({ type: fc.constant('response.done'), response: fc.oneof(oddMember, fc.record({ usage: fc.oneof(oddUsage, fc.record({ input_tokens: oddCount, output_tokens: oddCount, total_tokens: oddCount, input_token_details: fc.oneof(oddDetails, fc.record({ audio_tokens: oddCount, cached_tokens: oddCount, cached_tokens_details: oddDetails }, { requiredKeys: [] })), output_token_details: oddDetails }, { requiredKeys: [] })) }, { requiredKeys: [] })) }),
  // A session's settings (a transcription session's too: its type, or the beta's events), read for the models.
  fc.record({ type: fc.constantFrom('session.created', 'session.updated', 'transcription_session.created', 'transcription_session.updated'), session: fc.oneof(oddMember, fc.record({ type: fc.oneof(fc.constantFrom('realtime', 'transcription'), oddMember), model: oddModel, audio: fc.oneof(oddMember, fc.record({ input: fc.record({ transcription: fc.oneof(oddMember, fc.record({ model: oddModel })) }) })), input_audio_transcription: fc.oneof(oddMember, fc.record({ model: oddModel })) }, { requiredKeys: [] })) }),
  // The input transcription's usage (tokens, or seconds), priced as its own model.
  fc.record({ type: fc.constant('conversation.item.input_audio_transcription.completed'), usage: oddUsage }),
  oddMember,
);
const oddFrame = fc.oneof(
  fc.tuple(oddRealtimeEvent, fc.boolean()).map(([event, fragmented]) => {
    const payload = Buffer.from(JSON.stringify(event) ?? 'null');
    return fragmented ? Buffer.concat([encodeFrame(OPCODE.text, payload.subarray(0, 3), false), encodeFrame(OPCODE.ping, Buffer.alloc(0)), encodeFrame(OPCODE.continuation, payload.subarray(3))]) : encodeFrame(OPCODE.text, payload);
  }),
  fc.uint8Array({ maxLength: 300 }).map((bytes) => encodeFrame(OPCODE.binary, Buffer.from(bytes))),
  fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.from(bytes)),
  // A frame that claims more than will ever come (2^40 bytes).
  fc.constant(Buffer.from([0x81, 0x7f, 0, 0, 0x01, 0, 0, 0, 0, 0, 0x7b])),
);
const oddRealtime = fc.tuple(fc.array(oddFrame, { maxLength: 5 }), fc.option(fc.nat()), fc.boolean())
  .map(([frames, cut, keepOpen]): RawAnswer => {
    const body = Buffer.concat(frames);
    const head = 'HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n';
    return { bytes: Buffer.concat([Buffer.from(head), cut === null ? body : body.subarray(0, cut % (body.length + 1))]), keepOpen };
  });

const misbehaviour: fc.Arbitrary<RawAnswer> = fc.oneof(
  oddOwnAnswers,
  oddRealtime,
  oddAnswer.map((answer): RawAnswer => ({ bytes: httpAnswer(200, JSON.stringify(answer)) })),
  oddStream,
  oddMessage.map((answer): RawAnswer => ({ bytes: httpAnswer(200, JSON.stringify(answer)) })),
  oddMessagesStream,
  oddEventStream,
  fc.constant<RawAnswer>({ stall: true }),
  fc.integer({ min: 0, max: 120 }).map((n): RawAnswer => ({ bytes: httpAnswer(200, '{"id":"chatcmpl-1","object":"chat.completion","choices":[]}').slice(0, n) })),
  fc.string({ maxLength: 200 }).map((junk): RawAnswer => ({ bytes: junk })),
  fc.constantFrom(99, 600, 999, 0).map((status): RawAnswer => ({ bytes: httpAnswer(status, '{}') })),
  fc.constant<RawAnswer>({ bytes: `HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\ndata: ${'x'.repeat(1024 * 1024)}` }),
  fc.constantFrom('application/json', 'text/event-stream', 'text/plain').map((type): RawAnswer => ({ bytes: `HTTP/1.1 200 OK\r\ncontent-type: ${type}\r\ntransfer-encoding: chunked\r\n\r\nZZZ\r\n` })),
  fc.constant<RawAnswer>({ bytes: httpAnswer(200, '<html>oops</html>') }),
  // An invoke answer's counts in its headers, of any value.
  fc.tuple(fc.constantFrom('14', '-1', '1e5', '99999999999999999999', 'abc', ' 7 ', ''), fc.constantFrom('3', 'x', '')).map(([input, output]): RawAnswer => ({
    bytes: `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nx-amzn-bedrock-input-token-count: ${input}\r\nx-amzn-bedrock-output-token-count: ${output}\r\ncontent-length: 17\r\n\r\n{"outputText":""}`,
  })),
  fc.constant<RawAnswer>({ bytes: httpAnswer(200, '{"id":"chatcmpl-1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}') }),
);

describe('a misbehaving provider', () => {
  let e2e: E2E;
  let raw: RawProvider;
  let next: RawAnswer = { stall: true };

  beforeAll(async () => {
    raw = await startRawProvider(() => next);
    e2e = await startE2E({ mocks: 1, jobs: true, env: { GATEWAY_UPSTREAM_HEADERS_TIMEOUT_MS: '300', GATEWAY_UPSTREAM_IDLE_TIMEOUT_MS: '300' } });
  });
  afterAll(async () => {
    await e2e?.close();
    await raw?.close();
  });

  it(`cannot hang, crash, stall or bloat the gateway (${RUNS} cases)`, { timeout: Math.max(120_000, RUNS * CASE_BUDGET_MS) }, async () => {
    const fallback = JSON.stringify({ strategy: { mode: 'fallback' }, targets: [{ ...target(0), custom_host: raw.baseURL }, target(0)] }).replaceAll('{{mock0}}', e2e.mocks[0].baseURL);
    const alone = JSON.stringify({ ...target(0), custom_host: raw.baseURL });
    // Output guardrails that read, rewrite and can deny: a stream is held, every answer parsed and judged.
    const guarded = JSON.stringify({ ...target(0), custom_host: raw.baseURL, output_guardrails: [{ id: 'pii', 'default.piiRedact': {} }, { id: 'no-secret', deny: true, 'default.contains': { words: ['secret'], operator: 'none' } }] });
    const configs: Record<string, string> = {
      fallback, alone, guarded,
      'guarded transcription': guarded,
      'guarded completions': guarded,
      // The Responses API emulated over chat on a route whose checks read text (its answer rebuilt from the chat's).
      'guarded responses': guarded,
      // Answers metered by the usage they report: images, speech as events.
      images: alone,
      speech: alone,
      cached: JSON.stringify({ ...target(0), custom_host: raw.baseURL, cache: { mode: 'simple' } }),
      // A provider whose answers the gateway translates (the messages API), with and without output checks.
      messages: JSON.stringify({ provider: 'anthropic', api_key: 'sk-ant-fuzz', custom_host: raw.baseURL }),
      'guarded messages': JSON.stringify({ provider: 'anthropic', api_key: 'sk-ant-fuzz', custom_host: raw.baseURL, output_guardrails: [{ id: 'pii', 'default.piiRedact': {} }] }),
      // The messages API's own call through the pass-through, its answers metered as the API reports usage.
      'messages passed through': JSON.stringify({ provider: 'anthropic', api_key: 'sk-ant-fuzz', custom_host: raw.baseURL }),
      // Cloud B's own generateContent through the pass-through, its answers metered as the API reports usage.
      'generateContent passed through': JSON.stringify({ provider: 'cloudb', api_key: 'ya29.fuzz', custom_host: raw.baseURL }),
      // Cloud C's own converse through the signed pass-through.
      'converse passed through': JSON.stringify({ provider: 'cloudc', api_key: 'bedrock-api-key-fuzz', cloudc_region: 'us-east-1', custom_host: raw.baseURL }),
      // A Claude model's invoke through cloud C's pass-through: the messages API's answers, a stream's in the event stream's chunks.
      'invoke passed through': JSON.stringify({ provider: 'cloudc', api_key: 'bedrock-api-key-fuzz', cloudc_region: 'us-east-1', custom_host: raw.baseURL }),
      // Another model's invoke through cloud C's pass-through: its vendor's own format, metered by the service's counts (headers, a stream's last chunk).
      'other invoke passed through': JSON.stringify({ provider: 'cloudc', api_key: 'bedrock-api-key-fuzz', cloudc_region: 'us-east-1', custom_host: raw.baseURL }),
      // Cloud B's embeddings through the pass-through: its predictions' token counts summed as the answer goes by.
      'predict passed through': JSON.stringify({ provider: 'cloudb', api_key: 'ya29.fuzz', custom_host: raw.baseURL }),
      // Claude's rawPredict through cloud B's pass-through: the messages API's answers and events.
      'rawPredict passed through': JSON.stringify({ provider: 'cloudb', api_key: 'ya29.fuzz', custom_host: raw.baseURL }),
      // The messages API's create call on cloud targets: a Claude model's invoke (its event stream rewritten into the API's events) and rawPredict.
      'messages on cloudc': JSON.stringify({ provider: 'cloudc', api_key: 'bedrock-api-key-fuzz', cloudc_region: 'us-east-1', custom_host: raw.baseURL, override_params: { model: 'anthropic.claude-3-7-sonnet-20250219-v1:0' } }),
      'messages on cloudb': JSON.stringify({ provider: 'cloudb', api_key: 'ya29.fuzz', cloudb_project_id: 'p', cloudb_region: 'us-central1', custom_host: raw.baseURL, override_params: { model: 'claude-3-7-sonnet@20250219' } }),
      // And on a provider of the vendor's API: a chat completion, its answers and chunks made the messages API's.
      'messages as chat': JSON.stringify({ ...target(0), custom_host: raw.baseURL }),
      // And on another model of a cloud: its own chat translation (generateContent, converse) under the messages API's shapes.
      'messages as gemini': JSON.stringify({ provider: 'cloudb', api_key: 'ya29.fuzz', cloudb_project_id: 'p', cloudb_region: 'us-central1', custom_host: raw.baseURL, override_params: { model: 'gemini-2.0-flash' } }),
      'messages as converse': JSON.stringify({ provider: 'cloudc', api_key: 'bedrock-api-key-fuzz', cloudc_region: 'us-east-1', custom_host: raw.baseURL, override_params: { model: 'amazon.nova-lite-v1:0' } }),
      // The messages API's token count of a chat model, counted by its provider: the vendor's Responses input count, a vLLM server's /tokenize, cloud B's countTokens.
      'count as vendor input': JSON.stringify({ ...target(0), custom_host: raw.baseURL }),
      'count as vllm tokenization': JSON.stringify({ provider: 'vllm', custom_host: raw.baseURL }),
      'count as gemini': JSON.stringify({ provider: 'cloudb', api_key: 'ya29.fuzz', cloudb_project_id: 'p', cloudb_region: 'us-central1', custom_host: raw.baseURL, override_params: { model: 'gemini-2.0-flash' } }),
      // A realtime session through the pass-through: its events read for the session's usage.
      realtime: alone,
    };
    // Each family's own chat call behind output guardrails that read, rewrite and can deny its answers in its own dialect and framing.
    for (const route of OWN_CALLS) configs[`guarded ${route}`] = JSON.stringify({ ...JSON.parse(configs[route]!), output_guardrails: JSON.parse(guarded).output_guardrails });
    const stalls = watchStalls();
    const heapBefore = liveHeap();
    await fc.assert(
      fc.asyncProperty(misbehaviour, fc.constantFrom(...Object.keys(configs)), fc.boolean(), fc.constantFrom(...OTHER_INVOKES), oddRealtime, async (answer, route, stream, [otherModel, otherBody], session) => {
        const withFallback = route === 'fallback';
        // A guarded own call is sent as the unguarded one is.
        const call = route.startsWith('guarded ') && OWN_CALLS.includes(route.slice('guarded '.length)) ? route.slice('guarded '.length) : route;
        // A realtime session is mostly one the provider opened ("stream"), else any misbehaviour.
        next = route === 'realtime' && stream ? session : answer;
        const signal = AbortSignal.timeout(10_000);
        const json = (path: string, body: Record<string, unknown>) => e2e.fetch(path, { method: 'POST', signal, headers: { 'x-gateway-config': configs[route]!, 'content-type': 'application/json' }, body: JSON.stringify({ ...body, ...(stream ? { stream: true } : {}) }) });
        if (route === 'realtime') {
          const answer = await rawSession(e2e.gateway.url, configs[route]!);
          // Whatever the provider did, the gateway answered: its 101, the provider's own answer, or its error, never its own 500.
          expect(answer, answer.slice(0, 200)).toMatch(/^HTTP\/1\.1 \d{3} /);
          expect(answer, answer.slice(0, 400)).not.toContain('internal_error');
          return;
        }
        const res = route === 'guarded transcription'
          ? await e2e.fetch('/v1/audio/transcriptions', { method: 'POST', signal, headers: { 'x-gateway-config': configs[route]! }, body: transcriptionForm(stream) })
          : route === 'guarded completions' ? await json('/v1/completions', { model: 'gpt-3.5-turbo-instruct', prompt: 'hi' })
          : route === 'guarded responses' ? await json('/v1/responses', { model: 'gpt-4o-mini', input: 'hi', store: false })
          : route === 'images' ? await json(...PASSED_THROUGH.images)
          // Speech as events, or as audio bytes whose length the log reads (gpt-4o-mini-tts is priced by the minute).
          : route === 'speech' ? await json(PASSED_THROUGH.speech[0], stream ? { ...PASSED_THROUGH.speech[1], stream_format: 'sse' } : PASSED_THROUGH.speech[1])
          : call === 'messages passed through' || call === 'messages on cloudc' || call === 'messages on cloudb' || call === 'messages as chat' || call === 'messages as gemini' || call === 'messages as converse' ? await json('/v1/messages?beta=true', { model: 'claude-sonnet-4-0', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] })
          : call.startsWith('count as ') ? await e2e.fetch('/v1/messages/count_tokens?beta=true', { method: 'POST', signal, headers: { 'x-gateway-config': configs[route]!, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'claude-sonnet-4-0', messages: [{ role: 'user', content: 'hi' }] }) })
          : call === 'rawPredict passed through'
            ? await e2e.fetch(`/v1/projects/p/locations/us-central1/publishers/anthropic/models/claude-3-7-sonnet@20250219:${stream ? 'streamRawPredict' : 'rawPredict'}`, { method: 'POST', signal, headers: { 'x-gateway-config': configs[route]!, 'content-type': 'application/json' }, body: JSON.stringify({ anthropic_version: 'vertex-2023-10-16', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }], ...(stream ? { stream: true } : {}) }) })
          : call === 'generateContent passed through'
            ? await e2e.fetch(`/v1/projects/p/locations/us-central1/publishers/google/models/gemini-2.0-flash:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`, { method: 'POST', signal, headers: { 'x-gateway-config': configs[route]!, 'content-type': 'application/json' }, body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }) })
          : call === 'converse passed through'
            ? await e2e.fetch(`/v1/model/anthropic.claude-3-7-sonnet-20250219-v1%3A0/${stream ? 'converse-stream' : 'converse'}`, { method: 'POST', signal, headers: { 'x-gateway-config': configs[route]!, 'content-type': 'application/json' }, body: JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'hi' }] }] }) })
          : call === 'other invoke passed through'
            ? await e2e.fetch(`/v1/model/${otherModel}/${stream ? 'invoke-with-response-stream' : 'invoke'}`, { method: 'POST', signal, headers: { 'x-gateway-config': configs[route]!, 'content-type': 'application/json' }, body: JSON.stringify(otherBody) })
          : call === 'predict passed through'
            // :predict never streams: "streamed" sends an Imagen model's (images counted as the answer goes by) instead of an embedding model's.
            ? await e2e.fetch(`/v1/projects/p/locations/us-central1/publishers/google/models/${stream ? 'imagen-3.0-generate-002' : 'text-embedding-005'}:predict`, { method: 'POST', signal, headers: { 'x-gateway-config': configs[route]!, 'content-type': 'application/json' }, body: JSON.stringify({ instances: [stream ? { prompt: 'hi' } : { content: 'hi' }] }) })
          : call === 'invoke passed through'
            ? await e2e.fetch(`/v1/model/anthropic.claude-3-7-sonnet-20250219-v1%3A0/${stream ? 'invoke-with-response-stream' : 'invoke'}`, { method: 'POST', signal, headers: { 'x-gateway-config': configs[route]!, 'content-type': 'application/json' }, body: JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }) })
          : await json('/v1/chat/completions', { ...JSON.parse(CHAT), ...(route.includes('messages') ? { max_tokens: 64 } : {}) });
        const text = await res.text().catch(() => '');
        // A 500 is never the gateway's own (internal_error): only a provider's error that opened its stream or came in a 200 (api_error, server_error).
        if (res.status === 500) expect((JSON.parse(text) as { error?: { code?: unknown } }).error?.code, text.slice(0, 200)).not.toBe('internal_error');
        if (res.status >= 400 && (res.headers.get('content-type') ?? '').startsWith('application/json')) {
          // An error body names its kind: the gateway's and the vendor's by `type`, cloud B's own API's by its rpc `status`;
          // cloud C's own API answers `{"message": …}`, its kind in x-amzn-errortype.
          const body = JSON.parse(text) as { error?: { message: unknown; type?: unknown; status?: unknown }; message?: unknown };
          if (CLOUDC_OWN.has(call) && body.error === undefined) {
            expect(body, text.slice(0, 200)).toMatchObject({ message: expect.any(String) });
            expect(res.headers.get('x-amzn-errortype'), text.slice(0, 200)).toEqual(expect.any(String));
          } else {
            const { error } = body;
            expect(error, text.slice(0, 200)).toMatchObject({ message: expect.any(String) });
            expect(typeof error!.type === 'string' || (CLOUDB_OWN.has(call) && typeof error!.status === 'string'), text.slice(0, 200)).toBe(true);
          }
        }
        if (withFallback && !stream) expect([200, 502, 504, 408]).toContain(res.status);
      }),
      { numRuns: RUNS, verbose: 1, ...(process.env.FUZZ_SEED === undefined ? {} : { seed: Number(process.env.FUZZ_SEED) }) },
    );
    const { longestOwnMs, stalls: held } = await stalls.stop();
    expect(longestOwnMs, `longest event-loop stall not the collector's, ms (all: ${JSON.stringify(held)})`).toBeLessThan(100);
    expect((liveHeap() - heapBefore) / 2 ** 20, 'live heap growth, MB').toBeLessThan(64);
    expect((await fetch(`${e2e.gateway.url}/v1/health`)).status).toBe(200);
  });
});

/** Another model's invoke, by model and body: in each vendor format the gateway reads (Nova's, Titan's, Llama's, Mistral's in both forms), and in one it does not (Cohere's). */
const OTHER_INVOKES: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ['amazon.nova-lite-v1%3A0', { messages: [{ role: 'user', content: [{ text: 'hi' }] }] }],
  ['amazon.titan-text-express-v1', { inputText: 'hi' }],
  ['meta.llama3-8b-instruct-v1%3A0', { prompt: 'hi' }],
  ['mistral.mistral-7b-instruct-v0%3A2', { prompt: '<s>[INST] hi [/INST]' }],
  ['mistral.mistral-large-2407-v1%3A0', { messages: [{ role: 'user', content: 'hi' }] }],
  ['openai.gpt-oss-120b-1%3A0', { messages: [{ role: 'user', content: 'hi' }] }],
  ['us.deepseek.r1-v1%3A0', { prompt: 'hi' }],
  ['cohere.command-r-v1%3A0', { message: 'hi' }],
];

/** Each family's own call through the pass-through (its chat calls, another model's invoke, cloud B's embeddings). */
const OWN_CALLS: readonly string[] = ['messages passed through', 'generateContent passed through', 'converse passed through', 'invoke passed through', 'other invoke passed through', 'predict passed through', 'rawPredict passed through', 'messages on cloudc', 'messages on cloudb', 'messages as chat', 'messages as gemini', 'messages as converse'];

/** Routes to cloud B's own API through the pass-through, whose error bodies name their kind by their rpc `status`. */
const CLOUDB_OWN: ReadonlySet<string> = new Set(['generateContent passed through', 'predict passed through', 'rawPredict passed through']);

/** Routes to cloud C's own API through the pass-through, whose error bodies are its own. */
const CLOUDC_OWN: ReadonlySet<string> = new Set(['converse passed through', 'invoke passed through', 'other invoke passed through']);

/** Requests whose answers the gateway passes to the client as they come (and meters by the usage they report). */
const PASSED_THROUGH: Record<'images' | 'speech', [string, Record<string, unknown>]> = {
  images: ['/v1/images/generations', { model: 'gpt-image-1', prompt: 'hi' }],
  speech: ['/v1/audio/speech', { model: 'gpt-4o-mini-tts', voice: 'alloy', input: 'hi' }],
};

/**
 * A WebSocket handshake sent by hand, its session then left to the provider: what came back (the
 * answer's head, as text) once the gateway ended the connection, or after 3 s (a provider that holds
 * its session open), when the client leaves.
 */
function rawSession(origin: string, config: string): Promise<string> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(Buffer.concat(chunks).toString('latin1'));
    };
    const timer = setTimeout(done, 3000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', done);
    socket.on('error', reject);
    socket.write([
      'GET /v1/realtime?model=gpt-realtime HTTP/1.1',
      `host: ${hostname}:${port}`,
      'connection: Upgrade',
      'upgrade: websocket',
      'sec-websocket-version: 13',
      'sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==',
      `x-gateway-api-key: ${GATEWAY_KEY}`,
      `x-gateway-config: ${config}`,
      '',
      '',
    ].join('\r\n'));
  });
}

function transcriptionForm(stream: boolean): FormData {
  const form = new FormData();
  form.set('model', 'gpt-4o-transcribe');
  form.set('file', new Blob([Buffer.alloc(64)]), 'clip.wav');
  if (stream) form.set('stream', 'true');
  return form;
}
