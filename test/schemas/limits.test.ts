// Every limit of SPEC §8 (and the request rules of §4), checked on both sides of each boundary through
// the GENERATED validators, the code the server actually runs.
import { fc, test as propTest } from '@fast-check/vitest';
import { describe, expect, test } from 'vitest';
import * as validators from '../../generated/validators.js';
import type { GeneratedValidator } from '../../generated/validators.js';

type Body = Record<string, unknown>;

function verdict(validate: GeneratedValidator<unknown>, value: unknown): boolean {
  const ok = validate(value);
  // Ajv leaves `errors` set exactly when it rejected; a mismatch would mean a broken standalone module.
  if (ok) expect(validate.errors ?? null).toBeNull();
  else expect(validate.errors?.length ?? 0).toBeGreaterThan(0);
  return ok;
}

const completion: Body = { model: 'gpt-x', prompt: 'Say hi' };
const batchCreate: Body = { input_file_id: 'file-1', completion_window: '24h', endpoint: '/v1/chat/completions' };
const usagePolicy: Body = { conditions: [{ key: 'metadata.team', value: 'v' }], group_by: [{ key: 'api_key' }], type: 'cost', credit_limit: 100 };
const fineTuningJob: Body = {
  id: 'ftjob-1', object: 'fine_tuning.job', created_at: 1, error: {}, fine_tuned_model: null, finished_at: null,
  hyperparameters: { n_epochs: 'auto' }, model: 'base', organization_id: 'org', result_files: [], status: 'running',
  trained_tokens: null, training_file: 'file-1', validation_file: null, seed: 7,
};
const storedResponse: Body = {
  id: 'resp_1', object: 'response', created_at: 1, model: 'm', instructions: null, metadata: {}, temperature: 1, top_p: 1,
  tools: [], tool_choice: 'auto', parallel_tool_calls: true, error: null, incomplete_details: null, output: [],
};
const batch: Body = {
  id: 'batch_1', object: 'batch', endpoint: '/v1/completions', input_file_id: 'file-1', completion_window: '24h',
  status: 'in_progress', created_at: 1,
};

function pairs(count: number, keyLength = 1, valueLength = 1): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < count; i += 1) out[String(i).padStart(keyLength, 'k')] = 'v'.repeat(valueLength);
  return out;
}

describe('metadata: 16 pairs, key ≤ 64, value ≤ 512 (SPEC §8)', () => {
  const carriers: Array<[string, GeneratedValidator<unknown>, Body]> = [
    ['batch create', validators.validateBatchCreate, batchCreate],
    ['batch', validators.validateBatch, batch],
    ['stored response', validators.validateStoredResponse, storedResponse],
  ];
  test.each(carriers)('%s', (_name, validate, base) => {
    expect(verdict(validate, { ...base, metadata: pairs(16) })).toBe(true);
    expect(verdict(validate, { ...base, metadata: pairs(17) })).toBe(false);
    expect(verdict(validate, { ...base, metadata: pairs(1, 64) })).toBe(true);
    expect(verdict(validate, { ...base, metadata: pairs(1, 65) })).toBe(false);
    expect(verdict(validate, { ...base, metadata: pairs(1, 1, 512) })).toBe(true);
    expect(verdict(validate, { ...base, metadata: pairs(1, 1, 513) })).toBe(false);
    expect(verdict(validate, { ...base, metadata: { k: 1 } })).toBe(false);
  });
  test('batch create also takes null metadata; a stored response requires metadata', () => {
    expect(verdict(validators.validateBatchCreate, { ...batchCreate, metadata: null })).toBe(true);
    const { metadata: _dropped, ...withoutMetadata } = storedResponse;
    expect(verdict(validators.validateStoredResponse, withoutMetadata)).toBe(false);
  });
});

describe('fine-tuning job integrations: at most 5 (SPEC §8)', () => {
  const integration = { type: 'wandb', wandb: { project: 'p', name: 'n', entity: 'e', tags: ['t'] } };
  test('5 pass, 6 fail, null passes', () => {
    expect(verdict(validators.validateFineTuningJob, { ...fineTuningJob, integrations: Array(5).fill(integration) })).toBe(true);
    expect(verdict(validators.validateFineTuningJob, { ...fineTuningJob, integrations: Array(6).fill(integration) })).toBe(false);
    expect(verdict(validators.validateFineTuningJob, { ...fineTuningJob, integrations: null })).toBe(true);
  });
});

interface Range {
  field: string;
  min: number;
  max: number | null;
  integer: boolean;
}

const completionRanges: Range[] = [
  { field: 'best_of', min: 0, max: 20, integer: true },
  { field: 'n', min: 1, max: 128, integer: true },
  { field: 'logprobs', min: 0, max: 5, integer: true },
  { field: 'max_tokens', min: 0, max: null, integer: true },
  { field: 'temperature', min: 0, max: 2, integer: false },
  { field: 'top_p', min: 0, max: 1, integer: false },
  { field: 'frequency_penalty', min: -2, max: 2, integer: false },
  { field: 'presence_penalty', min: -2, max: 2, integer: false },
];

describe('completion ranges (SPEC §4.9, §8)', () => {
  test.each(completionRanges.map((range) => [range.field, range]))('%s: both sides of each bound', (field, range) => {
    const step = range.integer ? 1 : 0.001;
    expect(verdict(validators.validateCompletionCreate, { ...completion, [field]: range.min })).toBe(true);
    expect(verdict(validators.validateCompletionCreate, { ...completion, [field]: range.min - step })).toBe(false);
    if (range.max !== null) {
      expect(verdict(validators.validateCompletionCreate, { ...completion, [field]: range.max })).toBe(true);
      expect(verdict(validators.validateCompletionCreate, { ...completion, [field]: range.max + step })).toBe(false);
    }
    expect(verdict(validators.validateCompletionCreate, { ...completion, [field]: null })).toBe(true);
    if (range.integer) expect(verdict(validators.validateCompletionCreate, { ...completion, [field]: range.min + 0.5 })).toBe(false);
  });

  // best_of is left out: its rule also depends on n and stream, covered below.
  propTest.prop([fc.constantFrom(...completionRanges.filter((range) => range.field !== 'best_of')), fc.double({ min: -200, max: 200, noNaN: true })], {
    numRuns: 300,
  })('a number is accepted exactly when it is in range (and whole, for integer fields)', (range, value) => {
    const inRange = value >= range.min && (range.max === null || value <= range.max) && (!range.integer || Number.isInteger(value));
    expect(verdict(validators.validateCompletionCreate, { ...completion, [range.field]: value })).toBe(inRange);
  });

  test('stop: up to 4 sequences', () => {
    expect(verdict(validators.validateCompletionCreate, { ...completion, stop: ['a', 'b', 'c', 'd'] })).toBe(true);
    expect(verdict(validators.validateCompletionCreate, { ...completion, stop: ['a', 'b', 'c', 'd', 'e'] })).toBe(false);
    expect(verdict(validators.validateCompletionCreate, { ...completion, stop: '\n' })).toBe(true);
    expect(verdict(validators.validateCompletionCreate, { ...completion, stop: [1] })).toBe(false);
  });

  test('logit_bias values from -100 to 100, keyed by token ID', () => {
    for (const [bias, ok] of [[-100, true], [100, true], [-100.5, false], [100.5, false], [0, true]] as const) {
      expect(verdict(validators.validateCompletionCreate, { ...completion, logit_bias: { '50256': bias } })).toBe(ok);
    }
    expect(verdict(validators.validateCompletionCreate, { ...completion, logit_bias: { notAToken: 1 } })).toBe(false);
  });

  test('seed within the signed 64-bit range as JSON numbers carry it', () => {
    expect(verdict(validators.validateCompletionCreate, { ...completion, seed: -9223372036854776000 })).toBe(true);
    expect(verdict(validators.validateCompletionCreate, { ...completion, seed: 9223372036854776000 })).toBe(true);
    expect(verdict(validators.validateCompletionCreate, { ...completion, seed: 2 ** 64 })).toBe(false);
    expect(verdict(validators.validateCompletionCreate, { ...completion, seed: -(2 ** 64) })).toBe(false);
  });

  test('best_of must be greater than n when both are given', () => {
    expect(verdict(validators.validateCompletionCreate, { ...completion, best_of: 3, n: 2 })).toBe(true);
    expect(verdict(validators.validateCompletionCreate, { ...completion, best_of: 2, n: 2 })).toBe(false);
    expect(verdict(validators.validateCompletionCreate, { ...completion, best_of: 1, n: 2 })).toBe(false);
    expect(verdict(validators.validateCompletionCreate, { ...completion, best_of: 5 })).toBe(true);
    expect(verdict(validators.validateCompletionCreate, { ...completion, best_of: 5, n: null })).toBe(true);
  });

  propTest.prop([fc.integer({ min: 0, max: 20 }), fc.integer({ min: 1, max: 128 })], { numRuns: 200 })(
    'best_of with n is accepted exactly when best_of > n',
    (bestOf, n) => {
      expect(verdict(validators.validateCompletionCreate, { ...completion, best_of: bestOf, n })).toBe(bestOf > n);
    },
  );

  test('best_of above 1 cannot be streamed', () => {
    expect(verdict(validators.validateCompletionCreate, { ...completion, best_of: 2, stream: true })).toBe(false);
    expect(verdict(validators.validateCompletionCreate, { ...completion, best_of: 1, stream: true })).toBe(true);
    expect(verdict(validators.validateCompletionCreate, { ...completion, best_of: 2, stream: false })).toBe(true);
  });

  test('stream_options only when stream is true', () => {
    const options = { include_usage: true };
    expect(verdict(validators.validateCompletionCreate, { ...completion, stream: true, stream_options: options })).toBe(true);
    expect(verdict(validators.validateCompletionCreate, { ...completion, stream: false, stream_options: options })).toBe(false);
    expect(verdict(validators.validateCompletionCreate, { ...completion, stream_options: options })).toBe(false);
    expect(verdict(validators.validateCompletionCreate, { ...completion, stream_options: null })).toBe(true);
  });

  test('model and prompt are required; unknown keys are rejected; prompt takes every listed form', () => {
    expect(verdict(validators.validateCompletionCreate, { model: 'm' })).toBe(false);
    expect(verdict(validators.validateCompletionCreate, { prompt: 'p' })).toBe(false);
    expect(verdict(validators.validateCompletionCreate, { ...completion, nonsense: 1 })).toBe(false);
    for (const prompt of ['p', ['a', 'b'], [1, 2], [[1], [2, 3]]]) {
      expect(verdict(validators.validateCompletionCreate, { ...completion, prompt })).toBe(true);
    }
    expect(verdict(validators.validateCompletionCreate, { ...completion, prompt: { text: 'p' } })).toBe(false);
  });
});

describe('usage-limits policy create (SPEC §4.11, §8)', () => {
  test('name at most 255 characters', () => {
    expect(verdict(validators.validateUsageLimitsPolicyCreate, { ...usagePolicy, name: 'n'.repeat(255) })).toBe(true);
    expect(verdict(validators.validateUsageLimitsPolicyCreate, { ...usagePolicy, name: 'n'.repeat(256) })).toBe(false);
  });
  test('credit_limit and alert_threshold at least 0; threshold below the limit', () => {
    expect(verdict(validators.validateUsageLimitsPolicyCreate, { ...usagePolicy, credit_limit: 0 })).toBe(true);
    expect(verdict(validators.validateUsageLimitsPolicyCreate, { ...usagePolicy, credit_limit: -0.01 })).toBe(false);
    expect(verdict(validators.validateUsageLimitsPolicyCreate, { ...usagePolicy, alert_threshold: 0 })).toBe(true);
    expect(verdict(validators.validateUsageLimitsPolicyCreate, { ...usagePolicy, alert_threshold: -0.01 })).toBe(false);
    expect(verdict(validators.validateUsageLimitsPolicyCreate, { ...usagePolicy, alert_threshold: 99.99 })).toBe(true);
    expect(verdict(validators.validateUsageLimitsPolicyCreate, { ...usagePolicy, alert_threshold: 100 })).toBe(false);
    expect(verdict(validators.validateUsageLimitsPolicyCreate, { ...usagePolicy, alert_threshold: null })).toBe(true);
  });
  propTest.prop([fc.double({ min: -10, max: 1000, noNaN: true }), fc.double({ min: -10, max: 1000, noNaN: true })], { numRuns: 300 })(
    'a threshold is accepted exactly when 0 ≤ threshold < limit and the limit is ≥ 0',
    (creditLimit, alertThreshold) => {
      const expected = creditLimit >= 0 && alertThreshold >= 0 && alertThreshold < creditLimit;
      expect(verdict(validators.validateUsageLimitsPolicyCreate, { ...usagePolicy, credit_limit: creditLimit, alert_threshold: alertThreshold })).toBe(expected);
    },
  );
  test('conditions and group_by need at least one item; type, periodic_reset enums; unknown keys rejected', () => {
    expect(verdict(validators.validateUsageLimitsPolicyCreate, { ...usagePolicy, conditions: [] })).toBe(false);
    expect(verdict(validators.validateUsageLimitsPolicyCreate, { ...usagePolicy, group_by: [] })).toBe(false);
    expect(verdict(validators.validateUsageLimitsPolicyCreate, { ...usagePolicy, type: 'tokens' })).toBe(true);
    expect(verdict(validators.validateUsageLimitsPolicyCreate, { ...usagePolicy, type: 'requests' })).toBe(false);
    for (const reset of ['monthly', 'weekly', null]) {
      expect(verdict(validators.validateUsageLimitsPolicyCreate, { ...usagePolicy, periodic_reset: reset })).toBe(true);
    }
    expect(verdict(validators.validateUsageLimitsPolicyCreate, { ...usagePolicy, periodic_reset: 'daily' })).toBe(false);
    expect(verdict(validators.validateUsageLimitsPolicyCreate, { ...usagePolicy, organisation_id: 'not-a-uuid' })).toBe(false);
    expect(verdict(validators.validateUsageLimitsPolicyCreate, { ...usagePolicy, organisation_id: '3f1c2b9e-6a0d-4c8e-9b7a-1d2e3f4a5b6c', workspace_id: 'ws-slug' })).toBe(true);
    expect(verdict(validators.validateUsageLimitsPolicyCreate, { ...usagePolicy, extra: true })).toBe(false);
  });

  test('condition and group_by keys are the ones limits can read: api_key, workspace_id, organisation_id, config, provider, virtual_key, model, metadata.<key>', () => {
    for (const key of ['api_key', 'workspace_id', 'organisation_id', 'config', 'provider', 'virtual_key', 'model', 'metadata.team', 'metadata._user']) {
      expect(verdict(validators.validateUsageLimitsPolicyCreate, { ...usagePolicy, conditions: [{ key, value: 'x' }], group_by: [{ key }] }), key).toBe(true);
      expect(verdict(validators.validateRateLimitsPolicyCreate, { type: 'requests', unit: 'rpm', value: 1, conditions: [{ key, value: 'x' }], group_by: [{ key }] }), key).toBe(true);
    }
    for (const key of ['team', 'metadata.', 'api_keys', 'Model', 'prompt', '']) {
      expect(verdict(validators.validateUsageLimitsPolicyCreate, { ...usagePolicy, conditions: [{ key, value: 'x' }] }), key).toBe(false);
      expect(verdict(validators.validateRateLimitsPolicyCreate, { type: 'requests', unit: 'rpm', value: 1, group_by: [{ key }] }), key).toBe(false);
    }
  });
});

describe('rate-limits policy queries (SPEC §4.12, §4.13, §8)', () => {
  test.each(['page_size', 'current_page'])('%s at least 0 and whole', (field) => {
    expect(verdict(validators.validateRateLimitsPolicyListQuery, { [field]: 0 })).toBe(true);
    expect(verdict(validators.validateRateLimitsPolicyListQuery, { [field]: -1 })).toBe(false);
    expect(verdict(validators.validateRateLimitsPolicyListQuery, { [field]: 1.5 })).toBe(false);
  });
  test('status, type and unit enums; unknown keys rejected', () => {
    expect(verdict(validators.validateRateLimitsPolicyListQuery, { status: 'archived', type: 'tokens', unit: 'rpd', workspace_id: 'w' })).toBe(true);
    expect(verdict(validators.validateRateLimitsPolicyListQuery, { unit: 'rps' })).toBe(false);
    expect(verdict(validators.validateRateLimitsPolicyListQuery, { other: '1' })).toBe(false);
    expect(verdict(validators.validateRateLimitsPolicyGetQuery, { status: 'active' })).toBe(true);
    expect(verdict(validators.validateRateLimitsPolicyGetQuery, { status: 'deleted' })).toBe(false);
  });
});

describe('list defaults (SPEC §8)', () => {
  test('fine-tuning job list limit defaults to 20, checkpoint list to 10', async () => {
    const jobs = (await import('../../schema/requests/fine-tuning-job-list-query.json', { with: { type: 'json' } })).default;
    const checkpoints = (await import('../../schema/requests/fine-tuning-checkpoint-list-query.json', { with: { type: 'json' } })).default;
    expect(jobs.properties.limit.default).toBe(20);
    expect(checkpoints.properties.limit.default).toBe(10);
  });
  test('limit must be a whole number of at least 1', () => {
    for (const validate of [validators.validateFineTuningJobListQuery, validators.validateFineTuningCheckpointListQuery]) {
      expect(verdict(validate, { limit: 1, after: 'x' })).toBe(true);
      expect(verdict(validate, { limit: 0 })).toBe(false);
      expect(verdict(validate, { limit: 2.5 })).toBe(false);
      expect(verdict(validate, { cursor: 'x' })).toBe(false);
    }
  });
});

describe('circuit breaker limits through the config validator (SPEC §8)', () => {
  const config = { provider: 'openai', api_key: 'sk' };
  test('failure_threshold at least 1, cooldown_interval at least 30000 ms', () => {
    const breaker = (failureThreshold: number, cooldownInterval: number) => ({
      ...config,
      cb_config: { failure_threshold: failureThreshold, cooldown_interval: cooldownInterval },
    });
    expect(verdict(validators.validateConfig, breaker(1, 30000))).toBe(true);
    expect(verdict(validators.validateConfig, breaker(0, 30000))).toBe(false);
    expect(verdict(validators.validateConfig, breaker(1, 29999))).toBe(false);
  });
});

describe('other request bodies', () => {
  test('batch create: completion_window and endpoint enums', () => {
    expect(verdict(validators.validateBatchCreate, { ...batchCreate, completion_window: 'immediate' })).toBe(true);
    expect(verdict(validators.validateBatchCreate, { ...batchCreate, completion_window: '48h' })).toBe(false);
    for (const endpoint of ['/v1/chat/completions', '/v1/completions', '/v1/embeddings']) {
      expect(verdict(validators.validateBatchCreate, { ...batchCreate, endpoint })).toBe(true);
    }
    expect(verdict(validators.validateBatchCreate, { ...batchCreate, endpoint: '/v1/images/generations' })).toBe(false);
    expect(verdict(validators.validateBatchCreate, { input_file_id: 'f', completion_window: '24h' })).toBe(false);
  });
  test('prompt render: variables required; hyperparameters at the root, never nested', () => {
    expect(verdict(validators.validatePromptRender, { variables: { name: 'x' }, temperature: 0.2, stream: true, max_tokens: 10 })).toBe(true);
    expect(verdict(validators.validatePromptRender, { temperature: 0.2 })).toBe(false);
    expect(verdict(validators.validatePromptRender, { variables: {}, hyperparameters: { temperature: 0.2 } })).toBe(false);
    expect(verdict(validators.validatePromptRender, { variables: {}, temperature: 'hot' })).toBe(false);
  });
  test('fine-tuning job create: model, training_file, suffix and method required', () => {
    const body: Body = { model: 'm', training_file: 'file-1', suffix: 's', method: { type: 'supervised' } };
    expect(verdict(validators.validateFineTuningJobCreate, body)).toBe(true);
    expect(verdict(validators.validateFineTuningJobCreate, { ...body, validation_file: 'file-2' })).toBe(true);
    for (const key of Object.keys(body)) {
      const { [key]: _dropped, ...rest } = body;
      expect(verdict(validators.validateFineTuningJobCreate, rest), key).toBe(false);
    }
  });
  test('responses get query: include values', () => {
    expect(verdict(validators.validateResponseGetQuery, { include: ['file_search_call.results', 'message.input_image.image_url'] })).toBe(true);
    expect(verdict(validators.validateResponseGetQuery, { include: 'computer_call_output.output.image_url' })).toBe(true);
    expect(verdict(validators.validateResponseGetQuery, { include: ['output.everything'] })).toBe(false);
  });
  test('chat completions and embeddings: required keys only, provider keys pass', () => {
    expect(verdict(validators.validateChatCompletionCreate, { model: 'm', messages: [{ role: 'user', content: 'hi' }], vendor_knob: 1 })).toBe(true);
    expect(verdict(validators.validateChatCompletionCreate, { model: 'm', messages: [] })).toBe(false);
    expect(verdict(validators.validateChatCompletionCreate, { model: 'm', messages: [{ content: 'hi' }] })).toBe(false);
    expect(verdict(validators.validateChatCompletionCreate, { messages: [{ role: 'user' }] })).toBe(false);
    expect(verdict(validators.validateEmbeddingsCreate, { model: 'm', input: ['a', 'b'], dimensions: 8 })).toBe(true);
    expect(verdict(validators.validateEmbeddingsCreate, { model: 'm' })).toBe(false);
  });
});
