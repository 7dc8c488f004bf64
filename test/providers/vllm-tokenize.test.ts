// A vLLM server's /tokenize is at its root, beside the `/v1` its chat calls go to.
import { describe, expect, it } from 'vitest';
import { VLLM_TOKENIZE } from '../../runtime/providers/compatible/vllm-tokenize.ts';

describe('the vLLM count\'s URL', () => {
  it('is /tokenize at the server\'s root, whatever the base\'s prefix before /v1', () => {
    expect(VLLM_TOKENIZE.url('http://127.0.0.1:8000/v1')).toBe('http://127.0.0.1:8000/tokenize');
    expect(VLLM_TOKENIZE.url('http://127.0.0.1:8000/v1/')).toBe('http://127.0.0.1:8000/tokenize');
    expect(VLLM_TOKENIZE.url('https://gpu.internal/vllm/v1')).toBe('https://gpu.internal/vllm/tokenize');
    expect(VLLM_TOKENIZE.url('http://127.0.0.1:8000')).toBe('http://127.0.0.1:8000/tokenize');
  });

  it('reads the count, and refuses an answer without one', () => {
    const mapping = VLLM_TOKENIZE.response('vllm', () => ({}));
    expect(mapping.json!({ count: 12, max_model_len: 4096, tokens: [] })).toEqual({ input_tokens: 12 });
    for (const answer of [{}, { count: -1 }, { count: '12' }, null]) expect(() => mapping.json!(answer)).toThrow(/no count/);
  });
});
