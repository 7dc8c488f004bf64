// Hooks and guardrails through the real gateway, with the official SDK as client: a deny rule answers
// 446 with hook_results and the provider sees nothing; a failed rule without deny answers 246; PII is
// redacted before the provider sees it; a denied answer is a failed attempt a fallback moves past; a
// held stream that is denied ends in an SSE error event the SDK throws; results and feedback are in
// the log record, async hooks included. The mock answers "[mockN]" and then the prompt's words.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundaryOf as mockBoundaryOf, parseMultipart } from '../mocks/vendor/multipart.ts';
import { type E2E, errorOf, startE2E, target } from './harness.ts';
import { MESSAGES_MOCK_KEY, startMessagesMock } from '../mocks/messages/index.ts';
import type { MockServer } from '../mocks/http/mock-server.ts';

const PII = 'mail me at jane.doe@example.com or call +1 415-555-0134, card 4111 1111 1111 1111';

describe('hooks and guardrails', () => {
  let e2e: E2E;
  let side: Server;
  let messages: MockServer;
  let sideUrl = '';
  let token = '';
  beforeAll(async () => {
    // One local server for the checks that call out: a JSON Web Key Set, and a webhook that rewrites requests.
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'e2e', alg: 'ES256' };
    token = await new SignJWT({ scope: 'chat' }).setProtectedHeader({ alg: 'ES256', kid: 'e2e' }).setIssuedAt().setExpirationTime('10m').sign(privateKey);
    side = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const body = req.url === '/jwks' ? { keys: [jwk] } : { verdict: true, transformedData: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'rewritten by the webhook' }] } };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      });
    });
    await new Promise<void>((resolve) => side.listen(0, '127.0.0.1', resolve));
    sideUrl = `http://127.0.0.1:${(side.address() as AddressInfo).port}`;
    // A messages-family provider, whose thinking comes back as reasoning_content (its mock's restates the prompt).
    messages = await startMessagesMock({ label: 'messages' });
    e2e = await startE2E({
      mocks: 2,
      configs: {
        short: { ...target(0), input_guardrails: [{ id: 'short-prompts', deny: true, 'default.wordCount': { maxWords: 3 }, on_fail: { feedback: { value: -1, weight: 2 } } }] },
        'short-soft': { ...target(0), input_guardrails: [{ id: 'short-soft', 'default.wordCount': { maxWords: 3 } }] },
        'short-strict': { ...target(0, { strict_vendor_compliance: true }), input_guardrails: [{ id: 'short-soft', 'default.wordCount': { maxWords: 3 } }] },
        hooks: {
          ...target(0),
          before_request_hooks: [{ id: 'no-ssn', type: 'guardrail', checks: [{ id: 'default.regexMatch', parameters: { rule: '\\d{3}-\\d{2}-\\d{4}', not: true } }], on_fail: { deny: true, feedback: { value: -10 } }, on_success: { feedback: { value: 1 } } }],
          after_request_hooks: [{ id: 'async-json', async: true, checks: [{ id: 'default.jsonKeys', parameters: { keys: ['answer'] } }], on_fail: { feedback: { value: -1 } } }],
        },
        pii: { ...target(0), input_guardrails: [{ id: 'pii', 'default.piiRedact': {} }] },
        'pii-async': { ...target(0), input_guardrails: [{ id: 'pii-async', async: true, 'default.piiRedact': {} }, { id: 'no-secret-async', async: true, 'default.regexMatch': { rule: 'secret', not: true }, on_fail: { feedback: { value: -1 } } }] },
        'text-endpoints': {
          ...target(0),
          input_guardrails: [
            { id: 'no-secret', deny: true, 'default.regexMatch': { rule: 'secret', not: true } },
            { id: 'pii', 'default.piiRedact': {} },
            { id: 'models', deny: true, 'default.modelWhitelist': { models: ['gpt-3.5-turbo-instruct', 'text-embedding-3-small'] } },
          ],
        },
        'fallback-past-denied': {
          strategy: { mode: 'fallback', on_status_codes: [446] },
          targets: [target(0, { output_guardrails: [{ id: 'not-mock0', deny: true, 'default.contains': { words: ['mock0'], operator: 'none' } }] }), target(1)],
        },
        'stream-deny': { ...target(0), output_guardrails: [{ id: 'no-secret', deny: true, 'default.contains': { words: ['secret'], operator: 'none' } }] },
        'stream-judged': { ...target(0), output_guardrails: [{ id: 'ends-period', 'default.endsWith': { suffix: '.' } }] },
        'stream-redacted': { ...target(0), output_guardrails: [{ id: 'pii-out', 'default.piiRedact': {} }] },
        'reasoning-redacted': { provider: 'anthropic', api_key: MESSAGES_MOCK_KEY, custom_host: messages.baseURL, output_guardrails: [{ id: 'pii-out', 'default.piiRedact': {} }] },
        jwt: { ...target(0), input_guardrails: [{ id: 'signed-in', deny: true, 'default.jwt': { jwksUri: `${sideUrl}/jwks`, headerKey: 'x-user-token' } }] },
        rewritten: { ...target(0), before_request_hooks: [{ id: 'rewrite', checks: [{ id: 'default.webhook', parameters: { webhookURL: `${sideUrl}/hook` } }] }] },
        'rewritten-after': { ...target(0), after_request_hooks: [{ id: 'rewrite', checks: [{ id: 'default.webhook', parameters: { webhookURL: `${sideUrl}/hook` } }] }] },
      },
    });
  });
  afterAll(async () => {
    await e2e?.close();
    await new Promise((resolve) => side?.close(resolve));
    await messages?.close();
  });

  const sdk = (config: string, traceId?: string): OpenAI => e2e.client({ 'x-gateway-config': config, ...(traceId === undefined ? {} : { 'x-gateway-trace-id': traceId }) });
  const raw = (config: string, content: string, extra: Record<string, unknown> = {}) => e2e.fetch('/v1/chat/completions', {
    method: 'POST',
    headers: { 'x-gateway-config': config, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }], ...extra }),
  });

  it('denies with 446 and hook_results, and the provider sees nothing; the SDK throws with the code readable', async () => {
    const before = e2e.mocks[0].requests.length;
    const error = await sdk('short', 'deny-1').chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'one two three four five' }] }).then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(446);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe('denied_by_guardrail');
    const res = await raw('short', 'one two three four five');
    expect(res.status).toBe(446);
    // node:http would say "unknown" for a status outside its registry.
    expect(res.statusText).toBe('Denied By Guardrail');
    // Refused before routing: no target answered, so no target or provider header (never an empty one).
    expect([res.headers.get('x-gateway-last-used-option-index'), res.headers.get('x-gateway-provider'), res.headers.get('x-gateway-retry-attempt-count')]).toEqual([null, null, '0']);
    const body = await res.json() as { error: { type: string; code: string }; hook_results: { before_request_hooks: Array<{ id: string; verdict: boolean; deny: boolean; checks: Array<{ id: string; verdict: boolean; explanation: string }> }>; after_request_hooks: unknown[] } };
    expect(body.error).toMatchObject({ type: 'hooks_failed', code: 'denied_by_guardrail' });
    expect(body.hook_results.before_request_hooks).toEqual([expect.objectContaining({ id: 'short-prompts', verdict: false, deny: true, checks: [expect.objectContaining({ id: 'default.wordCount', verdict: false, explanation: expect.stringContaining('5 words') })] })]);
    expect(body.hook_results.after_request_hooks).toEqual([]);
    expect(e2e.mocks[0].requests.length).toBe(before);
    const record = await e2e.recordOf('deny-1');
    expect(record).toMatchObject({ status: 446, errorCode: 'denied_by_guardrail' });
    expect(record.feedback).toEqual([{ hook_id: 'short-prompts', value: -1, weight: 2, successful_checks: [], failed_checks: ['default.wordCount'], errored_checks: [] }]);
  });

  it('passes a request that keeps the rule, with hook_results in the answer', async () => {
    const res = await raw('short', 'one two');
    expect(res.status).toBe(200);
    const body = await res.json() as { choices: Array<{ message: { content: string } }>; hook_results: { before_request_hooks: Array<{ verdict: boolean }> } };
    expect(body.choices[0].message.content).toBe('[mock0] one two');
    expect(body.hook_results.before_request_hooks[0].verdict).toBe(true);
  });

  it('answers 246 with hook_results when a rule without deny fails; strict_vendor_compliance leaves the body as the vendor sent it', async () => {
    const completion = await sdk('short-soft').chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'one two three four five' }] }).withResponse();
    expect(completion.response.status).toBe(246);
    expect((completion.data as unknown as { hook_results: { before_request_hooks: Array<{ verdict: boolean; deny: boolean }> } }).hook_results.before_request_hooks[0]).toMatchObject({ verdict: false, deny: false });
    const strict = await raw('short-strict', 'one two three four five');
    expect(strict.status).toBe(246);
    expect(strict.statusText).toBe('Hooks Failed');
    expect(await strict.json()).not.toHaveProperty('hook_results');
  });

  it('runs before_request_hooks with on_fail deny, and async after hooks that only log', async () => {
    const denied = await raw('hooks', 'my ssn is 123-45-6789');
    expect(denied.status).toBe(446);
    const passed = await sdk('hooks', 'hooks-1').chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello there' }] }).withResponse();
    // The async hook failed (no JSON) but only logs: the answer is a plain 200.
    expect(passed.response.status).toBe(200);
    const record = await e2e.recordOf('hooks-1');
    expect(record.hookResults?.beforeRequestHooks).toEqual([expect.objectContaining({ id: 'no-ssn', verdict: true })]);
    expect(record.hookResults?.afterRequestHooks).toEqual([expect.objectContaining({ id: 'async-json', verdict: false, async: true })]);
    expect(record.feedback).toEqual([
      expect.objectContaining({ hook_id: 'no-ssn', value: 1, successful_checks: ['default.regexMatch'] }),
      expect.objectContaining({ hook_id: 'async-json', value: -1, failed_checks: ['default.jsonKeys'] }),
    ]);
  });

  it('redacts PII before the provider sees it', async () => {
    const before = e2e.mocks[0].requests.length;
    const completion = await sdk('pii').chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'system', content: 'reach the admin at admin@corp.example' }, { role: 'user', content: PII }] });
    const received = e2e.mocks[0].requests.slice(before).map((r) => r.body).join('\n');
    expect(received).not.toMatch(/jane\.doe|admin@corp|415-555-0134|4111 1111/);
    expect(received).toContain('[EMAIL]');
    expect(received).toContain('[PHONE]');
    expect(received).toContain('[CREDIT_CARD]');
    expect(completion.choices[0].message.content).not.toContain('jane.doe');
  });

  it('judges and redacts the prompt of a completion and the input of an embedding; token ids, which no check can read, fail the checks that read text', async () => {
    const send = (path: string, body: object) => e2e.fetch(path, { method: 'POST', headers: { 'x-gateway-config': 'text-endpoints', 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const before = e2e.mocks[0].requests.length;
    const denied = await send('/v1/completions', { model: 'gpt-3.5-turbo-instruct', prompt: ['hello', 'the secret plan'] });
    expect(denied.status).toBe(446);
    const redacted = await send('/v1/embeddings', { model: 'text-embedding-3-small', input: ['hi', 'write to jane.doe@example.com'] });
    expect(redacted.status).toBe(200);
    const passed = await send('/v1/completions', { model: 'gpt-3.5-turbo-instruct', prompt: 'mail jane.doe@example.com' });
    expect(passed.status).toBe(200);
    expect(((await passed.json()) as { choices: Array<{ text: string }> }).choices[0].text).toContain('[EMAIL]');
    const received = e2e.mocks[0].requests.slice(before).map((r) => r.body).join('\n');
    expect(received).not.toContain('secret plan');
    expect(received).not.toContain('jane.doe');
    expect(received).toContain('[EMAIL]');

    for (const [path, body] of [['/v1/completions', { model: 'gpt-3.5-turbo-instruct', prompt: [[9, 10, 11]] }], ['/v1/embeddings', { model: 'text-embedding-3-small', input: [1, 2, 3] }]] as const) {
      const sent = e2e.mocks[0].requests.length;
      const res = await send(path, body);
      expect(res.status).toBe(446);
      const answer = (await res.json()) as { hook_results: { before_request_hooks: Array<{ id: string; verdict: boolean; checks: Array<{ verdict: boolean; explanation: string }> }> } };
      const field = path === '/v1/completions' ? 'prompt' : 'input';
      const byId = Object.fromEntries(answer.hook_results.before_request_hooks.map((h) => [h.id, h]));
      expect(byId['no-secret'].checks[0]).toMatchObject({ verdict: false, explanation: `the ${field} is token ids, which no check can read as text; not judged` });
      expect(byId.pii.verdict).toBe(false);
      // A check that reads the request around the text still judges it.
      expect(byId.models.checks[0].verdict).toBe(true);
      expect(e2e.mocks[0].requests.length).toBe(sent);
    }
  });

  it('runs async input guardrails beside the request: they report (a transformer finds, it does not replace), the status stays 200', async () => {
    const before = e2e.mocks[0].requests.length;
    const res = await raw('pii-async', 'my secret is jane.doe@example.com');
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    expect(e2e.mocks[0].requests.slice(before).map((r) => r.body).join('')).toContain('jane.doe@example.com');
    const traceId = res.headers.get('x-gateway-trace-id')!;
    const record = await e2e.recordOf(traceId);
    const byId = Object.fromEntries((record.hookResults?.beforeRequestHooks ?? []).map((h) => [h.id, h]));
    expect(byId['pii-async']).toMatchObject({ async: true, verdict: true, checks: [{ explanation: 'found 1, not replaced: an async hook only reports' }] });
    expect(byId['no-secret-async']).toMatchObject({ async: true, verdict: false });
    expect(record.feedback).toEqual([expect.objectContaining({ hook_id: 'no-secret-async', value: -1 })]);
  });

  it('moves past a denied answer to the next target when on_status_codes include 446', async () => {
    const res = await raw('fallback-past-denied', 'hello');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-last-used-option-index')).toBe('config.targets[1]');
    const body = await res.json() as { choices: Array<{ message: { content: string } }>; hook_results: { after_request_hooks: unknown[] } };
    expect(body.choices[0].message.content).toBe('[mock1] hello');
    // The answer that went out is mock1's, which has no output guardrail.
    expect(body.hook_results.after_request_hooks).toEqual([]);
  });

  it('holds a stream an output guardrail can deny, and ends a denied one with an SSE error event the SDK throws', async () => {
    const stream = await sdk('stream-deny').chat.completions.create({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'the secret is out' }] });
    const seen: string[] = [];
    const error = await (async () => {
      for await (const chunk of stream) seen.push(chunk.choices[0]?.delta?.content ?? '');
    })().then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe('denied_by_guardrail');
    // Nothing of the denied answer reached the client.
    expect(seen.join('')).toBe('');
    const ok = await sdk('stream-deny').chat.completions.create({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'all clear' }] });
    let text = '';
    for await (const chunk of ok) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('[mock0] all clear');
  });

  it('lets a stream no check can deny flow, and judges it at its end for the log', async () => {
    const stream = await sdk('stream-judged', 'stream-judged-1').chat.completions.create({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'no period here' }] });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('[mock0] no period here');
    const record = await e2e.recordOf('stream-judged-1');
    expect(record.hookResults?.afterRequestHooks).toEqual([expect.objectContaining({ id: 'ends-period', verdict: false })]);
  });

  it('refuses a misspelt check in an inline config with 400 invalid_config and a hint', async () => {
    const misspelt = JSON.stringify({ provider: 'vendor', api_key: 'k', input_guardrails: [{ id: 'g', 'default.wordcount': { maxWords: 3 } }] });
    const res = await raw(misspelt, 'hi');
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error.code).toBe('invalid_config');
    expect(error.errors).toEqual([expect.objectContaining({ code: 'CFG_UNKNOWN_CHECK', pointer: '/input_guardrails/0/default.wordcount', hint: 'did you mean "default.wordCount"?' })]);
  });

  it('checks a JWT from a client header against a key set, and never sends that header upstream', async () => {
    const before = e2e.mocks[0].requests.length;
    expect((await raw('jwt', 'hello')).status).toBe(446);
    const res = await e2e.fetch('/v1/chat/completions', {
      method: 'POST',
      headers: { 'x-gateway-config': 'jwt', 'content-type': 'application/json', 'x-user-token': `Bearer ${token}` },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hello' }] }),
    });
    expect(res.status).toBe(200);
    const sent = e2e.mocks[0].requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0].headers['x-user-token']).toBeUndefined();
  });

  it('sends the body a before-request webhook returned as transformedData', async () => {
    const before = e2e.mocks[0].requests.length;
    const res = await raw('rewritten', 'the original words');
    expect(res.status).toBe(200);
    const body = await res.json() as { choices: Array<{ message: { content: string } }> };
    expect(body.choices[0].message.content).toBe('[mock0] rewritten by the webhook');
    expect(e2e.mocks[0].requests.slice(before).map((r) => r.body).join('')).not.toContain('original');
  });

  it('answers a pass-through with what an after-request webhook returned as transformedData, hook_results added', async () => {
    const res = await e2e.fetch('/v1/assistants', { headers: { 'x-gateway-config': 'rewritten-after' } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { messages: unknown[]; hook_results: { after_request_hooks: Array<{ id: string; verdict: boolean }> } };
    expect(body.messages).toEqual([{ role: 'user', content: 'rewritten by the webhook' }]);
    expect(body.hook_results.after_request_hooks).toMatchObject([{ id: 'rewrite', verdict: true }]);
  });

  it('runs hooks on a form body (an audio upload): a before-request webhook\'s transformedData rewrites its fields, its file goes on as it came', async () => {
    const audio = Buffer.from(Array.from({ length: 2000 }, (_, i) => (i * 7) % 256));
    const before = e2e.mocks[0].requests.length;
    const checked = await sdk('hooks').audio.transcriptions.create({ model: 'whisper', file: await toFile(audio, 'a.wav') });
    expect(checked.text).toContain('(2000 bytes)');
    const rewritten = await sdk('rewritten').audio.transcriptions.create({ model: 'whisper', language: 'en', file: await toFile(audio, 'a.wav') });
    expect(rewritten.text).toContain('(2000 bytes)');
    const sent = e2e.mocks[0].requests.slice(before).at(-1)!;
    const form = parseMultipart(sent.bodyBytes, mockBoundaryOf(sent.headers['content-type'] as string)!)!;
    // The webhook's body is the new set of fields: its model and messages, no language.
    expect(form.fields).toEqual({ model: 'gpt-4o-mini', messages: JSON.stringify([{ role: 'user', content: 'rewritten by the webhook' }]) });
    expect(form.files.file!.data.equals(audio)).toBe(true);
  });

  it('judges a spoken answer by its transcript, JSON or streamed; a transformer that finds something in one fails, since its audio says it too', async () => {
    const spoken = { modalities: ['text', 'audio'], audio: { voice: 'alloy', format: 'pcm16' } };
    const denied = await raw('stream-deny', 'the secret is out', spoken);
    expect(denied.status).toBe(446);
    expect((await errorOf(denied)).code).toBe('denied_by_guardrail');
    const kept = await raw('stream-deny', 'all clear', spoken);
    expect(kept.status).toBe(200);
    expect(((await kept.json()) as { choices: Array<{ message: { audio: { transcript: string } } }> }).choices[0]!.message.audio.transcript).toBe('[mock0] all clear');

    const stream = await sdk('stream-deny').chat.completions.create({ model: 'gpt-4o-mini', stream: true, ...spoken, messages: [{ role: 'user', content: 'the secret is out' }] } as OpenAI.ChatCompletionCreateParamsStreaming);
    const heard: string[] = [];
    const error = await (async () => {
      for await (const chunk of stream) heard.push((chunk.choices[0]?.delta as { audio?: { transcript?: string } } | undefined)?.audio?.transcript ?? '');
    })().then(() => null, (e: unknown) => e);
    expect((error as InstanceType<typeof OpenAI.APIError>).code).toBe('denied_by_guardrail');
    expect(heard.join('')).toBe('');

    // piiRedact without deny: the hook fails (246), and the answer is the provider's, said to be unredacted.
    const unredacted = await raw('stream-redacted', 'write to jane.doe@example.com today', spoken);
    expect(unredacted.status).toBe(246);
    const body = (await unredacted.json()) as { hook_results: { after_request_hooks: Array<{ verdict: boolean; checks: Array<{ id: string; verdict: boolean; error: string | null }> }> } };
    const check = body.hook_results.after_request_hooks[0]!.checks[0]!;
    expect(check).toMatchObject({ id: 'default.piiRedact', verdict: false });
    expect(check.error).toMatch(/^the answer is spoken: what was found in its transcript is in its audio too/);
    // Nothing found in a transcript: nothing to rewrite, and the hook passes.
    expect((await raw('stream-redacted', 'nothing personal here', spoken)).status).toBe(200);
  });

  it('holds a stream whose output is redacted and sends it rewritten, as a well-formed stream', async () => {
    const stream = await sdk('stream-redacted').chat.completions.create({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'write to jane.doe@example.com today' }] });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('[mock0] write to [EMAIL] today');
  });

  it('redacts the model\'s reasoning too, and drops the log probabilities of a redacted choice, JSON or streamed', async () => {
    const email = 'jane.doe@example.com';
    const thinking = { thinking: { type: 'enabled', budget_tokens: 1024 }, max_tokens: 2048 };
    const judged = await raw('reasoning-redacted', `write to ${email} today`, thinking);
    const text = await judged.text();
    expect(judged.status).toBe(200);
    expect(text).not.toContain(email);
    const message = (JSON.parse(text) as { choices: Array<{ message: { content: string; reasoning_content: string } }> }).choices[0]!.message;
    expect(message.reasoning_content).toBe('[messages] thinking about: write to [EMAIL] today');
    expect(message.content).toContain('[EMAIL]');
    const streamed = await raw('reasoning-redacted', `write to ${email} today`, { ...thinking, stream: true });
    const events = await streamed.text();
    expect(events).not.toContain(email);
    expect(events).toContain('[EMAIL]');
    // Log probabilities list the tokens the model wrote: a redacted choice's would spell what was replaced.
    for (const stream of [false, true]) {
      const chat = await raw('stream-redacted', `write to ${email} today`, { logprobs: true, top_logprobs: 2, stream });
      const body = await chat.text();
      expect(body).not.toContain(email);
      expect(body).toContain('[EMAIL]');
      if (!stream) expect((JSON.parse(body) as { choices: Array<{ logprobs: unknown }> }).choices[0]!.logprobs).toBeNull();
      // Nothing to redact: the log probabilities stay.
      const plain = await raw('stream-redacted', 'nothing personal', { logprobs: true, stream });
      expect(await plain.text()).toContain('"top_logprobs"');
    }
    const completion = await e2e.fetch('/v1/completions', {
      method: 'POST',
      headers: { 'x-gateway-config': 'stream-redacted', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-3.5-turbo-instruct', prompt: `write to ${email} today`, logprobs: 2 }),
    });
    const answer = (await completion.json()) as { choices: Array<{ text: string; logprobs: unknown }> };
    expect(answer.choices[0]).toMatchObject({ text: '[mock0] write to [EMAIL] today', logprobs: null });
  });
});
