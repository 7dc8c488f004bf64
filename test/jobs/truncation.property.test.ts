// Fitting a conversation into a context window (SPEC §7 rule 1): `disabled` sends everything or
// refuses; `auto` keeps the first and the latest item, drops whole units from the middle, keeps the
// order and never splits a tool call from its results; both refuse what cannot fit at all.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../runtime/api/responses/conversation.ts';
import { estimateMessageTokens as messageTokens } from '../../runtime/core/token-estimate.ts';
import { fitConversation, MAX_STORED_CONVERSATION_BYTES, storedConversation, units } from '../../runtime/api/responses/truncation.ts';
import { GatewayError } from '../../runtime/core/errors.ts';

let serial = 0;
const text = fc.string({ maxLength: 120 }).map((s) => `${serial++}|${s}`);
const plain = fc.record({ role: fc.constantFrom('user', 'assistant'), content: text }) as fc.Arbitrary<ChatMessage>;
const toolTurn = fc.tuple(text, fc.integer({ min: 1, max: 3 })).map(([t, n]) => {
  const calls = Array.from({ length: n }, (_, i) => ({ id: `call_${t}_${i}`, type: 'function', function: { name: 'f', arguments: '{}' } }));
  return [{ role: 'assistant', content: null, tool_calls: calls }, ...calls.map((c) => ({ role: 'tool', tool_call_id: c.id, content: `result ${t}` }))] as ChatMessage[];
});
const conversation = fc.array(fc.oneof(plain.map((m) => [m]), toolTurn), { minLength: 1, maxLength: 12 }).map((turns) => turns.flat());

const total = (messages: ChatMessage[]) => messages.reduce((sum, m) => sum + messageTokens(m), 0);

describe('fitConversation', () => {
  test.prop([conversation, fc.integer({ min: 1, max: 2000 }), fc.integer({ min: 0, max: 200 })])('auto: fits, keeps first and latest, drops whole middle units in order', (messages, window, reserved) => {
    let kept: ChatMessage[];
    try {
      kept = fitConversation(messages, { contextWindow: window, reserved, truncation: 'auto' });
    } catch (error) {
      expect(error).toBeInstanceOf(GatewayError);
      expect((error as GatewayError).code).toBe('context_window_exceeded');
      const groups = units(messages);
      const floor = groups.length <= 2 ? total(messages) : total([...groups[0], ...groups[groups.length - 1]]);
      expect(floor + reserved).toBeGreaterThan(window);
      return;
    }
    expect(total(kept) + reserved).toBeLessThanOrEqual(window);
    const keptUnits = units(kept);
    const all = units(messages);
    expect(keptUnits[0]).toEqual(all[0]);
    expect(keptUnits[keptUnits.length - 1]).toEqual(all[all.length - 1]);
    // A subsequence of whole units.
    let at = 0;
    for (const unit of keptUnits) {
      while (at < all.length && JSON.stringify(all[at]) !== JSON.stringify(unit)) at++;
      expect(at).toBeLessThan(all.length);
      at++;
    }
    if (total(messages) + reserved <= window) expect(kept).toEqual(messages);
  });

  test.prop([conversation, fc.integer({ min: 1, max: 2000 }), fc.integer({ min: 0, max: 200 })])('disabled: all or a 400, never a cut', (messages, window, reserved) => {
    const fits = total(messages) + reserved <= window;
    if (fits) expect(fitConversation(messages, { contextWindow: window, reserved, truncation: 'disabled' })).toEqual(messages);
    else expect(() => fitConversation(messages, { contextWindow: window, reserved, truncation: 'disabled' })).toThrow(/context window/);
  });

  test.prop([conversation])('a model outside the catalog is not checked', (messages) => {
    expect(fitConversation(messages, { contextWindow: null, reserved: 10 ** 9, truncation: 'disabled' })).toEqual(messages);
  });

  it('drops from the middle first', () => {
    const m = (n: number): ChatMessage => ({ role: n % 2 ? 'user' : 'assistant', content: `${n} ${'x'.repeat(36)}` });
    const messages = [1, 2, 3, 4, 5, 6, 7].map(m);
    const each = messageTokens(messages[0]);
    const kept = fitConversation(messages, { contextWindow: each * 4, reserved: 0, truncation: 'auto' });
    expect(kept.map((x) => Number(String(x.content).split(' ')[0]))).toEqual([1, 2, 6, 7]);
  });
});

describe('storedConversation', () => {
  const bytes = (messages: ChatMessage[]) => units(messages).reduce((sum, unit) => sum + Buffer.byteLength(JSON.stringify(unit)), 0);

  test.prop([conversation, fc.integer({ min: 1, max: 4000 })])('keeps all that fits the bound, else the first and latest units and as many whole middle ones, in order, within it', (messages, max) => {
    const kept = storedConversation(messages, max);
    if (bytes(messages) <= max) {
      expect(kept).toEqual(messages);
      return;
    }
    const all = units(messages);
    const keptUnits = units(kept);
    expect(keptUnits[0]).toEqual(all[0]);
    expect(keptUnits[keptUnits.length - 1]).toEqual(all[all.length - 1]);
    if (keptUnits.length > 2) expect(bytes(kept)).toBeLessThanOrEqual(max);
    let at = 0;
    for (const unit of keptUnits) {
      while (at < all.length && JSON.stringify(all[at]) !== JSON.stringify(unit)) at++;
      expect(at).toBeLessThan(all.length);
      at++;
    }
  });

  it('bounds a conversation at 8 MiB, more than any model reads', () => {
    const turn = (n: number): ChatMessage => ({ role: n % 2 ? 'user' : 'assistant', content: `${n} ${'x'.repeat(1024 * 1024)}` });
    const messages = Array.from({ length: 12 }, (_, n) => turn(n));
    const kept = storedConversation(messages);
    expect(bytes(kept)).toBeLessThanOrEqual(MAX_STORED_CONVERSATION_BYTES);
    expect(kept.map((m) => Number(String(m.content).split(' ')[0]))).toEqual([0, 1, 2, 3, 9, 10, 11]);
  });
});
