// A tool call's id as Claude's hosts take it (runtime/providers/shared/tool-call-id.ts): one of
// their alphabet goes as it is, any other becomes one, the same every time, and two ids stay two.
import { expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { claudeToolCallId } from '../../runtime/providers/shared/tool-call-id.ts';

const TAKEN = /^[a-zA-Z0-9_-]{1,64}$/;

test.prop([fc.string({ maxLength: 100 })])('any id becomes one of the alphabet, and one already of it is kept', (id) => {
  const sent = claudeToolCallId(id);
  expect(sent).toMatch(TAKEN);
  if (TAKEN.test(id)) expect(sent).toBe(id);
  expect(claudeToolCallId(id)).toBe(sent);
});

test.prop([fc.string({ maxLength: 80 }), fc.string({ maxLength: 80 })])('two ids stay two', (a, b) => {
  fc.pre(a !== b);
  expect(claudeToolCallId(a)).not.toBe(claudeToolCallId(b));
});

test.prop([fc.stringMatching(/^[a-z_]{1,20}$/), fc.nat(20)])('ids that differ only in characters outside the alphabet stay two (functions.f:1 and functions_f_1)', (name, index) => {
  expect(claudeToolCallId(`functions.${name}:${index}`)).not.toBe(claudeToolCallId(`functions_${name}_${index}`));
});
