// Text a config or a virtual key gives the gateway to send to a provider (a credential, a provider
// option) is refused, located and never echoed, exactly when node's HTTP client would refuse it in a
// header; a key read from a file with its last newline is said to be that.
import { validateHeaderValue } from 'node:http';
import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { checkConfig } from '../../compiler/config/index.ts';
import { headerTextProblem } from '../../compiler/config/header-values.ts';

const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 20 }), fc.string({ maxLength: 20 }), fc.string({ unit: fc.integer({ min: 0, max: 0x2ff }).map((c) => String.fromCharCode(c)), maxLength: 12 }));

describe('text sent in headers', () => {
  test.prop([text], { numRuns: 300 })('refused exactly when a header cannot carry it', (value) => {
    let sendable = true;
    try {
      validateHeaderValue('authorization', `Bearer ${value}`);
    } catch {
      sendable = false;
    }
    expect(headerTextProblem(value) === null).toBe(sendable);
  });

  test.prop([fc.stringMatching(/^sk-[A-Za-z0-9]{8,20}$/), fc.constantFrom('\n', '\r\n', '\u0000', '日', '\u2028')], { numRuns: 50 })('a config with such a credential or option does not compile, at its pointer, without echoing it', (key, bad) => {
    const result = checkConfig({ strategy: { mode: 'fallback' }, targets: [{ provider: 'openai', api_key: 'fine' }, { provider: 'openai', api_key: `${key}${bad}`, vendor_organization: `org${bad}x` }] });
    expect(result.ok).toBe(false);
    const errors = result.ok ? [] : result.errors;
    expect(errors.map((e) => [e.code, e.pointer])).toEqual([['CFG_INVALID_FORMAT', '/targets/1/api_key'], ['CFG_INVALID_FORMAT', '/targets/1/vendor_organization']]);
    expect(JSON.stringify(errors)).not.toContain(key);
  });

  test('a value filled in from the environment at start is checked too, and a last newline is named', () => {
    const result = checkConfig({ provider: 'openai', api_key: '${VENDOR_KEY}' }, 'from-env', { secrets: { env: { VENDOR_KEY: 'sk-from-a-file-0123\n' } } });
    expect(result).toMatchObject({ ok: false, errors: [{ code: 'CFG_INVALID_FORMAT', pointer: '/api_key', hint: 'a value read from a file often keeps its last newline: remove it' }] });
    expect(checkConfig({ provider: 'openai', api_key: '${VENDOR_KEY}' }).ok).toBe(true);
  });
});
