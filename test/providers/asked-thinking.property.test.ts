// The chat API's reasoning_effort through the translations: Claude (messages API, converse) gets an
// enabled thinking with the effort's budget, always below the answer's limit (a limit it does not fit
// under is refused, never sent for the API to refuse); Gemini 3 and later get the effort as their
// thinking level, earlier Gemini models its budget; `none` turns thinking off where the model can.
// Claude's own `thinking` reaches Gemini as its budget, with the thoughts asked for.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { thrownBy as refusal } from './adapter-calls.ts';
import { toMessagesRequest } from '../../runtime/providers/anthropic/request.ts';
import { toGenerateContentRequest } from '../../runtime/providers/cloudb/request.ts';
import { toConverseRequest } from '../../runtime/providers/cloudc/request.ts';
import type { ChatRequest } from '../../runtime/providers/shared/chat.ts';
import { DEFAULT_ANSWER_TOKENS, THINKING_BUDGETS, type ReasoningEffort } from '../../runtime/providers/shared/asked-thinking.ts';
import { asksThinking } from '../../runtime/providers/shared/kept-thinking.ts';
import { chatRequestArb } from './chat-arbitraries.ts';

type Json = Record<string, any>;

const EFFORTS: ReasoningEffort[] = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'];
const effortArb = fc.constantFrom(...EFFORTS);
const limitArb = fc.option(fc.integer({ min: 1, max: 40_000 }), { nil: undefined });

/** Each Claude translation, read back as (thinking, limit). */
const CLAUDE: Array<{ name: string; model: string; sent: (chat: ChatRequest) => { thinking: unknown; limit: number | undefined } }> = [
  {
    name: 'messages API', model: 'claude-sonnet-4-5',
    sent: (chat) => {
      const request = toMessagesRequest(chat, 'anthropic') as Json;
      return { thinking: request.thinking, limit: request.max_tokens };
    },
  },
  {
    name: 'converse', model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
    sent: (chat) => {
      const request = toConverseRequest(chat, 'cloudc') as Json;
      return { thinking: request.additionalModelRequestFields?.thinking, limit: request.inferenceConfig?.maxTokens };
    },
  },
];

describe.each(CLAUDE)('$name: reasoning_effort as Claude thinking', ({ model, sent }) => {
  test.prop([chatRequestArb, effortArb, limitArb], { numRuns: 80 })(
    'an enabled thinking with the effort\'s budget, under the answer\'s limit; none: no thinking; a limit too small: refused',
    (base, effort, limit) => {
      const chat: ChatRequest = { ...base, model, reasoning_effort: effort, max_tokens: limit };
      const error = refusal(() => sent(chat));
      if (effort === 'none') {
        expect(error).toBeNull();
        expect(sent(chat)).toEqual(sent({ ...base, model, max_tokens: limit }));
        expect(asksThinking(chat)).toBe(false);
        return;
      }
      const budget = THINKING_BUDGETS[effort];
      if (limit !== undefined && limit <= budget) {
        expect(error).toMatchObject({ code: 'invalid_request_body', param: '/reasoning_effort' });
        expect(error?.message).toContain(`above ${budget}`);
        return;
      }
      expect(error).toBeNull();
      const { thinking, limit: sentLimit } = sent(chat);
      expect(thinking).toEqual({ type: 'enabled', budget_tokens: budget });
      expect(budget).toBeGreaterThanOrEqual(1024);
      expect(sentLimit).toBe(limit ?? budget + DEFAULT_ANSWER_TOKENS);
      expect(sentLimit!).toBeGreaterThan(budget);
      // The kept thinking (kept-thinking.ts) hears this answer as it would one asked for with thinking.
      expect(asksThinking(chat)).toBe(true);
    },
  );

  it('refuses thinking and reasoning_effort together', () => {
    const chat: ChatRequest = { model, messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'low', thinking: { type: 'enabled', budget_tokens: 2048 } };
    expect(refusal(() => sent(chat))).toMatchObject({ code: 'invalid_request_body', param: '/reasoning_effort' });
  });

  it('refuses an effort the chat API has no level of', () => {
    for (const effort of ['max', 'High', 3, { level: 'low' }]) {
      const error = refusal(() => sent({ model, messages: [{ role: 'user', content: 'hi' }], reasoning_effort: effort }));
      expect(error, JSON.stringify(effort)).toMatchObject({ code: 'invalid_request_body' });
      expect(error?.param).toBe('/reasoning_effort');
    }
  });
});

it('budgets grow with the effort', () => {
  const budgets = EFFORTS.filter((e) => e !== 'none').map((e) => THINKING_BUDGETS[e as Exclude<ReasoningEffort, 'none'>]);
  expect(budgets).toEqual([...budgets].sort((a, b) => a - b));
});

test.prop([chatRequestArb, effortArb, fc.constantFrom('amazon.nova-pro-v1:0', 'deepseek.r1-v1:0', 'openai.gpt-oss-120b-1:0', 'meta.llama3-70b-instruct-v1:0')], { numRuns: 20 })(
  'converse refuses an effort for a model that is not Claude, naming it',
  (base, effort, model) => {
    const error = refusal(() => toConverseRequest({ ...base, model, reasoning_effort: effort }, 'cloudc'));
    expect(error).toMatchObject({ code: 'unsupported_parameter', param: 'reasoning_effort' });
    expect(error?.message).toContain(model);
  },
);

describe('generateContent: reasoning_effort as Gemini thinking', () => {
  const translate = (chat: ChatRequest) => toGenerateContentRequest(chat, 'cloudb') as Json;

  test.prop([chatRequestArb, effortArb, fc.constantFrom('gemini-2.5-flash', 'gemini-2.5-pro', 'gemini-2.0-flash-001')], { numRuns: 60 })(
    'before Gemini 3: the effort\'s budget (none: 0), and nothing else changed',
    (base, effort, model) => {
      const request = translate({ ...base, model, reasoning_effort: effort });
      expect(request.generationConfig.thinkingConfig).toEqual({ thinkingBudget: effort === 'none' ? 0 : THINKING_BUDGETS[effort] });
      const { thinkingConfig: _, ...rest } = request.generationConfig;
      const without = translate({ ...base, model });
      expect(rest).toEqual(without.generationConfig ?? {});
      expect(request.contents).toEqual(without.contents);
    },
  );

  test.prop([chatRequestArb, effortArb, fc.constantFrom('gemini-3-pro-preview', 'gemini-3-flash-preview', 'gemini-3.1-pro-preview', 'gemini-10-ultra')], { numRuns: 60 })(
    'Gemini 3 and later: the effort as the level; none and xhigh, which no level matches, refused',
    (base, effort, model) => {
      const error = refusal(() => translate({ ...base, model, reasoning_effort: effort }));
      if (effort === 'none' || effort === 'xhigh') {
        expect(error).toMatchObject({ code: 'unsupported_parameter', param: 'reasoning_effort' });
        return;
      }
      expect(error).toBeNull();
      expect(translate({ ...base, model, reasoning_effort: effort }).generationConfig.thinkingConfig).toEqual({ thinkingLevel: effort });
    },
  );

  test.prop([chatRequestArb, fc.constantFrom('gemini-2.5-flash', 'gemini-3-pro-preview'), fc.integer({ min: 0, max: 40_000 })], { numRuns: 40 })(
    'Claude\'s thinking: enabled its budget with the thoughts asked for, adaptive the model\'s own, disabled none',
    (base, model, budget) => {
      const config = (thinking: unknown) => translate({ ...base, model, thinking }).generationConfig.thinkingConfig;
      expect(config({ type: 'enabled', budget_tokens: budget })).toEqual({ thinkingBudget: budget, includeThoughts: true });
      expect(config({ type: 'adaptive' })).toEqual({ thinkingBudget: -1, includeThoughts: true });
      expect(config({ type: 'disabled' })).toEqual({ thinkingBudget: 0 });
    },
  );

  it('refuses a thinking of another shape, and thinking beside an effort', () => {
    const chat = { model: 'gemini-2.5-flash', messages: [{ role: 'user' as const, content: 'hi' }] };
    for (const thinking of [true, 'enabled', { type: 'enabled' }, { type: 'enabled', budget_tokens: -5 }, { type: 'enabled', budget_tokens: 1.5 }, { type: 'on' }, []]) {
      expect(refusal(() => translate({ ...chat, thinking })), JSON.stringify(thinking)).toMatchObject({ code: 'invalid_request_body', param: '/thinking' });
    }
    expect(refusal(() => translate({ ...chat, thinking: { type: 'disabled' }, reasoning_effort: 'low' }))).toMatchObject({ code: 'invalid_request_body', param: '/reasoning_effort' });
  });

  it('sends no thinkingConfig without an effort', () => {
    expect(translate({ model: 'gemini-3-pro-preview', messages: [{ role: 'user', content: 'hi' }] }).generationConfig).toBeUndefined();
  });
});
