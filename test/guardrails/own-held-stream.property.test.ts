// A family's own chat stream through the pass-through, held for the output checks, in each of its
// framings: the answer the checks judge has each text (a block's or a candidate's text, its reasoning)
// as its pieces joined, and a rewritten stream still reads, as the family's client reads it, as the
// same events with the rewritten texts in place (a delta carrying a whole text, the later ones
// empty), every other event as it was. The event stream's checksums hold.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { holdOwnStream, type OwnFraming } from '../../runtime/pipeline/guardrails/own-text/own-held-stream.ts';
import { OWN_TEXTS } from '../../runtime/pipeline/guardrails/own-text/own-texts.ts';
import type { TextDialect } from '../../runtime/pipeline/metered-pass-through.ts';
import { EventStreamDecoder } from '../../runtime/providers/cloudc/event-stream.ts';
import { encodeMessage } from '../mocks/cloudc/event-stream.ts';

type Json = Record<string, any>;
interface Event { type: string; json: Json }
/** A dialect, or a second form one reads: Mistral's chat completion stream (the `mistral` reading's other form). */
type Case = TextDialect | 'mistralChat';
const dialectOf = (c: Case): TextDialect => (c === 'mistralChat' ? 'mistral' : c);

const piece = fc.string({ maxLength: 10 });
const pieces = fc.array(piece, { maxLength: 5 });

/** The dialect's stream events carrying `thinking` pieces (reasoning) then `text` pieces, with the events around them. */
function eventsOf(dialect: Case, thinking: string[], text: string[]): Event[] {
  switch (dialect) {
    case 'messages': {
      const events: Event[] = [{ type: 'message_start', json: { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude', content: [], usage: { input_tokens: 3, output_tokens: 1 } } } }];
      const block = (index: number, kind: 'thinking' | 'text', texts: string[]) => {
        events.push({ type: 'content_block_start', json: { type: 'content_block_start', index, content_block: { type: kind, [kind]: '' } } });
        for (const t of texts) events.push({ type: 'content_block_delta', json: { type: 'content_block_delta', index, delta: { type: `${kind}_delta`, [kind]: t } } });
        events.push({ type: 'content_block_stop', json: { type: 'content_block_stop', index } });
      };
      block(0, 'thinking', thinking);
      block(1, 'text', text);
      events.push({ type: 'message_delta', json: { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 9 } } }, { type: 'message_stop', json: { type: 'message_stop' } });
      return events;
    }
    case 'generateContent': {
      const event = (part: Json, last: boolean): Event => ({ type: 'message', json: { candidates: [{ index: 0, content: { role: 'model', parts: [part] }, ...(last ? { finishReason: 'STOP' } : {}) }], modelVersion: 'gemini', ...(last ? { usageMetadata: { promptTokenCount: 3 } } : {}) } });
      const all = [...thinking.map((t) => ({ text: t, thought: true })), ...text.map((t) => ({ text: t }))];
      return all.length === 0 ? [event({ text: '' }, true)] : all.map((part, at) => event(part, at === all.length - 1));
    }
    case 'converse':
      return [
        { type: 'messageStart', json: { role: 'assistant', p: 'ab' } },
        ...thinking.map((t) => ({ type: 'contentBlockDelta', json: { contentBlockIndex: 0, delta: { reasoningContent: { text: t } }, p: 'ab' } })),
        ...text.map((t) => ({ type: 'contentBlockDelta', json: { contentBlockIndex: 1, delta: { text: t }, p: 'ab' } })),
        { type: 'messageStop', json: { stopReason: 'end_turn', p: 'ab' } },
        { type: 'metadata', json: { usage: { inputTokens: 3, outputTokens: 9 }, metrics: { latencyMs: 5 }, p: 'ab' } },
      ];
    // Nova's invoke stream: converse-stream's events, each as a chunk's one member.
    case 'nova':
      return eventsOf('converse', thinking, text).map(({ type, json: { p: _padding, ...json } }) => ({ type, json: { [type]: json } }));
    // The text completion models have no reasoning; the last chunk carries the service's metrics.
    case 'titan':
      return completionChunks(text, (t, last) => ({ outputText: t, index: 0, totalOutputTextTokenCount: last ? 9 : null, completionReason: last ? 'FINISH' : null }));
    case 'llama':
      return completionChunks(text, (t, last) => ({ generation: t, prompt_token_count: null, generation_token_count: 1, stop_reason: last ? 'stop' : null }));
    case 'mistral':
      return completionChunks(text, (t, last) => ({ outputs: [{ text: t, stop_reason: last ? 'stop' : null }] }));
    case 'deepseek':
      return completionChunks(text, (t, last) => ({ choices: [{ text: t, stop_reason: last ? 'stop' : null }] }));
    // Mistral's chat completion stream: each piece in its choice's `message`, its end as `stop_reason`.
    case 'mistralChat':
      return completionChunks(text, (t, last) => ({ id: 'm1', object: 'chat.completion.chunk', choices: [{ index: 0, message: { role: 'assistant', content: t }, stop_reason: last ? 'stop' : null }] }));
    // OpenAI's open-weight models' invoke stream: chat completion chunks, reasoning then content.
    case 'openaiChat': {
      const chunk = (delta: Json, finish: string | null): Event => ({ type: 'chunk', json: { id: 'c1', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] } });
      return [chunk({ role: 'assistant' }, null), ...thinking.map((t) => chunk({ reasoning_content: t }, null)), ...text.map((t) => chunk({ content: t }, null)), chunk({}, 'stop')];
    }
  }
}

function completionChunks(text: string[], chunk: (text: string, last: boolean) => Json): Event[] {
  const events = (text.length === 0 ? [''] : text).map((t, at, all) => ({ type: 'chunk', json: chunk(t, at === all.length - 1) }));
  events.at(-1)!.json['amazon-bedrock-invocationMetrics'] = { inputTokenCount: 3, outputTokenCount: 9 };
  return events;
}

/** The text completion dialects, and Mistral's chat form: no reasoning. */
const COMPLETIONS = new Set<Case>(['titan', 'llama', 'mistral', 'deepseek', 'mistralChat']);
/** Dialects whose every chunk is a delta (of text, reasoning, or none), whatever its type: an empty piece may be where a rewritten text goes. */
const DELTA_CHUNKS = new Set<Case>([...COMPLETIONS, 'openaiChat']);
/** Event streams whose events come inside `chunk` events (invoke streams), not named by their own `:event-type`. */
const chunked = (dialect: Case): boolean => dialect !== 'converse';

const FRAMINGS: Array<[Case, OwnFraming]> = [
  ['messages', 'sse'], ['messages', 'event-stream'], ['generateContent', 'sse'], ['generateContent', 'array'], ['converse', 'event-stream'],
  ['nova', 'event-stream'], ['titan', 'event-stream'], ['llama', 'event-stream'], ['mistral', 'event-stream'], ['mistralChat', 'event-stream'], ['deepseek', 'event-stream'], ['openaiChat', 'event-stream'],
];

function framed(dialect: Case, framing: OwnFraming, events: Event[]): Buffer {
  switch (framing) {
    case 'sse': return Buffer.from(events.map((e) => (dialect === 'messages' ? `event: ${e.type}\ndata: ${JSON.stringify(e.json)}\n\n` : `data: ${JSON.stringify(e.json)}\r\n\r\n`)).join(''));
    case 'array': return Buffer.from(JSON.stringify(events.map((e) => e.json)));
    case 'event-stream':
      return Buffer.concat(events.map((e) => chunked(dialect)
        ? encodeMessage({ ':event-type': 'chunk', ':content-type': 'application/json', ':message-type': 'event' }, Buffer.from(JSON.stringify({ bytes: Buffer.from(JSON.stringify(e.json)).toString('base64'), p: 'ab' })))
        : encodeMessage({ ':event-type': e.type, ':content-type': 'application/json', ':message-type': 'event' }, Buffer.from(JSON.stringify(e.json)))));
  }
}

/** The events as the family's client reads them out of the framing. */
function unframed(dialect: Case, framing: OwnFraming, bytes: Buffer): Event[] {
  switch (framing) {
    case 'sse': return bytes.toString().split(/\r?\n\r?\n/).filter((e) => e !== '').map((e) => {
      const type = /^event: (.*)$/m.exec(e)?.[1] ?? 'message';
      return { type, json: JSON.parse(/^data: (.*)$/m.exec(e)![1]) };
    });
    case 'array': return (JSON.parse(bytes.toString()) as Json[]).map((json) => ({ type: 'message', json }));
    case 'event-stream': {
      const decoder = new EventStreamDecoder();
      const messages = decoder.push(bytes);
      expect(decoder.pending).toBe(0);
      return messages.map((m) => {
        const payload = JSON.parse(m.payload.toString());
        if (!chunked(dialect)) return { type: String(m.headers[':event-type']), json: payload };
        const json = JSON.parse(Buffer.from(payload.bytes, 'base64').toString());
        return { type: dialect === 'messages' ? String(json.type) : dialect === 'nova' ? Object.keys(json)[0]! : 'chunk', json };
      });
    }
  }
}

/** The reasoning and the text the events carry, their pieces joined, read the way the test built them. */
function textsOf(dialect: Case, events: Event[]): { thinking: string; text: string } {
  let thinking = '';
  let text = '';
  for (const { json } of events) {
    if (dialect === 'messages' && json.type === 'content_block_delta') {
      if (json.delta.type === 'thinking_delta') thinking += json.delta.thinking;
      else text += json.delta.text;
    } else if (dialect === 'generateContent') {
      for (const part of json.candidates[0].content.parts) if (part.thought) thinking += part.text; else text += part.text;
    } else if (dialect === 'converse' && json.delta !== undefined) {
      if (json.delta.reasoningContent !== undefined) thinking += json.delta.reasoningContent.text;
      else text += json.delta.text;
    } else if (dialect === 'nova' && json.contentBlockDelta !== undefined) {
      const delta = json.contentBlockDelta.delta;
      if (delta.reasoningContent !== undefined) thinking += delta.reasoningContent.text;
      else text += delta.text;
    } else if (dialect === 'titan') text += json.outputText;
    else if (dialect === 'llama') text += json.generation;
    else if (dialect === 'mistral') text += json.outputs[0].text;
    else if (dialect === 'deepseek') text += json.choices[0].text;
    else if (dialect === 'mistralChat') text += json.choices[0].message.content;
    else if (dialect === 'openaiChat') {
      const delta = json.choices[0].delta;
      if (typeof delta.reasoning_content === 'string') thinking += delta.reasoning_content;
      if (typeof delta.content === 'string') text += delta.content;
    }
  }
  return { thinking, text };
}

/** A rewrite that changes every text but the empty one, as a transformer finds nothing in "". */
const mark = (t: string): string => (t === '' ? '' : `<${t.toUpperCase()}>`);

describe('a family\'s own stream, held', () => {
  test.prop([fc.constantFrom(...FRAMINGS), pieces, pieces], { numRuns: 200 })('is judged as its texts joined, and rewritten in place', ([dialect, framing], someThinking, text) => {
    const thinking = COMPLETIONS.has(dialect) ? [] : someThinking;
    const events = eventsOf(dialect, thinking, text);
    const held = holdOwnStream(dialectOf(dialect), framing, framed(dialect, framing, events))!;
    const own = OWN_TEXTS[dialectOf(dialect)];
    // The checks judge the text, not the reasoning.
    expect(own.answerTexts(held.answer)[0].text).toBe(text.join(''));
    const judged = own.rewriteAnswer(held.answer, mark);
    const rewritten = unframed(dialect, framing, held.rewritten(judged));
    expect(rewritten.length).toBe(events.length);
    const texts = textsOf(dialect, rewritten);
    // A text the stream carried at all is rewritten whole; one it never carried stays absent.
    expect(texts.text).toBe(mark(text.join('')));
    expect(texts.thinking).toBe(mark(thinking.join('')));
    // Every event keeps its type, and those that carry no text are as they were.
    rewritten.forEach((event, at) => {
      expect(event.type).toBe(events[at].type);
      if (textsOf(dialect, [events[at]]).text === '' && textsOf(dialect, [events[at]]).thinking === '' && !/delta/i.test(events[at].type) && dialect !== 'generateContent' && !DELTA_CHUNKS.has(dialect)) expect(event.json).toEqual(events[at].json);
    });
    // The rewritten stream, held again, is the judged answer's texts.
    const again = holdOwnStream(dialectOf(dialect), framing, held.rewritten(judged))!;
    expect(own.slots(again.answer)).toEqual(own.slots(judged));
  });

  test.prop([fc.constantFrom(...FRAMINGS), pieces], { numRuns: 60 })('goes out as it came when the checks changed nothing', ([dialect, framing], text) => {
    const bytes = framed(dialect, framing, eventsOf(dialect, [], text));
    const held = holdOwnStream(dialectOf(dialect), framing, bytes)!;
    expect(unframed(dialect, framing, held.rewritten(held.answer))).toEqual(unframed(dialect, framing, bytes));
  });

  test('a corrupt event stream has no answer to judge; one cut inside its last message keeps those bytes', () => {
    const bytes = framed('converse', 'event-stream', eventsOf('converse', [], ['a', 'b']));
    const corrupt = Buffer.from(bytes);
    corrupt[9] ^= 0xff;
    expect(holdOwnStream('converse', 'event-stream', corrupt)).toBeNull();
    const cut = bytes.subarray(0, bytes.length - 7);
    const held = holdOwnStream('converse', 'event-stream', cut)!;
    const out = held.rewritten(OWN_TEXTS.converse.rewriteAnswer(held.answer, mark));
    const decoder = new EventStreamDecoder();
    const messages = decoder.push(out);
    expect(messages.map((m) => m.headers[':event-type'])).toEqual(['messageStart', 'contentBlockDelta', 'contentBlockDelta', 'messageStop']);
    expect(textsOf('converse', messages.map((m) => ({ type: '', json: JSON.parse(m.payload.toString()) }))).text).toBe('<AB>');
    expect(decoder.pending).toBeGreaterThan(0);
    expect(out.subarray(out.length - decoder.pending).equals(cut.subarray(cut.length - decoder.pending))).toBe(true);
  });
});
