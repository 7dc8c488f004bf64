// A check whose parameters give it the same verdict for every request decides nothing: the compiler
// refuses it (CFG_CHECK_CONSTANT_VERDICT), in configs and in stored guardrails alike. A property
// runs the check itself on every endpoint to confirm that what the compiler refuses is constant and
// what it takes is not.
import { fc, test } from '@fast-check/vitest';
import { expect, it } from 'vitest';
import { checkConfig } from '../../compiler/config/index.ts';
import { checkNamedGuardrail } from '../../compiler/config/hook-checks.ts';
import { judge } from '../guardrails/check-input.ts';

const ENDPOINTS = ['chat', 'completions', 'embeddings', 'audio', 'images', 'models', 'passthrough'] as const;
const RUNS = { numRuns: 300, seed: Number(process.env.FC_SEED ?? Date.now() % 2 ** 31) };

function codes(parameters: Record<string, unknown>, check: string): string[] {
  const result = checkConfig({ virtual_key: 'v', input_guardrails: [{ id: 'g', [check]: parameters }] });
  return result.ok ? [] : result.errors.map((e) => `${e.code} ${e.pointer}`);
}

it('refuses counting bounds that cross, and takes equal ones', () => {
  expect(codes({ minWords: 10, maxWords: 5 }, 'default.wordCount')).toEqual(['CFG_CHECK_CONSTANT_VERDICT /input_guardrails/0/default.wordCount/minWords']);
  expect(codes({ minSentences: 3, maxSentences: 2 }, 'default.sentenceCount')).toEqual(['CFG_CHECK_CONSTANT_VERDICT /input_guardrails/0/default.sentenceCount/minSentences']);
  expect(codes({ minCharacters: 5, maxCharacters: 5 }, 'default.characterCount')).toEqual([]);
  expect(checkNamedGuardrail({ checks: [{ id: 'default.characterCount', parameters: { minCharacters: 9, maxCharacters: 1 } }] }).map((e) => e.code)).toEqual(['CFG_CHECK_CONSTANT_VERDICT']);
});

test.prop([fc.option(fc.subarray([...ENDPOINTS]), { nil: undefined }), fc.option(fc.subarray([...ENDPOINTS]), { nil: undefined })], RUNS)(
  'allowedRequestTypes: refused exactly when the check gives every endpoint one verdict',
  (allowedTypes, blockedTypes) => {
    const parameters = { ...(allowedTypes === undefined ? {} : { allowedTypes }), ...(blockedTypes === undefined ? {} : { blockedTypes }) };
    const verdicts = new Set(ENDPOINTS.map((endpoint) => judge('default.allowedRequestTypes', parameters, '', { endpoint }).verdict));
    const refused = codes(parameters, 'default.allowedRequestTypes').some((c) => c.startsWith('CFG_CHECK_CONSTANT_VERDICT'));
    expect(refused).toBe(verdicts.size === 1);
  },
);

/** Each counting check, its bound names, and a text of n of what it counts. */
const COUNTING = [
  ['default.wordCount', 'minWords', 'maxWords', (n: number) => Array.from({ length: n }, () => 'word').join(' ')],
  ['default.sentenceCount', 'minSentences', 'maxSentences', (n: number) => 'It is. '.repeat(n).trim()],
  ['default.characterCount', 'minCharacters', 'maxCharacters', (n: number) => 'x'.repeat(n)],
] as const;

test.prop([fc.constantFrom(...COUNTING), fc.option(fc.nat(4), { nil: undefined }), fc.option(fc.nat(4), { nil: undefined })], RUNS)(
  'counting checks: refused exactly when texts of 0 to 6 units all get one verdict (crossed bounds, or no bound at all)',
  ([check, minKey, maxKey, textOf], min, max) => {
    const parameters = { ...(min === undefined ? {} : { [minKey]: min }), ...(max === undefined ? {} : { [maxKey]: max }) };
    const verdicts = new Set([0, 1, 2, 3, 4, 5, 6].map((n) => judge(check, parameters, textOf(n), { endpoint: 'chat' }).verdict));
    const refused = codes(parameters, check).some((c) => c.startsWith('CFG_CHECK_CONSTANT_VERDICT'));
    expect(refused).toBe(verdicts.size === 1);
  },
);
