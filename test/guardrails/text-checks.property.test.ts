// One property per text check, each against a reference written from the check's description in
// schema/checks/ (not from its code): wordCount over generated texts, and so on. `not` inverts every
// verdict it applies to.
import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { FENCE_TAGS } from '../../runtime/pipeline/guardrails/checks/contains-code.ts';
import { input, judge, verdictCheck } from './check-input.ts';

const RUNS = { numRuns: 150 };
const ALPHABET = ['a', 'B', 'é', 'É', '1', ' ', '\n', '\t', '.', '!', '?', ',', 'x', 'Y', '😀'];
const text = fc.array(fc.constantFrom(...ALPHABET), { maxLength: 60 }).map((cs) => cs.join(''));
const bound = fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined });
const not = fc.boolean();

function within(count: number, min: number | undefined, max: number | undefined): boolean {
  return count >= (min ?? 0) && count <= (max ?? Infinity);
}

describe('text checks against their descriptions', () => {
  test.prop([text, bound, bound, not], RUNS)('wordCount: whitespace-separated words within [minWords, maxWords]', (t, min, max, inverted) => {
    const words = t.split(/\s+/).filter((w) => w !== '').length;
    expect(judge('default.wordCount', { minWords: min, maxWords: max, not: inverted }, t).verdict).toBe(within(words, min, max) !== inverted);
  });

  test.prop([text, bound, bound, not], RUNS)('sentenceCount: sentences ended by . ! or ?, a last unended one counting', (t, min, max, inverted) => {
    const sentences = t.split(/[.!?]+/).filter((s) => s.trim() !== '').length;
    expect(judge('default.sentenceCount', { minSentences: min, maxSentences: max, not: inverted }, t).verdict).toBe(within(sentences, min, max) !== inverted);
  });

  test.prop([text, bound, bound, not], RUNS)('characterCount: Unicode code points within bounds', (t, min, max, inverted) => {
    expect(judge('default.characterCount', { minCharacters: min, maxCharacters: max, not: inverted }, t).verdict).toBe(within([...t].length, min, max) !== inverted);
  });

  test.prop([text, bound, bound], RUNS)('the counting checks explain the count and the bound in words', (t, min, max) => {
    const noun = (n: number, unit: string) => `${n} ${n === 1 ? unit : `${unit}s`}`;
    const allowed = (unit: string) => (max === undefined ? `at least ${noun(min ?? 0, unit)} allowed` : `${min ?? 0} to ${max} ${unit}s allowed`);
    const words = t.split(/\s+/).filter((w) => w !== '').length;
    expect(judge('default.wordCount', { minWords: min, maxWords: max }, t).explanation).toBe(`${noun(words, 'word')}; ${allowed('word')}`);
    expect(judge('default.characterCount', { minCharacters: min, maxCharacters: max }, t).explanation).toBe(`${noun([...t].length, 'character')}; ${allowed('character')}`);
  });

  const WORDS = ['cat', 'dog', 'hot dog', 'a1'];
  const prose = fc.array(fc.constantFrom('cat', 'Cat', 'concat', 'dog', 'DOG.', 'hot', 'dogs', 'a1', 'xa1', ' ', ', ', '\n'), { maxLength: 12 }).map((parts) => parts.join(' '));
  test.prop([prose, fc.subarray(WORDS, { minLength: 1 }), fc.constantFrom('any', 'all', 'none')], RUNS)('contains: whole words, case-insensitive, as the operator says', (t, words, operator) => {
    const present = words.filter((w) => new RegExp(`(?<![\\p{L}\\p{N}_])${w}(?![\\p{L}\\p{N}_])`, 'iu').test(t));
    const expected = operator === 'any' ? present.length > 0 : operator === 'all' ? present.length === words.length : present.length === 0;
    expect(judge('default.contains', { words, operator }, t).verdict).toBe(expected);
  });

  test.prop([text, fc.constantFrom('.', '!', 'end', '😀'), not], RUNS)('endsWith: the text without trailing whitespace ends with the suffix', (t, suffix, inverted) => {
    const trimmed = t.replace(/\s+$/u, '');
    expect(judge('default.endsWith', { suffix, not: inverted }, t).verdict).toBe(trimmed.endsWith(suffix) !== inverted);
    expect(judge('default.endsWith', { suffix }, `${t}${suffix}  \n`).verdict).toBe(true);
  });

  test.prop([text, not], RUNS)('allUppercase / allLowercase: no letter of the other case', (t, inverted) => {
    expect(judge('default.allUppercase', { not: inverted }, t).verdict).toBe((t === t.toUpperCase()) !== inverted);
    expect(judge('default.allLowercase', { not: inverted }, t).verdict).toBe((t === t.toLowerCase()) !== inverted);
  });

  test.prop([text, not], RUNS)('notNull: some non-whitespace text', (t, inverted) => {
    expect(judge('default.notNull', { not: inverted }, t).verdict).toBe((t.trim() !== '') !== inverted);
  });

  test.prop([text, fc.constantFrom('a', 'B', 'é1', '[.!?]', '^a', 'x$', '\\d+', '(a|Y)\\s'), not], RUNS)('regexMatch: the rule matches somewhere (the same as a JavaScript RegExp for these rules)', (t, rule, inverted) => {
    expect(judge('default.regexMatch', { rule, not: inverted }, t).verdict).toBe(new RegExp(rule, 'u').test(t) !== inverted);
  });

  const object = fc.dictionary(fc.constantFrom('answer', 'score', 'tags', 'x'), fc.oneof(fc.string({ maxLength: 5 }), fc.integer()), { maxKeys: 4 });
  const wrapped = (value: unknown, how: number): string => (how === 0 ? JSON.stringify(value) : how === 1 ? `Here it is:\n\`\`\`json\n${JSON.stringify(value, null, 2)}\n\`\`\`\nDone.` : `no json ${JSON.stringify(value).slice(1)}`);
  test.prop([object, fc.integer({ min: 0, max: 2 }), fc.subarray(['answer', 'score', 'tags'], { minLength: 1 }), fc.constantFrom('any', 'all', 'none')], RUNS)('jsonKeys: a JSON object, also in a code fence, has the keys as the operator says', (value, how, keys, operator) => {
    const present = keys.filter((k) => Object.hasOwn(value, k));
    const holds = operator === 'any' ? present.length > 0 : operator === 'all' ? present.length === keys.length : present.length === 0;
    expect(judge('default.jsonKeys', { keys, operator }, wrapped(value, how)).verdict).toBe(how !== 2 && holds);
  });

  test.prop([object, fc.integer({ min: 0, max: 2 }), not], RUNS)('jsonSchema: the JSON, also in a code fence, fits the schema', async (value, how, inverted) => {
    const schema = { type: 'object', required: ['answer'], properties: { answer: { type: 'string' } } };
    const fits = typeof value.answer === 'string';
    expect((await verdictCheck('default.jsonSchema', { schema, not: inverted })(input(wrapped(value, how)))).verdict).toBe((how !== 2 && fits) !== inverted);
  });

  it('jsonSchema: a schema with an $id is prepared again, as a second hook or a reloaded config does', async () => {
    const schema = () => ({ $id: 'https://example.com/answer.json', type: 'object', required: ['answer'] });
    expect((await verdictCheck('default.jsonSchema', { schema: schema() })(input('{"answer": 1}'))).verdict).toBe(true);
    expect((await verdictCheck('default.jsonSchema', { schema: schema() })(input('{"other": 1}'))).verdict).toBe(false);
    // Another schema under the same $id: each is compiled on its own.
    expect((await verdictCheck('default.jsonSchema', { schema: { ...schema(), required: ['other'] } })(input('{"other": 1}'))).verdict).toBe(true);
  });

  const formats = Object.keys(FENCE_TAGS);
  test.prop([fc.constantFrom(...formats), fc.constantFrom(...formats), fc.boolean(), not], RUNS)('containsCode: a fenced block in the format, by any of its fence tags', (format, written, fenced, inverted) => {
    const tag = FENCE_TAGS[written][0];
    const t = fenced ? `Try this:\n\`\`\`${tag}\nsome code\n\`\`\`` : `Try ${tag} some code`;
    const holds = fenced && FENCE_TAGS[format].includes(tag);
    expect(judge('default.containsCode', { format, not: inverted }, t).verdict).toBe(holds !== inverted);
  });

  test.prop([fc.option(fc.constantFrom('gpt-4o', 'gpt-4o-mini', 'other'), { nil: null }), fc.subarray(['gpt-4o', 'gpt-4o-mini'], { minLength: 1 }), not], RUNS)('modelWhitelist: the request model is listed', (model, models, inverted) => {
    expect(judge('default.modelWhitelist', { models, not: inverted }, '', { model }).verdict).toBe((model !== null && models.includes(model)) !== inverted);
  });

  test.prop([fc.dictionary(fc.constantFrom('team', 'user', 'env'), fc.string(), { maxKeys: 3 }), fc.subarray(['team', 'user', 'env'], { minLength: 1 }), fc.constantFrom('any', 'all', 'none')], RUNS)('requiredMetadataKeys: metadata has the keys as the operator says', (metadata, keys, operator) => {
    const present = keys.filter((k) => k in metadata);
    const holds = operator === 'any' ? present.length > 0 : operator === 'all' ? present.length === keys.length : present.length === 0;
    expect(judge('default.requiredMetadataKeys', { metadataKeys: keys, operator }, '', { metadata }).verdict).toBe(holds);
  });

  const ENDPOINTS = ['chat', 'completions', 'embeddings', 'audio', 'images', 'models', 'passthrough'] as const;
  test.prop([fc.constantFrom(...ENDPOINTS), fc.option(fc.subarray([...ENDPOINTS]), { nil: undefined }), fc.option(fc.subarray([...ENDPOINTS]), { nil: undefined })], RUNS)('allowedRequestTypes: in allowedTypes when given, never in blockedTypes', (endpoint, allowedTypes, blockedTypes) => {
    const holds = (allowedTypes === undefined || allowedTypes.includes(endpoint)) && !(blockedTypes ?? []).includes(endpoint);
    expect(judge('default.allowedRequestTypes', { allowedTypes, blockedTypes }, '', { endpoint }).verdict).toBe(holds);
  });
});
