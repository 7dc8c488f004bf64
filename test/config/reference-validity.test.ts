// The generated validator (generated/config-validator.js) against the reference predicate written
// from SPEC §2.1 (reference-validity.ts): they must agree on valid configs and on near-misses.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { validateConfigAllErrors } from '../../generated/config-validator.js';
import { referenceValid, referenceViolations } from './reference-validity.ts';
import configSchema from '../../schema/config.json' with { type: 'json' };
import { arbitraryFromSchema } from '../property/schema-arbitrary.ts';
import { mutatedConfig, nearMisses, structurallyValidConfig } from './config-arbitrary.ts';

// Two sources of valid configs: this folder's generator, written from the SPEC table, and the
// generic JSON Schema → fast-check mapper run on schema/config.json.
const fromSchema = arbitraryFromSchema(configSchema) as fc.Arbitrary<Record<string, unknown>>;

const validate = (value: unknown) => validateConfigAllErrors(value) === true;

describe('the reference predicate itself, against SPEC §2.1 by hand', () => {
  const valid: unknown[] = [
    { provider: 'vendor', api_key: 'sk' },
    { provider: 'vendor', custom_host: 'http://127.0.0.1:11434/v1' },
    { virtual_key: 'vk' },
    { retry: { attempts: 0 } },
    { cache: { mode: 'semantic', max_age: 60 } },
    { request_timeout: 1 },
    { forward_headers: [] },
    { prompt_id: 'p' },
    { input_guardrails: ['g', { id: 'g2', 'pii.check': {} }] },
    { output_guardrails: [{ on_fail: { deny: true } }] },
    { before_request_hooks: [{ id: 'h', on_fail: { deny: true, feedback: { value: 1, weight: 1, metadata: {} } } }] },
    { after_request_hooks: [{ id: 'h', async: true, checks: [{ id: 'c', parameters: {} }] }] },
    { provider: 'cloudc', cloudc_access_key_id: 'a', cloudc_secret_access_key: 's' },
    { provider: 'cloudb', cloudb_region: 'r', cloudb_service_account_json: {} },
    { provider: 'cloudb', cloudb_region: 'r', cloudb_project_id: 'p' },
    { provider: 'clouda', clouda_deployment_name: 'd', clouda_deployment_type: 'managed', clouda_region: 'r', clouda_api_version: 'v' },
    { provider: 'clouda', clouda_endpoint_name: 'e', clouda_deployment_type: 'serverless' },
    { strategy: { mode: 'conditional', conditions: [], default: 'a' }, targets: [] },
    { strategy: { mode: 'fallback', on_status_codes: [429] }, targets: [{ strategy: { mode: 'single' }, targets: [{ virtual_key: 'v' }] }] },
    { virtual_key: 'v', cb_config: { failure_threshold: 1, cooldown_interval: 30000 } },
    { virtual_key: 'v', deployments: [{ deployment_id: 'd', alias: 'a', api_version: 'v', is_default: false }] },
  ];
  const invalid: Array<[unknown, string]> = [
    [{}, 'no key set'],
    [{ provider: 'vendor' }, 'provider alone is no key set'],
    [{ api_key: 'sk' }, 'api_key alone is no key set'],
    [{ provider: 'clouda', clouda_endpoint_name: 'e' }, 'key set 14 incomplete'],
    [{ virtual_key: 'v', extra: 1 }, 'unknown root key'],
    [{ strategy: { mode: 'fallback' } }, 'strategy without targets'],
    [{ strategy: { mode: 'conditional', default: 'a' }, targets: [] }, 'conditional without conditions'],
    [{ strategy: { mode: 'conditional', conditions: [] }, targets: [] }, 'conditional without default'],
    [{ strategy: { mode: 'roundrobin' }, targets: [] }, 'unknown mode'],
    [{ strategy: { mode: 'fallback', conditions: [{ query: {} }] }, targets: [] }, 'condition without then'],
    [{ retry: {} }, 'retry without attempts'],
    [{ retry: { attempts: 1.5 } }, 'fractional attempts'],
    [{ cache: { mode: 'exact' } }, 'unknown cache mode'],
    [{ virtual_key: 'v', cb_config: { failure_threshold: 0.5, cooldown_interval: 30000 } }, 'failure_threshold below 1'],
    [{ virtual_key: 'v', cb_config: { failure_threshold: 1, cooldown_interval: 29999 } }, 'cooldown below 30000'],
    [{ virtual_key: 'v', cb_config: { failure_threshold: 1 } }, 'cooldown missing'],
    [{ input_guardrails: [{ id: 'g', on_fail: { deny: true } }] }, 'deny is not allowed on input guardrail outcomes'],
    [{ input_guardrails: [{ id: 'g', extra: 'not an object' }] }, 'guardrail extra keys hold objects'],
    [{ input_guardrails: [7] }, 'guardrail item is a string or an object'],
    [{ after_request_hooks: [{ id: 'h', on_fail: { deny: true } }] }, 'after hooks have no deny'],
    [{ before_request_hooks: [{ type: 'guardrail' }] }, 'hook without id'],
    [{ before_request_hooks: [{ id: 'h', checks: [{ id: 'c' }] }] }, 'check without parameters'],
    [{ virtual_key: 'v', deployments: [{ deployment_id: 'd', alias: 'a' }] }, 'deployment without api_version'],
    [{ virtual_key: 'v', clouda_deployment_type: 'dedicated' }, 'unknown deployment type'],
    [{ virtual_key: 'v', on_status_codes: [429.5] }, 'status codes are integers'],
    [{ virtual_key: 'v', targets: [{}] }, 'each target is a config'],
    [{ retry: { attempts: -1 } }, 'DECISION: attempts is never negative'],
    [{ cache: { mode: 'simple', max_age: 0 } }, 'DECISION: max_age at least 1 second'],
    [{ request_timeout: 0 }, 'DECISION: request_timeout at least 1 ms'],
    [{ virtual_key: 'v', weight: -1 }, 'DECISION: weight is never negative'],
    [{ provider: '', api_key: 'k' }, 'DECISION: provider is not empty'],
    [{ provider: 'vendor', custom_host: '127.0.0.1:11434' }, 'DECISION: custom_host names its scheme'],
    [{ forward_headers: [''] }, 'DECISION: header names are not empty'],
  ];
  it.each(valid.map((v) => [JSON.stringify(v), v]))('accepts %s', (_, value) => {
    expect(referenceViolations(value)).toEqual([]);
    expect(validate(value)).toBe(true);
  });
  it.each(invalid)('rejects %j (%s)', (value) => {
    expect(referenceValid(value)).toBe(false);
    expect(validate(value)).toBe(false);
  });
});

describe('generated validator ≡ reference predicate', () => {
  it('accepts every config generated from the SPEC table', () => {
    fc.assert(
      fc.property(structurallyValidConfig, (config) => {
        expect(referenceViolations(config)).toEqual([]);
        expect(validateConfigAllErrors(config), JSON.stringify(validateConfigAllErrors.errors)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('agrees on near-misses: keys deleted and added, values retyped, at any depth', () => {
    const outcomes = { valid: 0, invalid: 0 };
    fc.assert(
      fc.property(mutatedConfig, (config) => {
        const expected = referenceValid(config);
        outcomes[expected ? 'valid' : 'invalid']++;
        expect(validate(config), `reference: ${JSON.stringify(referenceViolations(config))}; ajv: ${JSON.stringify(validateConfigAllErrors.errors)}`).toBe(expected);
      }),
      { numRuns: 1500 },
    );
    // Both verdicts must be common, or the property says little.
    expect(outcomes.valid).toBeGreaterThan(150);
    expect(outcomes.invalid).toBeGreaterThan(150);
  });

  it('accepts every config generated from schema/config.json', () => {
    fc.assert(
      fc.property(fromSchema, (config) => {
        expect(referenceViolations(config)).toEqual([]);
        expect(validate(config)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('agrees on near-misses of configs generated from the schema', () => {
    const outcomes = { valid: 0, invalid: 0 };
    fc.assert(
      fc.property(nearMisses(fromSchema), (config) => {
        const expected = referenceValid(config);
        outcomes[expected ? 'valid' : 'invalid']++;
        expect(validate(config), `reference: ${JSON.stringify(referenceViolations(config))}; ajv: ${JSON.stringify(validateConfigAllErrors.errors)}`).toBe(expected);
      }),
      { numRuns: 300 },
    );
    expect(outcomes.valid).toBeGreaterThan(20);
    expect(outcomes.invalid).toBeGreaterThan(20);
  });

  it('agrees on arbitrary JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), (value) => {
        expect(validate(value)).toBe(referenceValid(value));
      }),
      { numRuns: 300 },
    );
  });
});
