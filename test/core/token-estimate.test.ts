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

  it('counts the families\' own chat bodies through the pass-through by their turns, not their settings', () => {
    // generateContent: its contents' parts, its system instruction and tools; not its generation or safety settings.
    const contents = [{ role: 'user', parts: [{ text: 'count to five' }] }, { role: 'model', parts: [{ text: 'one two' }] }];
    const systemInstruction = { parts: [{ text: 'Be brief.' }] };
    const generate = estimateInputTokens({ contents, systemInstruction, generationConfig: { temperature: 0.2, maxOutputTokens: 64 }, safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }] });
    expect(generate).toBe(estimateTokens(systemInstruction) + 4 + estimateTokens(contents[0].parts) + 4 + estimateTokens(contents[1].parts));
    // converse: its messages and system, and the tools of its toolConfig.
    const messages = [{ role: 'user', content: [{ text: 'count to five' }] }];
    const toolConfig = { tools: [{ toolSpec: { name: 'lookup', inputSchema: { json: { type: 'object' } } } }] };
    expect(estimateInputTokens({ messages, system: [{ text: 'Be brief.' }], toolConfig, inferenceConfig: { maxTokens: 64 } }))
      .toBe(estimateTokens([{ text: 'Be brief.' }]) + estimateTokens(toolConfig) + 4 + estimateTokens(messages[0].content));
  });
});
