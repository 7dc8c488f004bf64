// schema/providers.json is the one list of providers: it fits its schema, and the runtime registry
// knows exactly its names and aliases (so the compiler's CFG_UNKNOWN_PROVIDER and the runtime agree).
import { describe, expect, it } from 'vitest';
import { validateProviderManifest } from '../../generated/validators.js';
import manifest from '../../schema/providers.json' with { type: 'json' };
import { PROVIDER_NAMES } from '../../compiler/config/providers.ts';
import { checkConfig } from '../../compiler/config/index.ts';
import { defaultProviders } from '../../runtime/providers/registry.ts';
import { PROVIDER_OPTIONS } from '../../compiler/config/providers.ts';
import { headerOptions } from '../../runtime/providers/header-options.ts';
import { OPTION_FIELDS, SECRET_FIELDS } from '../../runtime/api/virtual-keys/fields.ts';
import { CREDENTIAL_KEYS } from '../../compiler/config/secrets.ts';
import configSchema from '../../schema/config.json' with { type: 'json' };

describe('the provider manifest', () => {
  it('fits schema/meta/provider-manifest.json', () => {
    expect(validateProviderManifest(manifest), JSON.stringify(validateProviderManifest.errors)).toBe(true);
  });

  it('names exactly the providers the runtime registry serves', () => {
    expect(defaultProviders().names()).toEqual([...PROVIDER_NAMES].sort());
  });

  it('is what the compiler checks provider names against, any case, with slugs left to the request', () => {
    for (const name of PROVIDER_NAMES) expect(checkConfig({ provider: name.toUpperCase(), api_key: 'k' }).ok, name).toBe(true);
    expect(checkConfig({ provider: '@any-slug', api_key: 'k' }).ok).toBe(true);
    const typo = checkConfig({ provider: 'opnai', api_key: 'k' });
    expect(typo.ok ? [] : typo.errors).toEqual([expect.objectContaining({ code: 'CFG_UNKNOWN_PROVIDER', pointer: '/provider', hint: 'did you mean "openai"?' })]);
  });

  it('lists every provider option of the config schema, with its JSON type, once', () => {
    const properties = (configSchema as { properties: Record<string, { type?: string }> }).properties;
    const keys = PROVIDER_OPTIONS.map((option) => option.key);
    expect(new Set(keys).size).toBe(keys.length);
    const optionLike = Object.keys(properties).filter((key) => /^(clouda|cloudb|cloudc|vendor)_/.test(key) || ['resource_name', 'deployment_id', 'api_version', 'deployments'].includes(key));
    expect([...keys].sort()).toEqual(optionLike.sort());
    for (const option of PROVIDER_OPTIONS) {
      const type = properties[option.key].type;
      if (type !== undefined) expect(type, option.key).toBe(option.type);
    }
  });

  it('is what headers, virtual keys and credential redaction read', () => {
    for (const option of PROVIDER_OPTIONS.filter((o) => o.header !== undefined)) expect(Object.keys(headerOptions({ [option.header!]: 'v' })), option.key).toEqual([option.key]);
    expect(headerOptions({ 'x-gateway-cloudb-service-account-json': '{"a":1}', 'x-gateway-cloudc-region': 'r' })).toEqual({ cloudb_service_account_json: { a: 1 }, cloudc_region: 'r' });
    for (const option of PROVIDER_OPTIONS) {
      expect(OPTION_FIELDS[option.key], option.key).toBe(option.type);
      expect(SECRET_FIELDS.has(option.key), option.key).toBe(option.secret === true);
      // A secret option is a credential wherever configs are echoed or emitted.
      if (option.secret === true) expect(CREDENTIAL_KEYS.has(option.key), option.key).toBe(true);
    }
  });
});
