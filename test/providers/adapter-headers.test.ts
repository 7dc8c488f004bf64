// compiler/config/adapter-headers.ts says which headers each provider's adapter sets on every call
// (so forwarding a client's header of that name has no effect and is refused). Held here to the
// adapters themselves: every provider, every endpoint it has and pass-through, every way of giving
// it a credential.
import { describe, expect, it } from 'vitest';
import { headersSetByAdapter } from '../../compiler/config/adapter-headers.ts';
import { PROVIDERS, type ProviderEntry } from '../../compiler/config/providers.ts';
import { defaultProviders } from '../../runtime/providers/registry.ts';
import type { ProviderCall } from '../../runtime/providers/types.ts';
import { CALL_OF_ENDPOINT, prepare } from './adapter-calls.ts';

const CALLS = CALL_OF_ENDPOINT;

/** Every way a target of the family gives the adapter what it needs (options, a key or none). */
function credentials(entry: ProviderEntry): Partial<ProviderCall>[] {
  switch (entry.family) {
    case 'clouda': return [
      { options: { resource_name: 'r', deployment_id: 'd' } },
      { apiKey: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln', options: { resource_name: 'r', deployment_id: 'd' } },
      { options: { clouda_resource_name: 'r', clouda_model_name: 'm' } },
    ];
    case 'cloudb': return [{ options: { cloudb_region: 'us-central1', cloudb_project_id: 'p' } }];
    case 'cloudc': return [
      { options: { cloudc_region: 'us-east-1' } },
      { apiKey: null, options: { cloudc_region: 'us-east-1', cloudc_access_key_id: 'AKIDEXAMPLE', cloudc_secret_access_key: 'secret', cloudc_session_token: 'session' } },
    ];
    default: return [{}];
  }
}

const registry = defaultProviders();

describe('the headers an adapter sets on every call', () => {
  it.each(PROVIDERS.map((entry) => [entry.name, entry] as const))('%s sets each one it is said to, on every endpoint and with every credential', async (_name, entry) => {
    const adapter = registry.get(entry.name);
    const declared = headersSetByAdapter(entry.name, true);
    let calls = 0;
    for (const endpoint of [...entry.endpoints, 'passthrough' as const]) {
      for (const credential of credentials(entry)) {
        const prepared = await prepare(adapter, { ...CALLS[endpoint], ...credential });
        for (const name of declared) expect(prepared.headers, `${entry.name} ${endpoint} ${JSON.stringify(credential)}`).toHaveProperty(name);
        calls++;
      }
    }
    expect(calls).toBeGreaterThan(0);
  });

  it('says a keyless local server sets no Authorization without a key (a forwarded one reaches it)', async () => {
    const keyless = PROVIDERS.filter((entry) => entry.family === 'compatible' && entry.key_required === false);
    expect(keyless.length).toBeGreaterThan(0);
    for (const entry of keyless) {
      expect(headersSetByAdapter(entry.name, false)).toEqual([]);
      const prepared = await prepare(registry.get(entry.name), { ...CALLS.chat, apiKey: null });
      expect(prepared.headers).not.toHaveProperty('authorization');
    }
  });

  it('knows nothing of a provider it does not know', () => {
    expect(headersSetByAdapter('no-such-provider', true)).toEqual([]);
  });
});
