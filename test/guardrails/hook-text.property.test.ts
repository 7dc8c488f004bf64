// What hooks read and rewrite, on every endpoint with text: checks judge the last user message (its
// text parts joined), the prompt or the input (strings joined by newlines; an image's prompt, the
// text to speak), each choice of an answer; transformers leave no copy of what they replace in any message, part, string or choice, and
// give back the very same body when they found nothing; a prompt or input of token ids is unreadable;
// a transcription's text is judged and rewritten with its segments, its token-level detail dropped.
import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { answerText, requestText, rewriteAnswer, rewriteRequest, unreadableRequestText } from '../../runtime/pipeline/guardrails/hook-text.ts';
import type { TextTransform } from '../../runtime/pipeline/guardrails/check.ts';

const RUNS = { numRuns: 150 };
const MARK = 'SECRET';
const words = fc.array(fc.constantFrom('hello', 'world', MARK, 'plan', '', ' ', 'x\ny'), { maxLength: 4 }).map((w) => w.join(' '));

/** Replaces every MARK, counting them: what regexReplace and piiRedact do. */
const redact: TextTransform = (text) => {
  const found = text.split(MARK).length - 1;
  return { text: text.replaceAll(MARK, '[R]'), found };
};
const count = (text: string): number => text.split(MARK).length - 1;

const textPart = words.map((text) => ({ type: 'text', text }));
const imagePart = fc.constant({ type: 'image_url', image_url: { url: `https://example.com/${MARK}.png` } });
const content = fc.oneof(words, fc.array(fc.oneof(textPart, imagePart), { maxLength: 3 }), fc.constant(null));
const message = fc.record({ role: fc.constantFrom('system', 'user', 'assistant', 'developer'), content, reasoning_content: fc.option(words, { nil: undefined }) }, { requiredKeys: ['role', 'content'] });
const chat = fc.record({ model: fc.constant('m'), messages: fc.array(message, { maxLength: 5 }) });
const strings = fc.oneof(words, fc.array(words, { minLength: 1, maxLength: 4 }));
const tokenIds = fc.oneof(fc.array(fc.nat(50_000), { minLength: 1, maxLength: 4 }), fc.array(fc.array(fc.nat(50_000), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }));

function contentText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) return '';
  return value.filter((p) => p.type === 'text').map((p) => p.text).join('');
}

/** Every text a transformer should have rewritten, in a chat body: contents, text parts, an earlier answer's reasoning. */
function chatTexts(body: { messages: Array<{ content: unknown; reasoning_content?: string }> }): string[] {
  return body.messages.flatMap((m) => [
    ...(typeof m.content === 'string' ? [m.content] : Array.isArray(m.content) ? m.content.filter((p) => p.type === 'text').map((p) => p.text as string) : []),
    ...(m.reasoning_content === undefined ? [] : [m.reasoning_content]),
  ]);
}

describe('hook text', () => {
  test.prop([chat], RUNS)('chat: checks read the last user message, its text parts joined', (body) => {
    const users = body.messages.filter((m) => m.role === 'user');
    expect(requestText('chat', body)).toBe(users.length === 0 ? '' : contentText(users[users.length - 1].content));
    expect(unreadableRequestText('chat', body)).toBeNull();
  });

  test.prop([fc.constantFrom('completions', 'embeddings' as const), strings], RUNS)('completions and embeddings: the prompt or input, strings joined by newlines', (endpoint, value) => {
    const field = endpoint === 'completions' ? 'prompt' : 'input';
    expect(requestText(endpoint, { model: 'm', [field]: value })).toBe(typeof value === 'string' ? value : value.join('\n'));
    expect(unreadableRequestText(endpoint, { model: 'm', [field]: value })).toBeNull();
  });

  test.prop([fc.constantFrom('completions', 'embeddings' as const), tokenIds, fc.array(words, { maxLength: 2 })], RUNS)('a prompt or input of token ids is unreadable, even mixed with strings', (endpoint, ids, mixedWith) => {
    const field = endpoint === 'completions' ? 'prompt' : 'input';
    const value = [...mixedWith, ...ids];
    expect(unreadableRequestText(endpoint, { model: 'm', [field]: value })).toBe(`the ${field} is token ids, which no check can read as text; not judged`);
    expect(unreadableRequestText(endpoint, { model: 'm', [field]: 42 })).not.toBeNull();
  });

  test.prop([chat], RUNS)('chat: a transformer rewrites every message and text part, and counts each find; nothing found, the same body', (body) => {
    const before = chatTexts(body).reduce((n, t) => n + count(t), 0);
    const out = rewriteRequest('chat', body, redact);
    expect(out.found).toBe(before);
    if (before === 0) expect(out.value).toBe(body);
    const rewritten = out.value as typeof body;
    expect(chatTexts(rewritten).some((t) => t.includes(MARK))).toBe(false);
    // Only text is rewritten: an image part keeps its URL, roles stay.
    expect(rewritten.messages.map((m) => m.role)).toEqual(body.messages.map((m) => m.role));
    expect(JSON.stringify(rewritten).split(`${MARK}.png`).length).toBe(JSON.stringify(body).split(`${MARK}.png`).length);
  });

  test.prop([fc.constantFrom('completions', 'embeddings' as const), strings], RUNS)('completions and embeddings: a transformer rewrites every string of the prompt or input', (endpoint, value) => {
    const field = endpoint === 'completions' ? 'prompt' : 'input';
    const body = { model: 'm', [field]: value };
    const before = (typeof value === 'string' ? [value] : value).reduce((n, t) => n + count(t), 0);
    const out = rewriteRequest(endpoint, body, redact);
    expect(out.found).toBe(before);
    if (before === 0) expect(out.value).toBe(body);
    expect(JSON.stringify(out.value).includes(MARK)).toBe(false);
  });

  const choice = fc.record({ index: fc.nat(3), message: fc.record({ role: fc.constant('assistant'), content }), text: words });
  test.prop([fc.constantFrom('chat', 'completions' as const), fc.array(choice, { maxLength: 3 })], RUNS)('answers: checks read the first choice, transformers rewrite every choice', (endpoint, choices) => {
    const answer = { id: 'a', choices: endpoint === 'chat' ? choices.map(({ text: _, ...c }) => c) : choices.map(({ message: _, ...c }) => c) };
    const first = choices[0];
    expect(answerText(endpoint, answer)).toBe(first === undefined ? '' : endpoint === 'chat' ? contentText(first.message.content) : first.text);
    const texts = choices.map((c) => (endpoint === 'chat' ? chatTexts({ messages: [c.message] }).join('') : c.text));
    const out = rewriteAnswer(endpoint, answer, redact);
    expect(out.found).toBe(texts.reduce((n, t) => n + count(t), 0));
    if (out.found === 0) expect(out.value).toBe(answer);
    const after = (out.value as typeof answer).choices.map((c) => JSON.stringify(endpoint === 'chat' ? chatTexts({ messages: [(c as { message: { content: unknown } }).message] }) : (c as { text: string }).text));
    expect(after.some((t) => t.includes(MARK))).toBe(false);
  });

  const written = fc.record({ index: fc.nat(3), content: words, reasoning_content: fc.option(words, { nil: undefined }), reasoning: fc.option(words, { nil: undefined }), refusal: fc.option(words, { nil: null }), logprobs: fc.boolean() });
  test.prop([fc.array(written, { maxLength: 3 })], RUNS)('chat answers: a transformer rewrites the reasoning and refusal too, and drops the log probabilities of a choice it replaced something in', (choices) => {
    const logprobsOf = (text: string) => ({ content: text.split(' ').map((token) => ({ token, logprob: -0.5, bytes: [...Buffer.from(token)], top_logprobs: [] })), refusal: null });
    const answer = {
      id: 'a',
      choices: choices.map(({ index, logprobs, ...message }) => ({ index, message: { role: 'assistant', ...message }, logprobs: logprobs ? logprobsOf(message.content) : null, finish_reason: 'stop' })),
    };
    const texts = choices.map((c) => [c.content, c.reasoning_content ?? '', c.reasoning ?? '', c.refusal ?? ''].join('|'));
    const out = rewriteAnswer('chat', answer, redact);
    expect(out.found).toBe(texts.reduce((n, t) => n + count(t), 0));
    (out.value as typeof answer).choices.forEach((choice, at) => {
      // Nothing of a replaced value is left anywhere in the choice; a choice nothing was found in is the same object.
      expect(JSON.stringify(choice).includes(MARK)).toBe(false);
      if (count(texts[at]!) === 0) expect(choice).toBe(answer.choices[at]);
      else expect(choice.logprobs).toBeNull();
    });
  });

  const segmentOf = (text: string, id: number) => ({ id, start: id, end: id + 1, text, tokens: [50_000 + id, 50_001 + id] });
  test.prop([fc.array(words, { minLength: 1, maxLength: 3 }), fc.boolean()], RUNS)('a transcription: checks read its text; a transformer rewrites it and its segments, and drops the word timings and log probabilities once it replaced something', (pieces, detailed) => {
    const text = pieces.join(' ');
    const answer = { task: 'transcribe', text, segments: pieces.map(segmentOf), ...(detailed ? { words: [{ word: text, start: 0, end: 1 }], logprobs: [{ token: text, logprob: -0.1, bytes: [] }] } : {}) };
    expect(answerText('audio', answer)).toBe(text);
    const out = rewriteAnswer('audio', answer, redact);
    expect(out.found).toBe(count(text));
    if (out.found === 0) {
      expect(out.value).toBe(answer);
      return;
    }
    expect(JSON.stringify(out.value).includes(MARK)).toBe(false);
    const value = out.value as { text: string; segments: Array<{ text: string; tokens: number[] }>; words?: unknown; logprobs?: unknown };
    expect(value.text).toBe(text.replaceAll(MARK, '[R]'));
    expect(value.words).toBeUndefined();
    expect(value.logprobs).toBeUndefined();
    // Each segment rewritten, its token ids (which spell the old words) gone where it changed.
    value.segments.forEach((segment, i) => expect(segment).toEqual(count(pieces[i]!) === 0 ? answer.segments[i] : { ...answer.segments[i], text: pieces[i]!.replaceAll(MARK, '[R]'), tokens: [] }));
  });

  test.prop([fc.constantFrom('S', 'SE', 'SEC', 'SECR', 'SECRE')], RUNS)('a transcription whose replaced value runs across two segments loses its segments', (head) => {
    const answer = { text: `say ${MARK} now`, segments: [segmentOf(`say ${head}`, 0), segmentOf(`${MARK.slice(head.length)} now`, 1)] };
    const out = rewriteAnswer('audio', answer, redact);
    expect(out.value).toEqual({ text: 'say [R] now', segments: [] });
  });

  test.prop([words, fc.boolean()], RUNS)('an image\'s prompt, the text a speech request speaks and a transcription\'s prompt are read and rewritten', (text, speech) => {
    const image = { model: 'gpt-image-1', prompt: text, n: 1 };
    const audio = speech ? { model: 'tts-1', voice: 'alloy', input: text } : { model: 'whisper-1', prompt: text, language: 'en' };
    for (const [endpoint, body, field] of [['images', image, 'prompt'], ['audio', audio, speech ? 'input' : 'prompt']] as const) {
      expect(requestText(endpoint, body)).toBe(text);
      expect(unreadableRequestText(endpoint, body)).toBeNull();
      const out = rewriteRequest(endpoint, body, redact);
      expect(out.found).toBe(count(text));
      expect((out.value as Record<string, string>)[field]).toBe(text.replaceAll(MARK, '[R]'));
    }
  });

  test.prop([words, fc.array(words, { maxLength: 2 })], RUNS)('a spoken answer is read as its transcript; a transformer that finds something in any choice\'s transcript fails, nothing found leaves it as it is', (transcript, others) => {
    const spoken = (text: string, index: number) => ({ index, message: { role: 'assistant', content: null, audio: { id: 'audio_1', data: 'UklGRg==', transcript: text } } });
    const answer = { id: 'a', choices: [spoken(transcript, 0), ...others.map((text, i) => spoken(text, i + 1))] };
    expect(answerText('chat', answer)).toBe(transcript);
    if ([transcript, ...others].some((text) => count(text) > 0)) expect(() => rewriteAnswer('chat', answer, redact)).toThrow(/^the answer is spoken/);
    else expect(rewriteAnswer('chat', answer, redact)).toEqual({ value: answer, found: 0 });
  });

  test.prop([fc.constantFrom('chat', 'completions', 'embeddings' as const), fc.oneof(fc.constant(null), fc.string(), fc.array(fc.nat()))], RUNS)('a body that is not an object has no text and is never rewritten', (endpoint, body) => {
    expect(requestText(endpoint, body)).toBe('');
    expect(unreadableRequestText(endpoint, body)).toBeNull();
    expect(rewriteRequest(endpoint, body, redact)).toEqual({ value: body, found: 0 });
    expect(rewriteAnswer(endpoint, body, redact)).toEqual({ value: body, found: 0 });
  });
});
