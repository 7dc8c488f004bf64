// CFG_FIELD_WITHOUT_EFFECT (compiler/config/ignored-fields.ts): the fields one kind of strategy reads,
// found where no such strategy reads them, and nowhere else.
import { describe, expect, it } from 'vitest';
import { checkConfig } from '../../compiler/config/index.ts';
import { ignoredFields } from '../../compiler/config/ignored-fields.ts';

const leaf = (name: string, extra: Record<string, unknown> = {}) => ({ name, provider: 'vendor', api_key: 'k', ...extra });
const pointers = (config: unknown) => ignoredFields(config).map((f) => f.pointer);

it('finds conditional, fallback and loadbalance fields where their strategy is not', () => {
  const config = {
    strategy: { mode: 'fallback', conditions: [{ query: { 'metadata.a': 'x' }, then: 'a' }], default: 'a', on_status_codes: [503] },
    weight: 2,
    on_status_codes: [429],
    targets: [
      leaf('a', { weight: 3, on_status_codes: [500] }),
      { name: 'b', strategy: { mode: 'loadbalance', on_status_codes: [502] }, targets: [leaf('c', { weight: 1, on_status_codes: [503] }), leaf('d')] },
    ],
  };
  // Valid, so only a warning can tell.
  expect(checkConfig(config).ok).toBe(true);
  expect(pointers(config)).toEqual([
    '/strategy/conditions',
    '/strategy/default',
    // Target a has its own list and b is the last: the strategy's is never read.
    '/strategy/on_status_codes',
    '/weight',
    '/on_status_codes',
    '/targets/0/weight',
    '/targets/1/strategy/on_status_codes',
    '/targets/1/targets/0/on_status_codes',
  ]);
  expect(ignoredFields(config)[3]!.message).toBe('Only a loadbalance strategy reads its targets\' "weight"; this is the config itself, not a target of a strategy.');
});

it('finds nothing where each field is read', () => {
  expect(pointers({ strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.a': 'x' }, then: 'a' }], default: 'b' }, targets: [leaf('a'), leaf('b')] })).toEqual([]);
  expect(pointers({ strategy: { mode: 'fallback', on_status_codes: [429] }, targets: [leaf('a'), leaf('b', { on_status_codes: [500] }), leaf('c')] })).toEqual([]);
  expect(pointers({ strategy: { mode: 'loadbalance' }, targets: [leaf('a', { weight: 0.7 }), leaf('b', { weight: 0.3 })] })).toEqual([]);
  expect(pointers(leaf('solo'))).toEqual([]);
});

it('finds provider options of another family than their provider group\'s, following the group inheritance', () => {
  const config = {
    strategy: { mode: 'fallback' },
    provider: 'vendor',
    api_key: 'k',
    targets: [
      // Its own cloudb group: a cloudb option is read, a clouda one is not.
      { name: 'cloudb', provider: 'cloudb', api_key: 'k', cloudb_region: 'us-central1', clouda_region: 'eastus' },
      // Refines the parent's vendor group: the vendor family reads vendor_*.
      { name: 'inherits', request_timeout: 1000, vendor_project: 'p' },
      { name: 'azure', provider: 'clouda', api_key: 'k', clouda_resource_name: 'r', deployment_id: 'd' },
      // An OpenAI-compatible provider does not read vendor_* (only the vendor adapter sends them).
      { name: 'groq', provider: 'groq', api_key: 'k', vendor_project: 'proj', cloudc_region: 'us-east-1' },
      // Known only per request: a slug, a virtual key. Nothing to compare with.
      { name: 'slug', provider: '@prod', api_key: 'k', clouda_resource_name: 'r' },
      { name: 'vk', virtual_key: 'vk-1', cloudc_region: 'us-east-1' },
    ],
  };
  expect(checkConfig(config).ok).toBe(true);
  expect(pointers(config)).toEqual(['/targets/0/clouda_region', '/targets/3/vendor_project', '/targets/3/cloudc_region']);
  expect(ignoredFields(config)[0]!.message).toBe('Only clouda providers read "clouda_region"; this node\'s provider, "cloudb", is of the cloudb family.');
  // No provider in the config: the request names it in headers, so any option may be read.
  expect(pointers({ cloudc_region: 'us-east-1', clouda_resource_name: 'r' })).toEqual([]);
});

it('finds the rest of a retry whose attempts are 0, on the config and on a target, and nothing when retries run', () => {
  const config = {
    retry: { attempts: 0, on_status_codes: [429], use_retry_after_headers: true },
    strategy: { mode: 'fallback' },
    targets: [
      { provider: 'openai', api_key: 'k', retry: { attempts: 0 } },
      { provider: 'openai', api_key: 'k', retry: { attempts: 2, on_status_codes: [503], use_retry_after_headers: true } },
      { provider: 'openai', api_key: 'k', retry: { attempts: 0, use_retry_after_headers: false } },
    ],
  };
  expect(pointers(config)).toEqual(['/retry/on_status_codes', '/retry/use_retry_after_headers', '/targets/2/retry/use_retry_after_headers']);
  expect(ignoredFields(config)[0]!.message).toBe('"retry.attempts" is 0, so no retry happens and "on_status_codes" is never read.');
});

describe('a forward_headers entry every target it reaches sets itself', () => {
  const messages = (name: string, extra: Record<string, unknown> = {}) => ({ name, provider: 'anthropic', api_key: 'k', ...extra });
  const fallback = (targets: unknown[], extra: Record<string, unknown> = {}) => ({ strategy: { mode: 'fallback' }, targets, ...extra });

  it('is found where the adapter of every reached target overwrites it', () => {
    const config = fallback([messages('a'), messages('b')], { forward_headers: ['x-tenant', 'X-Api-Key', 'anthropic-version'] });
    expect(checkConfig(config).ok).toBe(true);
    expect(pointers(config)).toEqual(['/forward_headers/1', '/forward_headers/2']);
    expect(ignoredFields(config)[0]!.message).toBe('Every target this list reaches sets "x-api-key" itself (its provider\'s adapter does, on every call), so the client\'s value would never reach a provider.');
    expect(pointers(leaf('solo', { forward_headers: ['authorization'] }))).toEqual(['/forward_headers/0']);
    // Both set the credential as Authorization.
    expect(pointers(fallback([leaf('a'), { name: 'g', provider: 'groq', api_key: 'k' }], { forward_headers: ['authorization'] }))).toEqual(['/forward_headers/0']);
  });

  it('is left alone where some reached target sends it, or its provider is known only per request', () => {
    // The vendor takes x-api-key as any other header; the messages API takes Authorization.
    expect(pointers(fallback([messages('a'), leaf('b')], { forward_headers: ['x-api-key', 'authorization'] }))).toEqual([]);
    // A target with a list of its own is not reached by its parent's.
    expect(pointers(fallback([messages('a', { forward_headers: [] }), leaf('b')], { forward_headers: ['x-api-key'] }))).toEqual([]);
    expect(pointers(fallback([messages('a', { forward_headers: ['x-api-key'] }), leaf('b')]))).toEqual(['/targets/0/forward_headers/0']);
    // A virtual key, a slug or no provider at all: known per request.
    expect(pointers({ virtual_key: 'vk', forward_headers: ['authorization'] })).toEqual([]);
    expect(pointers({ provider: '@team', forward_headers: ['authorization'] })).toEqual([]);
    expect(pointers({ forward_headers: ['authorization'] })).toEqual([]);
    // A local server without a key sets Authorization only from the client's bearer token: Basic reaches it.
    expect(pointers({ provider: 'ollama', forward_headers: ['authorization'] })).toEqual([]);
    expect(pointers({ provider: 'ollama', api_key: 'k', forward_headers: ['authorization'] })).toEqual(['/forward_headers/0']);
    // A key set below the provider still belongs to its group.
    expect(pointers({ provider: 'ollama', forward_headers: ['authorization'], strategy: { mode: 'fallback' }, targets: [{ api_key: 'k' }] })).toEqual(['/forward_headers/0']);
  });
});

it('finds targets no request reaches: after the first of a single strategy, and those no rule or default of a conditional one names', () => {
  const single = { strategy: { mode: 'single' }, targets: [leaf('a'), leaf('b'), leaf('c')] };
  expect(pointers(single)).toEqual(['/targets/1', '/targets/2']);
  expect(ignoredFields(single)[0]!.message).toBe('A single strategy sends every request to its first target; this one is never used.');
  const conditional = {
    strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.t': 'x' }, then: 'a' }], default: 'b' },
    targets: [leaf('a'), leaf('b'), leaf('c'), { provider: 'vendor', api_key: 'k' }],
  };
  expect(checkConfig(conditional).ok).toBe(true);
  expect(pointers(conditional)).toEqual(['/targets/2', '/targets/3']);
  expect(ignoredFields(conditional).map((f) => f.message)).toEqual([
    'No condition\'s "then" and not the "default" names "c", so no request reaches it.',
    'No condition\'s "then" and not the "default" names this target (it has no name), so no request reaches it.',
  ]);
  // Every target reachable: nothing found.
  expect(pointers({ strategy: { mode: 'single' }, targets: [leaf('a')] })).toEqual([]);
  expect(pointers({ strategy: { mode: 'conditional', conditions: [{ query: { 'metadata.t': 'x' }, then: 'a' }], default: 'b' }, targets: [leaf('a'), leaf('b')] })).toEqual([]);
});

it('finds the on_status_codes of the last target of a fallback, which nothing follows', () => {
  const config = { strategy: { mode: 'fallback' }, targets: [leaf('a', { on_status_codes: [429] }), leaf('b', { on_status_codes: [500] })] };
  expect(pointers(config)).toEqual(['/targets/1/on_status_codes']);
  expect(pointers({ strategy: { mode: 'fallback' }, targets: [leaf('a', { on_status_codes: [429] }), leaf('b')] })).toEqual([]);
});

it('finds a fallback strategy\'s on_status_codes that no target falls back on', () => {
  const own = { strategy: { mode: 'fallback', on_status_codes: [503] }, targets: [leaf('a', { on_status_codes: [429] }), leaf('b')] };
  expect(pointers(own)).toEqual(['/strategy/on_status_codes']);
  expect(pointers({ strategy: { mode: 'fallback', on_status_codes: [503] }, targets: [leaf('a')] })).toEqual(['/strategy/on_status_codes']);
  expect(pointers({ strategy: { mode: 'fallback', on_status_codes: [503] }, targets: [leaf('a', { on_status_codes: [429] }), leaf('b'), leaf('c')] })).toEqual([]);
});

describe('cloud options their targets never read beside the others', () => {
  it('finds an api_key beside cloud B\'s service account or cloud C\'s access keys, and nowhere else', () => {
    expect(pointers({ provider: 'cloudb', api_key: 'ya29.x', cloudb_region: 'us-central1', cloudb_service_account_json: { client_email: 'a@b.c', private_key: 'k' } })).toEqual(['/api_key']);
    expect(pointers({ provider: 'cloudc', api_key: 'k', cloudc_region: 'us-east-1', cloudc_access_key_id: 'AKID', cloudc_secret_access_key: 's' })).toEqual(['/api_key']);
    expect(pointers({ provider: 'cloudb', api_key: 'ya29.x', cloudb_region: 'us-central1', cloudb_project_id: 'p' })).toEqual([]);
    expect(pointers({ provider: 'cloudc', api_key: 'k', cloudc_region: 'us-east-1' })).toEqual([]);
    // Inherited: a target that refines the group with its own key beside the parent's service account.
    expect(pointers({ provider: 'cloudb', cloudb_region: 'us-central1', cloudb_service_account_json: { client_email: 'a@b.c', private_key: 'k' }, strategy: { mode: 'fallback' }, targets: [{ api_key: 'ya29.x' }, {}] })).toEqual(['/targets/0/api_key']);
  });
});

describe('cloud A options the kind of endpoint their targets call never reads', () => {
  const clouda = (extra: Record<string, unknown>) => ({ provider: 'clouda', api_key: 'k', ...extra });

  it('finds a model endpoint\'s options beside resource deployments, and the deployments\' beside a model endpoint', () => {
    expect(pointers(clouda({ resource_name: 'r', deployment_id: 'd', clouda_region: 'eastus', clouda_endpoint_name: 'e' }))).toEqual(['/clouda_region', '/clouda_endpoint_name']);
    expect(pointers(clouda({ clouda_deployment_type: 'serverless', clouda_deployment_name: 'd', clouda_region: 'eastus', resource_name: 'r', deployments: [], clouda_endpoint_name: 'e' })))
      .toEqual(['/resource_name', '/deployments', '/clouda_endpoint_name']);
    // A managed endpoint names its deployment in a header: read.
    expect(pointers(clouda({ clouda_deployment_type: 'managed', clouda_endpoint_name: 'e', clouda_region: 'eastus', clouda_deployment_name: 'd' }))).toEqual([]);
    expect(ignoredFields(clouda({ clouda_deployment_type: 'managed', clouda_endpoint_name: 'e', clouda_region: 'eastus', deployment_id: 'd' }))[0]!.message)
      .toBe('"deployment_id" is never read here: it belongs to resource deployments, and "clouda_deployment_type" makes this target call a managed model endpoint.');
  });

  it('finds the spelling or the source that loses to another', () => {
    expect(pointers(clouda({ resource_name: 'r', clouda_resource_name: 'r2', deployment_id: 'd', clouda_deployment_id: 'd2', api_version: 'v', clouda_api_version: 'v2', clouda_model_name: 'm' })))
      .toEqual(['/resource_name', '/deployment_id', '/api_version', '/clouda_model_name']);
    // custom_host is the URL the names would build.
    expect(pointers(clouda({ custom_host: 'http://127.0.0.1:9/openai', resource_name: 'r', deployment_id: 'd' }))).toEqual(['/resource_name']);
    expect(pointers(clouda({ custom_host: 'http://127.0.0.1:9', clouda_deployment_type: 'serverless', clouda_deployment_name: 'd', clouda_region: 'eastus' }))).toEqual(['/clouda_deployment_name', '/clouda_region']);
  });

  it('follows the group inheritance: an option set above is found only when no target inheriting it reads it', () => {
    const config = clouda({
      strategy: { mode: 'fallback' },
      clouda_region: 'eastus',
      resource_name: 'r',
      targets: [
        // Reads the inherited region, not the resource name.
        { clouda_deployment_type: 'serverless', clouda_deployment_name: 'd' },
        // Reads the resource name, not the region.
        { deployment_id: 'd' },
        // A group of its own: the parent's options stay behind.
        { provider: 'clouda', api_key: 'k2', clouda_resource_name: 'r', clouda_model_name: 'm', clouda_endpoint_name: 'e' },
        { provider: 'vendor', api_key: 'k3' },
      ],
    });
    expect(pointers(config)).toEqual(['/targets/2/clouda_endpoint_name']);
    expect(pointers({ ...config, targets: [{ deployment_id: 'd' }] })).toEqual(['/clouda_region']);
    // A virtual key's provider is known only per request.
    expect(pointers({ virtual_key: 'vk-1', clouda_region: 'eastus', deployment_id: 'd' })).toEqual([]);
  });
});
