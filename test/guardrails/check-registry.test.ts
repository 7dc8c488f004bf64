// Every built-in check with a schema has a runner and every runner has a schema; and one conformance
// pass over every check: on any text, with valid parameters, it answers a boolean verdict and an
// explanation (or, for transformers, a text and a count), the same each time, and never throws.
import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { CHECKS } from '../../generated/checks.ts';
import { BUILT_IN_CHECKS } from '../../runtime/pipeline/guardrails/check-registry.ts';
import { input, transformer, verdictCheck } from './check-input.ts';

/** Valid parameters for each check that runs without the network. */
const SAMPLE_PARAMETERS: Record<string, Record<string, unknown>> = {
  'default.regexMatch': { rule: '[a-z]+\\d' },
  'default.wordCount': { minWords: 1, maxWords: 5 },
  'default.sentenceCount': { maxSentences: 2 },
  'default.characterCount': { minCharacters: 3 },
  'default.contains': { words: ['alpha', 'beta gamma'], operator: 'all' },
  'default.endsWith': { suffix: '?' },
  'default.allUppercase': {},
  'default.allLowercase': { not: true },
  'default.jsonSchema': { schema: { type: 'array' } },
  'default.jsonKeys': { keys: ['a'], operator: 'none' },
  'default.containsCode': { format: 'Python' },
  'default.validUrls': {},
  'default.notNull': {},
  'default.modelWhitelist': { models: ['gpt-4o-mini'] },
  'default.requiredMetadataKeys': { metadataKeys: ['team'] },
  'default.allowedRequestTypes': { blockedTypes: ['images'] },
  'default.regexReplace': { rule: '\\d+' },
  'default.piiRedact': {},
};
const NETWORK_CHECKS = new Set(['default.jwt', 'default.webhook', 'default.log']);

describe('the check registry', () => {
  it('has a runner for every check schema and a schema for every runner', () => {
    expect(Object.keys(BUILT_IN_CHECKS).sort()).toEqual(Object.keys(CHECKS).sort());
  });

  it('has sample parameters, valid by the schema, for every check that needs no network', () => {
    for (const id of Object.keys(CHECKS)) {
      if (NETWORK_CHECKS.has(id)) continue;
      expect(SAMPLE_PARAMETERS[id], id).toBeDefined();
      expect(CHECKS[id].validate(SAMPLE_PARAMETERS[id]), id).toBe(true);
    }
  });

  test.prop([fc.constantFrom(...Object.keys(SAMPLE_PARAMETERS)), fc.string({ maxLength: 200 }), fc.constantFrom('before', 'after') as fc.Arbitrary<'before' | 'after'>], { numRuns: 300 })('every check answers any text the same way twice, without throwing', async (id, text, phase) => {
    const parameters = SAMPLE_PARAMETERS[id];
    if (BUILT_IN_CHECKS[id].kind === 'transform') {
      const { transform } = transformer(id, parameters);
      const first = transform(text);
      expect(typeof first.text).toBe('string');
      expect(Number.isInteger(first.found) && first.found >= 0).toBe(true);
      expect(transform(text)).toEqual(first);
      if (first.found === 0) expect(first.text).toBe(text);
      return;
    }
    const run = verdictCheck(id, parameters);
    const first = await run(input(text, { phase }));
    expect(typeof first.verdict).toBe('boolean');
    expect(typeof first.explanation).toBe('string');
    expect(await run(input(text, { phase }))).toEqual(first);
  });
});
