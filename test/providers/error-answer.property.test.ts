// A 2xx JSON answer is an error dressed as success only when its top-level `error` is an object or a
// message (runtime/providers/shared/error-answer.ts): never an answer whose text, tool arguments or
// nested members say "error", whatever they hold.
import { describe, expect } from 'vitest';
import { test } from '@fast-check/vitest';
import fc from 'fast-check';
import { dressedErrorAnswer, vendorErrorStatus } from '../../runtime/providers/shared/error-answer.ts';

const text = fc.oneof(fc.string({ maxLength: 30, unit: 'grapheme' }), fc.constantFrom('error', '"error"', '{"error": {"code": 500}}'));
const completion = fc.record({
  id: text,
  object: fc.constant('chat.completion'),
  choices: fc.array(fc.record({ index: fc.nat(), message: fc.record({ role: fc.constant('assistant'), content: text, tool_calls: fc.constant([{ id: 'c', type: 'function', function: { name: 'error', arguments: '{"error":"x"}' } }]) }) }), { maxLength: 2 }),
  metadata: fc.dictionary(fc.constantFrom('error', 'note'), fc.json({ maxDepth: 1 }).map((j) => JSON.parse(j) as unknown)),
});

describe('an error dressed as success', () => {
  test.prop([completion])('an answer without a top-level error is never one, whatever it says inside', (answer) => {
    expect(dressedErrorAnswer(Buffer.from(JSON.stringify(answer)))).toBeNull();
  });

  test.prop([completion, fc.constantFrom(null, false, 0, '', true)])('a top-level error that is not an object or a message is none', (answer, error) => {
    expect(dressedErrorAnswer(Buffer.from(JSON.stringify({ ...answer, error })))).toBeNull();
  });

  test.prop([fc.oneof(fc.dictionary(fc.constantFrom('message', 'code', 'type', 'status', 'metadata'), fc.json({ maxDepth: 1 }).map((j) => JSON.parse(j) as unknown)), fc.string({ minLength: 1, maxLength: 30 }))])(
    'a top-level error object or message is the error answer of the status it names: its body as it came when it has a message and a type, else one that has both',
    (error) => {
      const body = Buffer.from(JSON.stringify({ error }));
      const answer = dressedErrorAnswer(body)!;
      expect(answer).toMatchObject({ status: vendorErrorStatus(error), headers: { 'content-type': 'application/json' } });
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(600);
      const said = JSON.parse(answer.body.toString()) as { error: { message: unknown; type: unknown } };
      expect(said.error).toMatchObject({ message: expect.any(String), type: expect.any(String) });
      const whole = typeof error === 'object' && typeof error.message === 'string' && typeof error.type === 'string';
      if (whole) expect(answer.body.equals(body)).toBe(true);
      if (typeof error === 'string') expect(said.error.message).toBe(error);
    },
  );
});
