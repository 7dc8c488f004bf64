// What checks read and transformers rewrite in each family's own chat API through the pass-through:
// the last user turn's text (a turn of tool results only passed over), every text rewritten (the
// system prompt, every turn, tool results), the model's reasoning sent back and what a program reads
// as data left as they are; an answer's text judged per candidate and rewritten with its reasoning.
import { describe, expect, it } from 'vitest';
import { OWN_ANSWER_BODY, OWN_REQUEST_BODY, OWN_TEXTS } from '../../runtime/pipeline/guardrails/own-text/own-texts.ts';
import type { TextTransform } from '../../runtime/pipeline/guardrails/check.ts';

/** Replaces "x@y.z" with "[EMAIL]", counting. */
const redact: TextTransform = (text) => {
  let found = 0;
  return { text: text.replace(/x@y\.z/g, () => (found++, '[EMAIL]')), found };
};
const EMAIL = 'x@y.z';

describe('the messages API', () => {
  const body = {
    model: 'claude', max_tokens: 9,
    system: [{ type: 'text', text: `sys ${EMAIL}` }],
    messages: [
      { role: 'user', content: `first ${EMAIL}` },
      { role: 'assistant', content: [{ type: 'thinking', thinking: `thought ${EMAIL}`, signature: 'sig' }, { type: 'tool_use', id: 't1', name: 'f', input: { q: EMAIL } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: `result ${EMAIL}` }] }] },
    ],
  };

  it('judges the last user turn with text, a turn of tool results only passed over', () => {
    expect(OWN_TEXTS.messages.requestText(body)).toBe(`first ${EMAIL}`);
    expect(OWN_TEXTS.messages.requestText({ messages: [{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'image', source: {} }, { type: 'text', text: 'b' }] }] })).toBe('ab');
    expect(OWN_TEXTS.messages.requestText({ messages: 'nonsense' })).toBe('');
  });

  it('rewrites the system prompt, every turn and tool results; leaves signed thinking and tool input', () => {
    const { value, found } = OWN_REQUEST_BODY.messages.rewrite(body, redact);
    expect(found).toBe(3);
    const json = JSON.stringify(value);
    expect(json).toContain('sys [EMAIL]');
    expect(json).toContain('first [EMAIL]');
    expect(json).toContain('result [EMAIL]');
    expect(json).toContain(`thought ${EMAIL}`);
    expect((value as typeof body).messages[1]).toEqual(body.messages[1]);
    expect(OWN_REQUEST_BODY.messages.rewrite({ ...body, system: 'plain', messages: [] }, redact).found).toBe(0);
  });

  it('judges an answer\'s text blocks; rewrites its text and thinking', () => {
    const answer = { content: [{ type: 'thinking', thinking: `t ${EMAIL}`, signature: 's' }, { type: 'text', text: 'a ' }, { type: 'tool_use', input: { e: EMAIL } }, { type: 'text', text: EMAIL }] };
    expect(OWN_ANSWER_BODY.messages.textOf(answer)).toBe(`a ${EMAIL}`);
    expect(OWN_ANSWER_BODY.messages.otherTexts(answer)).toEqual([]);
    const { value, found } = OWN_ANSWER_BODY.messages.rewrite(answer, redact);
    expect(found).toBe(2);
    expect(value).toEqual({ content: [{ type: 'thinking', thinking: 't [EMAIL]', signature: 's' }, { type: 'text', text: 'a ' }, { type: 'tool_use', input: { e: EMAIL } }, { type: 'text', text: '[EMAIL]' }] });
  });
});

describe('generateContent', () => {
  const body = {
    systemInstruction: { parts: [{ text: `sys ${EMAIL}` }] },
    contents: [
      { role: 'user', parts: [{ text: `first ${EMAIL}` }, { inlineData: { mimeType: 'image/png', data: 'AAAA' } }] },
      { role: 'model', parts: [{ text: `thought ${EMAIL}`, thought: true, thoughtSignature: 'sig' }, { functionCall: { name: 'f', args: { q: EMAIL } } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'f', response: { r: EMAIL } } }] },
    ],
  };

  it('judges the last user turn with text (a turn without a role is the user\'s)', () => {
    expect(OWN_TEXTS.generateContent.requestText(body)).toBe(`first ${EMAIL}`);
    expect(OWN_TEXTS.generateContent.requestText({ contents: [{ parts: [{ text: 'no role' }] }] })).toBe('no role');
  });

  it('rewrites the system instruction and every turn\'s text; leaves thoughts and function calls and responses', () => {
    const { value, found } = OWN_REQUEST_BODY.generateContent.rewrite(body, redact);
    expect(found).toBe(2);
    expect((value as any).systemInstruction.parts[0].text).toBe('sys [EMAIL]');
    expect((value as any).contents[0].parts[0].text).toBe('first [EMAIL]');
    expect((value as any).contents.slice(1)).toEqual(body.contents.slice(1));
  });

  it('judges each candidate, naming the others; a rewritten candidate loses its log probabilities', () => {
    const answer = {
      candidates: [
        { index: 0, content: { parts: [{ text: `why ${EMAIL}`, thought: true }, { text: 'one' }] }, logprobsResult: { chosenCandidates: [] } },
        { index: 1, content: { parts: [{ text: `two ${EMAIL}` }] }, logprobsResult: { chosenCandidates: [] } },
        { index: 2, content: { parts: [{ text: 'three' }] }, logprobsResult: { chosenCandidates: [] } },
      ],
    };
    expect(OWN_ANSWER_BODY.generateContent.textOf(answer)).toBe('one');
    expect(OWN_ANSWER_BODY.generateContent.otherTexts(answer)).toEqual([{ label: 'candidate 1', text: `two ${EMAIL}` }, { label: 'candidate 2', text: 'three' }]);
    const { value, found } = OWN_ANSWER_BODY.generateContent.rewrite(answer, redact);
    expect(found).toBe(2);
    const candidates = (value as typeof answer).candidates;
    expect(candidates[0]).toEqual({ index: 0, content: { parts: [{ text: 'why [EMAIL]', thought: true }, { text: 'one' }] } });
    expect(candidates[1]).toEqual({ index: 1, content: { parts: [{ text: 'two [EMAIL]' }] } });
    expect(candidates[2]).toBe(answer.candidates[2]);
  });
});

describe('converse', () => {
  const body = {
    system: [{ text: `sys ${EMAIL}` }, { cachePoint: { type: 'default' } }],
    messages: [
      { role: 'user', content: [{ text: `first ${EMAIL}` }, { guardContent: { text: { text: `guarded ${EMAIL}` } } }] },
      { role: 'assistant', content: [{ reasoningContent: { reasoningText: { text: `thought ${EMAIL}`, signature: 's' } } }, { toolUse: { toolUseId: 't', name: 'f', input: { q: EMAIL } } }] },
      { role: 'user', content: [{ toolResult: { toolUseId: 't', content: [{ text: `result ${EMAIL}` }, { json: { r: EMAIL } }] } }] },
    ],
  };

  it('judges the last user turn with text, its guarded text included', () => {
    expect(OWN_TEXTS.converse.requestText(body)).toBe(`first ${EMAIL}guarded ${EMAIL}`);
  });

  it('rewrites the system prompt, every turn\'s text, guarded text and tool results\' text; leaves reasoning, tool input and JSON results', () => {
    const { value, found } = OWN_REQUEST_BODY.converse.rewrite(body, redact);
    expect(found).toBe(4);
    const json = JSON.stringify(value);
    for (const text of ['sys [EMAIL]', 'first [EMAIL]', 'guarded [EMAIL]', 'result [EMAIL]', `thought ${EMAIL}`, `{"q":"${EMAIL}"}`, `{"r":"${EMAIL}"}`]) expect(json).toContain(text);
  });

  it('judges an answer\'s text blocks; rewrites its text and reasoning', () => {
    const answer = { output: { message: { role: 'assistant', content: [{ reasoningContent: { reasoningText: { text: `r ${EMAIL}`, signature: 's' } } }, { text: `a ${EMAIL}` }] } }, stopReason: 'end_turn' };
    expect(OWN_ANSWER_BODY.converse.textOf(answer)).toBe(`a ${EMAIL}`);
    const { value, found } = OWN_ANSWER_BODY.converse.rewrite(answer, redact);
    expect(found).toBe(2);
    expect((value as typeof answer).output.message.content).toEqual([{ reasoningContent: { reasoningText: { text: 'r [EMAIL]', signature: 's' } } }, { text: 'a [EMAIL]' }]);
  });
});

it('a request body that is not a JSON object has no text a check can read', () => {
  for (const [reading, body] of Object.entries(OWN_REQUEST_BODY)) {
    expect(body.unreadable([1, 2])).toContain('not judged');
    expect(body.unreadable(undefined)).toContain('not judged');
    const readable = reading === 'converseCount' || reading === 'claudeCount' ? { input: { converse: {} } } : reading === 'titan' ? { inputText: '' } : reading === 'llama' || reading === 'mistral' || reading === 'deepseek' ? { prompt: '' } : {};
    expect(body.unreadable(readable)).toBeNull();
  }
});

describe('cloud B\'s image generation (`:predict` on an Imagen model)', () => {
  const body = { instances: [{ prompt: `a card for ${EMAIL}` }], parameters: { sampleCount: 2, negativePrompt: `no ${EMAIL}`, aspectRatio: '1:1' } };

  it('judges the prompts; rewrites them and the negative prompt', () => {
    const io = OWN_REQUEST_BODY.imagePredict;
    expect(io.textOf(body)).toBe(`a card for ${EMAIL}`);
    expect(io.textOf({ instances: [{ prompt: 'one' }, 7, { prompt: 'two' }] })).toBe('one\ntwo');
    const { value, found } = io.rewrite(body, redact);
    expect(found).toBe(2);
    expect(value).toEqual({ instances: [{ prompt: 'a card for [EMAIL]' }], parameters: { sampleCount: 2, negativePrompt: 'no [EMAIL]', aspectRatio: '1:1' } });
    expect(io.rewrite({ instances: 'odd', parameters: { negativePrompt: EMAIL } }, redact)).toEqual({ value: { instances: 'odd', parameters: { negativePrompt: '[EMAIL]' } }, found: 1 });
    expect(io.rewrite({ instances: [{ prompt: 'plain' }] }, redact)).toEqual({ value: { instances: [{ prompt: 'plain' }] }, found: 0 });
  });
});

describe('another model\'s invoke in a format the gateway reads', () => {
  it('Amazon Nova\'s is read in converse\'s shapes', () => {
    const body = { schemaVersion: 'messages-v1', system: [{ text: `sys ${EMAIL}` }], messages: [{ role: 'user', content: [{ text: `ask ${EMAIL}` }, { image: { format: 'png', source: { bytes: 'AA==' } } }] }], inferenceConfig: { maxTokens: 9 } };
    expect(OWN_REQUEST_BODY.nova.textOf(body)).toBe(`ask ${EMAIL}`);
    const { value, found } = OWN_REQUEST_BODY.nova.rewrite(body, redact);
    expect(found).toBe(2);
    expect(value).toEqual({ ...body, system: [{ text: 'sys [EMAIL]' }], messages: [{ role: 'user', content: [{ text: 'ask [EMAIL]' }, body.messages[0].content[1]] }] });
    const answer = { output: { message: { role: 'assistant', content: [{ text: `a ${EMAIL}` }] } }, stopReason: 'end_turn', usage: { inputTokens: 3, outputTokens: 2 } };
    expect(OWN_ANSWER_BODY.nova.textOf(answer)).toBe(`a ${EMAIL}`);
    expect((OWN_ANSWER_BODY.nova.rewrite(answer, redact).value as typeof answer).output.message.content).toEqual([{ text: 'a [EMAIL]' }]);
  });

  it('an OpenAI open-weight model\'s is read as the chat endpoint\'s body and answer', () => {
    const body = { messages: [{ role: 'system', content: `sys ${EMAIL}` }, { role: 'user', content: [{ type: 'text', text: `ask ${EMAIL}` }] }, { role: 'assistant', content: 'ok', reasoning_content: `thought ${EMAIL}` }, { role: 'tool', tool_call_id: 't', content: 'result' }], max_completion_tokens: 9 };
    expect(OWN_REQUEST_BODY.openaiChat.textOf(body)).toBe(`ask ${EMAIL}`);
    const { value, found } = OWN_REQUEST_BODY.openaiChat.rewrite(body, redact);
    expect(found).toBe(3);
    expect(JSON.stringify(value)).not.toContain(EMAIL);
    const answer = { object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: `<reasoning>r</reasoning>a ${EMAIL}` }, finish_reason: 'stop' }, { index: 1, message: { role: 'assistant', content: 'b' }, finish_reason: 'stop' }] };
    expect(OWN_ANSWER_BODY.openaiChat.textOf(answer)).toBe(`<reasoning>r</reasoning>a ${EMAIL}`);
    expect(OWN_ANSWER_BODY.openaiChat.otherTexts(answer)).toEqual([{ label: 'choice 1', text: 'b' }]);
    const rewritten = OWN_ANSWER_BODY.openaiChat.rewrite(answer, redact);
    expect(rewritten.found).toBe(1);
    expect((rewritten.value as typeof answer).choices[0].message.content).toBe('<reasoning>r</reasoning>a [EMAIL]');
  });

  // A text completion model's prompt holds every turn in the model's template: judged whole, as a completion's prompt.
  const completions: Array<[string, object, object, string[]]> = [
    ['titan', { inputText: `User: hi ${EMAIL}\nBot:`, textGenerationConfig: { maxTokenCount: 9 } }, { inputTextTokenCount: 3, results: [{ tokenCount: 2, outputText: `one ${EMAIL}`, completionReason: 'FINISH' }, { outputText: 'two' }] }, ['', 'result 2']],
    ['llama', { prompt: `<|begin_of_text|>hi ${EMAIL}`, max_gen_len: 9 }, { generation: `one ${EMAIL}`, prompt_token_count: 3, generation_token_count: 2, stop_reason: 'stop' }, ['']],
    ['mistral', { prompt: `<s>[INST] hi ${EMAIL} [/INST]`, max_tokens: 9 }, { outputs: [{ text: `one ${EMAIL}`, stop_reason: 'stop' }, { text: 'two', stop_reason: 'stop' }] }, ['', 'output 2']],
    ['deepseek', { prompt: `<｜User｜>hi ${EMAIL}<｜Assistant｜>`, max_tokens: 9 }, { choices: [{ text: `one ${EMAIL}`, stop_reason: 'stop' }, { text: 'two', stop_reason: 'length' }] }, ['', 'completion 2']],
  ];
  for (const [dialect, body, answer, labels] of completions) {
    it(`${dialect}'s: the whole prompt judged and rewritten; each completion judged and rewritten, named after the first`, () => {
      const request = OWN_REQUEST_BODY[dialect as 'titan'];
      expect(request.unreadable(body)).toBeNull();
      expect(request.textOf(body)).toContain(`hi ${EMAIL}`);
      const rewritten = request.rewrite(body, redact);
      expect(rewritten.found).toBe(1);
      expect(JSON.stringify(rewritten.value)).toBe(JSON.stringify(body).replace(EMAIL, '[EMAIL]'));
      const io = OWN_ANSWER_BODY[dialect as 'titan'];
      expect(io.textOf(answer)).toBe(`one ${EMAIL}`);
      expect([{ label: '', text: io.textOf(answer) }, ...io.otherTexts(answer)].map((t) => t.label)).toEqual(labels);
      const { value, found } = io.rewrite(answer, redact);
      expect(found).toBe(1);
      expect(JSON.stringify(value)).toBe(JSON.stringify(answer).replace(EMAIL, '[EMAIL]'));
      // A body without the prompt (another form: chat messages, which only Mistral's models also take) is not read.
      if (dialect !== 'mistral') {
        expect(request.unreadable({ messages: [{ role: 'user', content: 'hi' }] })).toContain('not judged');
        expect(request.rewrite({ messages: [] }, redact)).toEqual({ value: { messages: [] }, found: 0 });
      }
      expect(request.unreadable({ inputs: 'hi' })).toContain('not judged');
    });
  }

  it('Mistral\'s chat completion form (`messages`, answered `choices`) is read as the chat endpoint\'s body and answer; its prompt form as a completion', () => {
    const request = OWN_REQUEST_BODY.mistral;
    const body = { messages: [{ role: 'system', content: `sys ${EMAIL}` }, { role: 'user', content: `ask ${EMAIL}` }, { role: 'assistant', content: 'ok' }, { role: 'tool', tool_call_id: 't', content: 'result' }], max_tokens: 9 };
    expect(request.unreadable(body)).toBeNull();
    expect(request.textOf(body)).toBe(`ask ${EMAIL}`);
    const { value, found } = request.rewrite(body, redact);
    expect(found).toBe(2);
    expect(JSON.stringify(value)).toBe(JSON.stringify(body).replaceAll(EMAIL, '[EMAIL]'));
    const answer = { id: 'm', choices: [{ index: 0, message: { role: 'assistant', content: `a ${EMAIL}` }, finish_reason: 'stop' }, { index: 1, message: { role: 'assistant', content: 'b' }, finish_reason: 'stop' }], usage: { prompt_tokens: 3 } };
    const io = OWN_ANSWER_BODY.mistral;
    expect(io.textOf(answer)).toBe(`a ${EMAIL}`);
    expect(io.otherTexts(answer)).toEqual([{ label: 'choice 1', text: 'b' }]);
    const rewritten = io.rewrite(answer, redact);
    expect(rewritten.found).toBe(1);
    expect((rewritten.value as typeof answer).choices[0].message.content).toBe('a [EMAIL]');
    expect(request.unreadable({ inputs: 'hi' })).toContain('no `prompt` string and no `messages` list');
  });
});

describe('cloud C\'s token count', () => {
  const count = OWN_REQUEST_BODY.converseCount;
  const wrapped = { input: { converse: { system: [{ text: `sys ${EMAIL}` }], messages: [{ role: 'user', content: [{ text: `count ${EMAIL}` }] }] } } };

  it('reads and rewrites the converse body it wraps, and wraps it again', () => {
    expect(count.textOf(wrapped)).toBe(`count ${EMAIL}`);
    const { value, found } = count.rewrite(wrapped, redact);
    expect(found).toBe(2);
    expect(value).toEqual({ input: { converse: { system: [{ text: 'sys [EMAIL]' }], messages: [{ role: 'user', content: [{ text: 'count [EMAIL]' }] }] } } });
    expect(count.rewrite({ input: { converse: { messages: [] } } }, redact).found).toBe(0);
  });

  it('cannot read another model\'s count of an invoke body (base64 of the model vendor\'s own format)', () => {
    const invoke = { input: { invokeModel: { body: Buffer.from('{"messages":[]}').toString('base64') } } };
    expect(count.unreadable(invoke)).toContain('invoke body');
    expect(count.rewrite(invoke, redact)).toEqual({ value: invoke, found: 0 });
  });

  describe('of a Claude model', () => {
    const claude = OWN_REQUEST_BODY.claudeCount;
    const invokeBody = { anthropic_version: 'bedrock-2023-05-31', max_tokens: 9, system: `sys ${EMAIL}`, messages: [{ role: 'user', content: [{ type: 'text', text: `count ${EMAIL}` }] }] };
    const invoke = { input: { invokeModel: { body: Buffer.from(JSON.stringify(invokeBody)).toString('base64') } } };
    const decoded = (value: unknown) => JSON.parse(Buffer.from((value as typeof invoke).input.invokeModel.body, 'base64').toString('utf8'));

    it('reads its invoke body (the messages API\'s, in base64) and rewrites it in base64 again', () => {
      expect(claude.unreadable(invoke)).toBeNull();
      expect(claude.textOf(invoke)).toBe(`count ${EMAIL}`);
      const { value, found } = claude.rewrite(invoke, redact);
      expect(found).toBe(2);
      expect(decoded(value)).toEqual({ ...invokeBody, system: 'sys [EMAIL]', messages: [{ role: 'user', content: [{ type: 'text', text: 'count [EMAIL]' }] }] });
      expect(claude.rewrite({ input: { invokeModel: { body: Buffer.from('{"messages":[]}').toString('base64') } } }, redact).found).toBe(0);
    });

    it('reads a converse body it wraps as the other models\' counts do', () => {
      expect(claude.textOf(wrapped)).toBe(`count ${EMAIL}`);
      expect(claude.rewrite(wrapped, redact)).toEqual(count.rewrite(wrapped, redact));
    });

    it('cannot read an invoke body whose base64 holds no JSON object', () => {
      for (const body of [Buffer.from('not json').toString('base64'), Buffer.from('[1]').toString('base64'), 42]) {
        const odd = { input: { invokeModel: { body } } };
        expect(claude.unreadable(odd)).toContain('not base64 of the JSON object');
        expect(claude.rewrite(odd, redact)).toEqual({ value: odd, found: 0 });
      }
    });
  });
});
