// Cloud B's count of a chat's tokens, for the messages API's count_tokens (runtime/providers/cloudb/count-tokens.ts):
// the body countTokens takes, the answer in the messages API's shape, a count without totalTokens refused.
import { describe, expect, it } from 'vitest';
import { countTokensBody, countTokensResponse } from '../../runtime/providers/cloudb/count-tokens.ts';

describe('cloud B token count', () => {
  it('sends what countTokens takes, and answers {input_tokens}', () => {
    const body = JSON.parse(countTokensBody({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], tools: [{ functionDeclarations: [{ name: 'f' }] }], toolConfig: { functionCallingConfig: { mode: 'ANY' } } }).toString());
    expect(body).toEqual({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], tools: [{ functionDeclarations: [{ name: 'f' }] }] });
    const mapping = countTokensResponse('cloudb', () => {}, () => ({ error: { message: 'quota' } }));
    expect(mapping.json!({ totalTokens: 12, totalBillableCharacters: 40 })).toEqual({ input_tokens: 12 });
    for (const answer of [{}, { totalTokens: -1 }, { totalTokens: '12' }, null]) {
      expect(() => mapping.json!(answer)).toThrow(expect.objectContaining({ code: 'provider_invalid_response' }));
    }
    expect(mapping.error!(429, Buffer.from('{}'), {})).toEqual({ type: 'error', error: { type: 'rate_limit_error', message: 'quota' } });
  });
});
