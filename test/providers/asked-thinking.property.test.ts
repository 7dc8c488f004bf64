// The chat API's reasoning_effort through the translations: Claude (messages API, converse) gets
// adaptive thinking at its level for the effort from 4.6 on, and before an enabled thinking with the
// effort's budget, always below the answer's limit (a limit it does not fit under is refused, never
// sent for the API to refuse); Gemini 3 and later get the effort as their
// thinking level, earlier Gemini models its budget; `none` turns thinking off where the model can.
// Claude's own `thinking` reaches Gemini as its budget, with the thoughts asked for.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { thrownBy as refusal } from './adapter-calls.ts';
import { toMessagesRequest } from '../../runtime/providers/anthropic/request.ts';
import { toGenerateContentRequest } from '../../runtime/providers/cloudb/request.ts';
import { toConverseRequest } from '../../runtime/providers/cloudc/request.ts';
import type { ChatRequest } from '../../runtime/providers/shared/chat.ts';
import { claudeTakesAdaptive, DEFAULT_ANSWER_TOKENS, THINKING_BUDGETS, type ReasoningEffort } from '../../runtime/providers/shared/asked-thinking.ts';
import { asksThinking } from '../../runtime/providers/shared/kept-thinking.ts';
import { chatRequestArb } from './chat-arbitraries.ts';

type Json = Record<string, any>;

const EFFORTS: ReasoningEffort[] = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'];
const effortArb = fc.constantFrom(...EFFORTS);
const limitArb = fc.option(fc.integer({ min: 1, max: 40_000 }), { nil: undefined });

/** Each Claude translation, read back as (thinking, limit). */
/** What a Claude translation sent: its thinking, effort and limit. */
interface SentThinking { thinking: unknown; effort: unknown; limit: number | undefined }

/** Each Claude translation, with a model of each thinking form (a budget before 4.6, adaptive at an effort from 4.6 on). */
const CLAUDE: Array<{ name: string; model: string; adaptiveModel: string; sent: (chat: ChatRequest) => SentThinking }> = [
  {
    name: 'messages API', model: 'claude-sonnet-4-5', adaptiveModel: 'claude-opus-4-7',
    sent: (chat) => {
      const request = toMessagesRequest(chat, 'anthropic') as Json;
      return { thinking: request.thinking, effort: request.output_config?.effort, limit: request.max_tokens };
    },
  },
  {
    name: 'converse', model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', adaptiveModel: 'us.anthropic.claude-sonnet-4-6',
    sent: (chat) => {
      const request = toConverseRequest(chat, 'cloudc') as Json;
      return { thinking: request.additionalModelRequestFields?.thinking, effort: request.outputConfig?.effort, limit: request.inferenceConfig?.maxTokens };
    },
  },
];

it('reads which Claude models take adaptive thinking from their names', () => {
  const cases: Array<[string, boolean]> = [
    ['claude-3-7-sonnet-20250219', false], ['claude-sonnet-4-0', false], ['claude-opus-4-20250514', false], ['claude-opus-4-1', false],
    ['claude-sonnet-4-5', false], ['claude-haiku-4-5-20251001', false], ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', false], ['claude-instant-v1', false], ['my-model', false],
    ['claude-opus-4-6', true], ['anthropic.claude-opus-4-6-v1', true], ['claude-sonnet-4-6', true], ['claude-opus-4-7', true], ['claude-opus-4-8', true],
    ['claude-sonnet-5', true], ['claude-opus-5', true], ['claude-opus-5-5', true], ['claude-haiku-5-5', true], ['anthropic.claude-mythos-preview', true],
    ['anthropic.claude-fable-5', true], ['claude-4.6-opus', true], ['arn:aws:bedrock:us-east-1:1:inference-profile/us.anthropic.claude-opus-4-7', true],
  ];
  for (const [model, adaptive] of cases) expect(claudeTakesAdaptive(model), model).toBe(adaptive);
});

describe.each(CLAUDE)('$name: reasoning_effort as adaptive thinking for Claude 4.6 and later', ({ adaptiveModel: model, sent }) => {
  test.prop([chatRequestArb, effortArb, limitArb], { numRuns: 60 })(
    'adaptive thinking at Claude\'s level for the effort (minimal: low), the client\'s limit as sent; none: thinking disabled',
    (base, effort, limit) => {
      const chat: ChatRequest = { ...base, model, reasoning_effort: effort, max_tokens: limit };
      const sentNow = sent(chat);
      if (effort === 'none') {
        expect(sentNow).toEqual({ thinking: { type: 'disabled' }, effort: undefined, limit: sent({ ...base, model, max_tokens: limit }).limit });
        expect(asksThinking(chat)).toBe(false);
        return;
      }
      expect(sentNow.thinking).toEqual({ type: 'adaptive' });
      expect(sentNow.effort).toBe(effort === 'minimal' ? 'low' : effort);
      expect(sentNow.limit).toBe(limit ?? THINKING_BUDGETS[effort] + DEFAULT_ANSWER_TOKENS);
      expect(asksThinking(chat)).toBe(true);
    },
  );
});

describe.each(CLAUDE)('$name: reasoning_effort as a thinking budget before Claude 4.6', ({ model, sent }) => {
  test.prop([chatRequestArb, effortArb, limitArb], { numRuns: 80 })(
    'an enabled thinking with the effort\'s budget, under the answer\'s limit; none: no thinking; a limit too small: refused',
    (base, effort, limit) => {
      const chat: ChatRequest = { ...base, model, reasoning_effort: effort, max_tokens: limit };
      const error = refusal(() => sent(chat));
      if (effort === 'none') {
        expect(error).toBeNull();
        expect(sent(chat)).toEqual(sent({ ...base, model, max_tokens: limit }));
        expect(sent(chat).effort).toBeUndefined();
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
      expect(sent(chat).effort).toBeUndefined();
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
    'before Gemini 3: the effort\'s budget with the thoughts (none: 0), and nothing else changed',
    (base, effort, model) => {
      const request = translate({ ...base, model, reasoning_effort: effort });
      expect(request.generationConfig.thinkingConfig).toEqual(effort === 'none' ? { thinkingBudget: 0 } : { thinkingBudget: THINKING_BUDGETS[effort], includeThoughts: true });
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
      expect(translate({ ...base, model, reasoning_effort: effort }).generationConfig.thinkingConfig).toEqual({ thinkingLevel: effort, includeThoughts: true });
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
