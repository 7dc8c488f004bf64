// Secrets in configs: `${NAME}` resolves from the environment for file configs and is refused in API
// and inline configs; a credential written in a config never comes back out of the compiler's
// artifacts or an echo (a property over generated secrets), and `gateway compile` warns about it.
import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { checkConfig, checkConfigSource } from '../../compiler/config/index.ts';
import { emitRouterModule } from '../../compiler/config/emit.ts';
import { CREDENTIAL_KEYS, literalCredentials, redactCredential, redactCredentials, secretReferences } from '../../compiler/config/secrets.ts';

const secret = fc.stringMatching(/^[A-Za-z0-9_-]{12,60}$/);

describe('secret references', () => {
  it('resolve from the environment for file configs, located when a variable is not set', () => {
    const source = '{\n  "provider": "vendor",\n  "api_key": "${VENDOR_KEY}",\n  "custom_host": "http://${LLM_HOST}:8080/v1"\n}';
    const resolved = checkConfigSource(source, 'file', { secrets: { env: { VENDOR_KEY: 'sk-live-0123456789', LLM_HOST: '10.0.0.7' } } });
    if (!resolved.ok) throw new Error(JSON.stringify(resolved.errors));
    expect(resolved.plan.root).toMatchObject({ kind: 'leaf', apiKey: 'sk-live-0123456789', customHost: 'http://10.0.0.7:8080/v1' });
    const missing = checkConfigSource(source, 'file', { secrets: { env: { LLM_HOST: 'h' } } });
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.errors).toEqual([expect.objectContaining({ code: 'CFG_SECRET_NOT_SET', pointer: '/api_key', line: 3, column: 14 })]);
  });

  it('are refused in configs that come over the API or inline, and kept as written by gateway compile', () => {
    const config = { provider: 'vendor', api_key: '${GATEWAY_MASTER_KEY}' };
    const refused = checkConfig(config, 'inline', { secrets: 'refuse' });
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.errors).toEqual([expect.objectContaining({ code: 'CFG_SECRET_REFERENCE_NOT_ALLOWED', pointer: '/api_key' })]);
    const kept = checkConfig(config, 'compiled');
    expect(kept.ok && kept.plan.root.kind === 'leaf' && kept.plan.root.apiKey).toBe('${GATEWAY_MASTER_KEY}');
    expect(secretReferences({ a: ['x ${A} ${B_2}'], b: '$HOME', c: '${1X}' })).toEqual([{ pointer: '/a/0', name: 'A' }, { pointer: '/a/0', name: 'B_2' }]);
  });
});

describe('credentials written in configs', () => {
  it('are the schema\'s credential fields and the provider options the manifest marks secret', () => {
    expect([...CREDENTIAL_KEYS].sort()).toEqual(['api_key', 'cloudb_service_account_json', 'cloudc_access_key_id', 'cloudc_secret_access_key', 'cloudc_session_token']);
  });

  test.prop([secret, secret], { numRuns: 100 })('never appear in a redacted config, plan or emitted router; references stay', (key, other) => {
    const config = { strategy: { mode: 'fallback' }, targets: [{ provider: 'vendor', api_key: key }, { provider: 'cloudc', cloudc_secret_access_key: other, cloudc_access_key_id: 'AKIDEXAMPLE', cloudc_region: 'eu-west-1' }, { provider: 'vendor', api_key: '${VENDOR_KEY}' }] };
    const shown = JSON.stringify(redactCredentials(config));
    expect(shown).not.toContain(key);
    expect(shown).not.toContain(other);
    expect(shown).toContain('${VENDOR_KEY}');
    const checked = checkConfig(config, 'p');
    if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
    const plan = redactCredentials(checked.plan, new Set([...CREDENTIAL_KEYS, 'apiKey']));
    const artifacts = JSON.stringify(plan) + emitRouterModule(plan, 'p.json');
    expect(artifacts).not.toContain(key);
    expect(artifacts).not.toContain(other);
    expect(literalCredentials(config)).toEqual(['/targets/0/api_key', '/targets/1/cloudc_secret_access_key', '/targets/1/cloudc_access_key_id']);
  });

  it('are shown as a prefix and the last four characters', () => {
    expect(redactCredential('sk-example-guard-0007')).toBe('sk-…0007');
    expect(redactCredential('AKIAIOSFODNN7EXAMPLE')).toBe('…MPLE');
    expect(redactCredential('short')).toBe('…');
  });
});
