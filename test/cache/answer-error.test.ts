// Which 2xx answers the cache refuses to store as errors dressed as success: a JSON answer with a
// top-level `error`, or a stream with an error event or an event whose data has one; never an answer
// whose text merely mentions errors.
import { fc, test } from '@fast-check/vitest';
import { expect, it } from 'vitest';
import { carriesError } from '../../runtime/pipeline/cache/answer-error.ts';

const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));
const chunk = (content: string) => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] });
const sse = (events: unknown[], named: string | null = null): Buffer => Buffer.from(events.map((e) => `${named === null ? '' : `event: ${named}\n`}data: ${JSON.stringify(e)}\n\n`).join('') + 'data: [DONE]\n\n');

it('reads a JSON answer\'s top-level error only', () => {
  expect(carriesError(json({ error: { message: 'overloaded', type: 'server_error' } }), false)).toBe(true);
  expect(carriesError(json({ error: 'overloaded' }), false)).toBe(true);
  expect(carriesError(json({ id: 'x', object: 'chat.completion', error: null, choices: [] }), false)).toBe(false);
  expect(carriesError(json({ id: 'x', choices: [{ message: { content: '{"error": "in the text"}' } }] }), false)).toBe(false);
  expect(carriesError(json({ data: [{ embedding: [0.1], error: 'nested, not top-level' }] }), false)).toBe(false);
});

it('reads every event of a stream', () => {
  expect(carriesError(sse([chunk('a'), { error: { message: 'overloaded mid-stream' } }, chunk('b')]), true)).toBe(true);
  expect(carriesError(sse([{ type: 'error', message: 'x' }], 'error'), true)).toBe(true);
  expect(carriesError(sse([chunk('the "error": word'), chunk('b')]), true)).toBe(false);
});

test.prop([fc.array(fc.string(), { maxLength: 8 }), fc.nat()], { numRuns: 200 })('a stream of content chunks never counts as an error, whatever the text; one error event anywhere does', (texts, at) => {
  const chunks = texts.map(chunk);
  expect(carriesError(sse(chunks), true)).toBe(false);
  const withError: unknown[] = [...chunks];
  withError.splice(at % (chunks.length + 1), 0, { error: { message: 'boom' } });
  expect(carriesError(sse(withError), true)).toBe(true);
});
