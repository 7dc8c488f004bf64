// The estimate the log, token limits and budgets charge when no provider counted: four bytes of
// UTF-8 a token, four more a chat message, and the tools a chat offers, which providers count as input.
import { describe, expect, it } from 'vitest';
import { estimateInputTokens, estimateTokens, tokensOfBytes } from '../../runtime/core/token-estimate.ts';

describe('token estimate', () => {
  it('counts bytes, so English is about four characters a token and Chinese about one', () => {
    expect(estimateTokens('Hello there, friend.')).toBe(5);
    expect(estimateTokens('你好世界')).toBe(3);
    expect(estimateTokens(null)).toBe(0);
    expect(tokensOfBytes(0)).toBe(0);
    expect(tokensOfBytes(9)).toBe(3);
  });

  it('counts a chat\'s messages with their framing, and the tools it offers', () => {
    const messages = [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: [{ type: 'text', text: 'count to five' }] }];
    const tools = [{ type: 'function', function: { name: 'lookup', description: 'Looks a word up in the dictionary.', parameters: { type: 'object', properties: { word: { type: 'string' } } } } }];
    const plain = estimateInputTokens({ model: 'm', messages });
    expect(plain).toBe(4 + estimateTokens('Be brief.') + 4 + estimateTokens(messages[1].content));
    expect(estimateInputTokens({ model: 'm', messages, tools })).toBe(plain + estimateTokens(tools));
    expect(estimateInputTokens({ model: 'm', prompt: 'complete me' })).toBe(estimateTokens('complete me'));
  });
});
