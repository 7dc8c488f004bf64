// The request fuzzer: fast-check generates hostile requests (methods, paths, gateway headers, inline
// configs, bodies) against a real gateway in front of a misbehaving provider, and checks what must
// hold whatever a client sends: no 5xx but 502/503/504 (a broken provider), every gateway error body
// well formed, and the process still answering. `npm test` runs a bounded number of cases;
// `npm run fuzz -- --runs N` runs as many as asked.
import { sendRaw } from '../server/helpers.ts';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { fc } from '@fast-check/vitest';
import type { E2E } from '../e2e/harness.ts';

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'] as const;
const PATHS = [
  '/v1/chat/completions', '/v1/completions', '/v1/embeddings', '/v1/models', '/v1/logs', '/v1/configs', '/v1/files', '/v1/health', '/metrics', '/v1/x/../../etc/passwd', '/%ff', '/v1/%00',
  '/v1/logs?model=a%00b', '/v1/logs?metadata.team=a', '/v1/logs?metadata.%00=x', '/v1/configs/a%00b',
];
const HEADERS = ['x-gateway-config', 'x-gateway-provider', 'x-gateway-custom-host', 'x-gateway-metadata', 'x-gateway-trace-id', 'x-gateway-request-timeout', 'x-gateway-forward-headers', 'x-gateway-cache-namespace', 'x-gateway-virtual-key', 'traceparent', 'authorization', 'content-type'];

const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    '{', '[]', 'null', '{"strategy":{"mode":"fallback"},"targets":[]}', '{"provider":"openai","custom_host":"http://169.254.169.254"}', `${'['.repeat(300)}${']'.repeat(300)}`, '\u2028', '__proto__', '{"__proto__":{"x":1}}', 'x-gateway-api-key',
    // U+0000 escaped in JSON (a header cannot carry the byte itself): text PostgreSQL cannot store.
    '{"team":"a\\u0000b","\\u0000":"x"}', '{"model":"a\\u0000b","messages":[{"role":"user","content":"hi\\u0000"}]}', '{"id":"c\\u0000","config":{"provider":"openai"}}',
  ),
  fc.json({ maxDepth: 3 }),
);

export interface FuzzRequest {
  method: (typeof METHODS)[number];
  path: string;
  headers: Record<string, string>;
  body: string | undefined;
}

export const fuzzRequest: fc.Arbitrary<FuzzRequest> = fc.record({
  method: fc.constantFrom(...METHODS),
  path: fc.oneof(fc.constantFrom(...PATHS), fc.string({ maxLength: 30 }).map((s) => `/v1/${encodeURIComponent(s)}`)),
  headers: fc.dictionary(fc.constantFrom(...HEADERS), hostileString.map((s) => s.replace(/[\r\n\0]/g, ' ')), { maxKeys: 5 }),
  body: fc.option(fc.oneof(hostileString, fc.json({ maxDepth: 4 }), fc.constant('{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}')), { nil: undefined }),
});

/** Any text, control characters and U+0000 included, often short. */
const anyText = fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), fc.constantFrom('a\u0000b', '\u0000', '\uFFFD', '\uD800', '__proto__', ''));

/**
 * Well-formed chat requests through a saved config whose client-chosen text (the model, the metadata,
 * the messages) is hostile: they reach the provider, the request log and its filters, where the
 * store's own refusals would show (a record batch refused, a filter that fails on a row).
 */
export const fuzzChat: fc.Arbitrary<FuzzRequest> = fc
  .record({ model: anyText, metadata: fc.dictionary(anyText, anyText, { maxKeys: 3 }), content: anyText, stream: fc.boolean() })
  .map(({ model, metadata, content, stream }) => ({
    method: 'POST' as const,
    path: '/v1/chat/completions',
    // JSON escapes every control character, so the header carries them as text.
    headers: { 'x-gateway-config': 'chat', 'content-type': 'application/json', authorization: 'Bearer sk-test', 'x-gateway-metadata': JSON.stringify(metadata).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) },
    body: JSON.stringify({ model, messages: [{ role: 'user', content }], stream }),
  }));

/** A JSON value of any type, now and then text a guardrail finds (an e-mail address, a denied word). */
const anyMember = fc.oneof(fc.json({ maxDepth: 2 }).map((j) => JSON.parse(j) as unknown), fc.constantFrom('mail jane.doe@example.com', 'the secret', ''));

/**
 * Requests of every endpoint with text through a saved config whose guardrails read and rewrite it
 * (`guarded`: input and output PII redaction and a deny rule), their members of any type: what the
 * hook stages read, rewrite and judge, before the provider and on its answer.
 */
/** A family's own chat calls through the pass-through, token counts, cloud B's embeddings and other models' invoke in the formats read (paths under /v1). */
const OWN_CALLS = [
  'messages', 'projects/p/locations/l/publishers/google/models/g:generateContent', 'model/anthropic.claude-x/converse', 'model/anthropic.claude-x/invoke', 'messages/count_tokens?beta=true',
  'model/anthropic.claude-x/count-tokens', 'projects/p/locations/l/publishers/google/models/text-embedding-005:predict', 'model/amazon.nova-lite-v1/invoke', 'model/amazon.titan-text-express-v1/invoke',
  'model/meta.llama3-8b-instruct-v1/invoke', 'model/mistral.mistral-7b-instruct-v0/invoke', 'projects/p/locations/l/publishers/google/models/imagen-3.0-generate-002:predict',
  'model/openai.gpt-oss-120b-1/invoke-with-response-stream', 'model/mistral.mistral-large-2402-v1/invoke',
] as const;

/** A block or part of any of the families' own shapes, its members of any type. */
const ownBlock = fc.record({
  type: fc.oneof(fc.constantFrom('text', 'tool_result', 'thinking', 'image'), anyMember),
  text: fc.oneof(anyMember, fc.constant('mail jane.doe@example.com')),
  thinking: anyMember, thought: anyMember, content: anyMember, guardContent: anyMember, toolResult: anyMember, functionResponse: anyMember,
}, { requiredKeys: [] });

/** Turns of any of the families' own shapes (`content` blocks, `parts`), now and then of any type. */
const ownTurns = fc.oneof(anyMember, fc.array(fc.oneof(anyMember, fc.record({
  role: fc.oneof(fc.constantFrom('user', 'assistant', 'model'), anyMember),
  content: fc.oneof(anyMember, fc.constant('mail jane.doe@example.com'), fc.array(fc.oneof(anyMember, ownBlock), { maxLength: 3 })),
  parts: fc.oneof(anyMember, fc.array(fc.oneof(anyMember, ownBlock), { maxLength: 3 })),
}, { requiredKeys: [] })), { maxLength: 3 }));

export const fuzzGuarded: fc.Arbitrary<FuzzRequest> = fc
  .record({
    endpoint: fc.constantFrom('chat/completions', 'completions', 'embeddings', 'images/generations', 'audio/speech', 'responses', 'threads/t1/messages', ...OWN_CALLS),
    messages: fc.oneof(anyMember, fc.array(fc.oneof(anyMember, fc.record({ role: fc.oneof(fc.constantFrom('user', 'assistant', 'system', 'tool'), anyMember), content: fc.oneof(anyMember, fc.array(fc.oneof(anyMember, fc.record({ type: fc.constantFrom('text', 'image_url'), text: anyMember }, { requiredKeys: ['type'] })), { maxLength: 3 })), reasoning_content: anyMember }, { requiredKeys: ['role'] })), { maxLength: 3 }), fc.constant([{ role: 'user', content: 'mail jane.doe@example.com' }])),
    text: fc.oneof(anyMember, fc.constantFrom('mail jane.doe@example.com', 'hello')),
    // Mostly valid options, now and then of any type: a body the schema refuses never reaches the hooks.
    options: fc.record({ n: fc.oneof(fc.constantFrom(1, 2), anyMember), logprobs: fc.oneof(fc.boolean(), fc.constantFrom(0, 2), anyMember) }, { requiredKeys: [] }),
    // Images billed per image are counted from the request's n, size and quality, of any type here.
    image: fc.record({ model: fc.constantFrom('gpt-image-1', 'dall-e-3', 'dall-e-2'), n: fc.oneof(fc.constantFrom(1, 3, '2'), anyMember), size: fc.oneof(fc.constantFrom('1024x1024', '1792x1024', '256x256', 'constructor'), anyMember), quality: fc.oneof(fc.constantFrom('hd', 'standard', '__proto__'), anyMember) }, { requiredKeys: ['model'] }),
    stream: fc.boolean(),
    turns: ownTurns,
  })
  .map(({ endpoint, messages, text, options, image, stream, turns }) => {
    const bodies: Record<typeof endpoint, Record<string, unknown>> = {
      'chat/completions': { model: 'gpt-4o-mini', messages, ...options, stream },
      completions: { model: 'gpt-3.5-turbo-instruct', prompt: text, ...options, stream },
      embeddings: { model: 'text-embedding-3-small', input: text },
      'images/generations': { ...image, prompt: text },
      // Streamed: speech as events, whose last one carries the usage the log reads.
      'audio/speech': stream ? { model: 'gpt-4o-mini-tts', voice: 'alloy', input: text, stream_format: 'sse' } : { model: 'tts-1', voice: 'alloy', input: text },
      responses: { model: 'gpt-4o-mini', input: text, store: false, stream },
      // The pass-through: its checks that read text fail unjudged, so the deny rule answers 446.
      'threads/t1/messages': { role: 'user', content: text },
      // A family's own chat calls, read and rewritten in their own shapes whatever target serves them.
      messages: { model: 'claude-sonnet-4-0', max_tokens: 9, system: text, messages: turns, stream },
      [OWN_CALLS[1]]: { systemInstruction: { parts: [{ text }] }, contents: turns },
      [OWN_CALLS[2]]: { system: [{ text }], messages: turns },
      [OWN_CALLS[3]]: { anthropic_version: 'bedrock-2023-05-31', max_tokens: 9, system: text, messages: turns },
      [OWN_CALLS[4]]: { model: 'claude-sonnet-4-0', system: text, messages: turns },
      // A Claude model's count: a converse body, or its invoke body (the messages API's) in base64; of any shape.
      [OWN_CALLS[5]]: { input: stream ? { converse: { system: [{ text }], messages: turns } } : { invokeModel: { body: typeof text === 'string' ? Buffer.from(JSON.stringify({ system: text, messages: turns })).toString('base64') : text }, converse: turns } },
      [OWN_CALLS[6]]: { instances: stream ? turns : [{ content: text }, { title: text, content: 'mail jane.doe@example.com' }] },
      // Other models' invoke: Nova's converse shapes; the text completion models' prompt, of any type.
      [OWN_CALLS[7]]: { schemaVersion: 'messages-v1', system: [{ text }], messages: turns },
      [OWN_CALLS[8]]: { inputText: text, textGenerationConfig: options },
      [OWN_CALLS[9]]: { prompt: text, max_gen_len: 9 },
      [OWN_CALLS[10]]: stream ? { messages: turns } : { prompt: text, max_tokens: 9 },
      // Cloud B's image generation: its instances' prompts and the negative prompt, of any type.
      [OWN_CALLS[11]]: { instances: stream ? turns : [{ prompt: text }], parameters: stream ? text : { negativePrompt: text, sampleCount: 2 } },
      // OpenAI's open-weight models: the chat completions body, `stream` of any value.
      [OWN_CALLS[12]]: { messages, stream, ...options },
      // Mistral Large 2402: either form, the chat form's messages of any shape.
      [OWN_CALLS[13]]: stream ? { messages, max_tokens: 9 } : { prompt: text, messages: turns },
    };
    // A pass-through body need not be JSON: sent as bare text now and then, it is forwarded unparsed.
    const body = endpoint === 'threads/t1/messages' && stream && typeof text === 'string' ? text : JSON.stringify(bodies[endpoint]);
    return { method: 'POST' as const, path: `/v1/${endpoint}`, headers: { 'x-gateway-config': 'guarded', 'content-type': 'application/json' }, body };
  });

/**
 * Well-formed control-plane writes whose client-chosen text (IDs, names, templates, conditions) is
 * hostile: they reach the store, where its own refusals would show as 500s.
 */
export const fuzzControlPlane: fc.Arbitrary<FuzzRequest> = fc
  .record({ id: anyText, name: anyText, text: anyText, kind: fc.constantFrom('configs', 'prompts', 'guardrails', 'api-keys', 'virtual-keys', 'policies/usage-limits', 'policies/rate-limits') })
  .map(({ id, name, text, kind }) => {
    const bodies: Record<typeof kind, unknown> = {
      configs: { id, name, config: { provider: 'openai', api_key: 'sk-test', override_params: { user: text } } },
      prompts: { id, name, messages: [{ role: 'user', content: `${text} {{x}}` }] },
      guardrails: { id, name, checks: [{ id: 'default.contains', parameters: { words: [text], operator: 'any' } }], deny: true },
      'api-keys': { name, scope: 'inference' },
      'virtual-keys': { name, provider: 'openai', api_key: text === '' ? 'sk-x' : text },
      'policies/usage-limits': { type: 'tokens', credit_limit: 10, conditions: [{ key: `metadata.${name}`, value: text }], group_by: [{ key: `metadata.${id}` }] },
      'policies/rate-limits': { type: 'requests', unit: 'rpm', value: 10, conditions: [{ key: `metadata.${name}`, value: text }], group_by: [{ key: 'api_key' }] },
    };
    return { method: 'POST' as const, path: `/v1/${kind}`, headers: { 'content-type': 'application/json' }, body: JSON.stringify(bodies[kind]) };
  });

/** A WebSocket handshake as a client may send it: any method, path, upgrade, key, config, body, and bytes behind it. */
export interface FuzzHandshake {
  head: string;
  /** Sent right behind the head: a body, or a session's first frames, or junk. */
  after: Uint8Array;
}

const headerText = fc.string({ maxLength: 40 }).map((text) => text.replace(/[\r\n]/g, ' '));

export const fuzzHandshake: fc.Arbitrary<FuzzHandshake> = fc
  .record({
    method: fc.constantFrom('GET', 'GET', 'GET', 'POST', 'HEAD', 'DELETE', 'OPTIONS'),
    path: fc.oneof(fc.constantFrom('/v1/realtime?model=gpt-realtime', '/v1/realtime', '/v1/realtime?model=', '/v1/models', '/v1/chat/completions', '/v1/logs', '/metrics', '/v1/health', '/nope'), headerText.map((text) => `/v1/${encodeURIComponent(text)}`)),
    upgrade: fc.oneof(fc.constantFrom('websocket', 'WebSocket', 'h2c, websocket', 'h2c', ''), headerText),
    connection: fc.constantFrom('Upgrade', 'keep-alive, Upgrade', 'close', ''),
    key: fc.option(fc.oneof(fc.constant('dGhlIHNhbXBsZSBub25jZQ=='), headerText), { nil: undefined }),
    version: fc.constantFrom('13', '8', '', 'x'),
    protocol: fc.option(fc.oneof(fc.constant('realtime'), headerText), { nil: undefined }),
    config: fc.oneof(fc.constantFrom('chat', 'fallback', 'guarded', 'missing'), headerText),
    authenticated: fc.boolean(),
    length: fc.option(fc.nat(64), { nil: undefined }),
    chunked: fc.boolean(),
    after: fc.uint8Array({ maxLength: 200 }),
  })
  .map((h): FuzzHandshake => {
    const lines = [`${h.method} ${h.path} HTTP/1.1`, 'host: 127.0.0.1'];
    if (h.connection !== '') lines.push(`connection: ${h.connection}`);
    if (h.upgrade !== '') lines.push(`upgrade: ${h.upgrade}`);
    if (h.key !== undefined) lines.push(`sec-websocket-key: ${h.key}`);
    if (h.version !== '') lines.push(`sec-websocket-version: ${h.version}`);
    if (h.protocol !== undefined) lines.push(`sec-websocket-protocol: ${h.protocol}`);
    lines.push(`x-gateway-config: ${h.config}`);
    if (h.authenticated) lines.push('x-gateway-api-key: gw-e2e-key');
    // A body is sent whole (one that never comes is the client's stall, not the gateway's): a length
    // no longer than the bytes behind the head (the rest would be a next request), or one chunk.
    let after = h.after;
    if (h.length !== undefined) lines.push(`content-length: ${Math.min(h.length, after.length)}`);
    else if (h.chunked) {
      lines.push('transfer-encoding: chunked');
      after = Buffer.concat([Buffer.from(`${after.length.toString(16)}\r\n`), after, Buffer.from(after.length === 0 ? '\r\n' : '\r\n0\r\n\r\n')]);
    }
    return { head: `${lines.join('\r\n')}\r\n\r\n`, after };
  });

/** Sends a handshake over a socket of its own; what came back, as text, once the gateway closed, went quiet after answering, or 3 s passed. */
export function sendHandshake(origin: string, handshake: FuzzHandshake): Promise<string> {
  return sendRaw(origin, Buffer.concat([Buffer.from(handshake.head, 'latin1'), Buffer.from(handshake.after)]), { waitMs: 3000, quietMs: 100 });
}

/** Sends one request and checks the invariants; returns a description of what broke, or null. */
export async function checkOne(e2e: E2E, request: FuzzRequest): Promise<string | null> {
  const headers = { 'x-gateway-api-key': 'gw-e2e-key', ...request.headers };
  let res: Response;
  try {
    res = await fetch(`${e2e.gateway.url}${request.path}`, {
      method: request.method,
      headers,
      body: request.method === 'GET' || request.method === 'HEAD' ? undefined : request.body,
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    // An invalid header value is refused by the client library itself, before sending: not the gateway's doing.
    if (error instanceof TypeError && /header|ByteString|Headers/i.test(String(error.message) + String((error as { cause?: unknown }).cause))) return null;
    return `no answer: ${(error as Error).message}`;
  }
  const text = await res.text();
  if (res.status >= 500 && ![502, 503, 504].includes(res.status)) return `status ${res.status}: ${text.slice(0, 300)}`;
  const type = res.headers.get('content-type') ?? '';
  if (res.status >= 400 && type.startsWith('application/json') && request.method !== 'HEAD') {
    let body: { error?: { message?: unknown; type?: unknown; code?: unknown } };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      return `status ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`;
    }
    const error = body.error;
    if (error === undefined || typeof error.message !== 'string' || typeof error.type !== 'string' || (error.code !== null && typeof error.code !== 'string')) {
      // A provider's own error passes through with its status; the gateway's own always has this shape.
      if (!res.headers.has('x-gateway-provider')) return `malformed error body: ${text.slice(0, 200)}`;
    }
  }
  if (!res.headers.has('x-gateway-trace-id')) return `no x-gateway-trace-id on ${res.status}`;
  return null;
}

/** Bytes in use on the heap after a full collection (RSS would count what V8 keeps for later, and the test client's own). */
export function liveHeap(): number {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
  return process.memoryUsage().heapUsed;
}
