import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { MAX_TIMER_MS, attemptSignal, sleep } from '../../runtime/router/abort.ts';

describe('sleep', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  test('resolves after the delay and leaves no timer or listener behind', async () => {
    const controller = new AbortController();
    let done = false;
    const pending = sleep(1000, controller.signal).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await pending;
    expect(done).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  test('rejects with the abort reason as soon as the signal aborts, clearing its timer', async () => {
    const controller = new AbortController();
    const pending = sleep(60_000, controller.signal);
    const reason = new Error('client closed');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  test('an already aborted signal rejects without starting a timer', async () => {
    const reason = new Error('gone');
    await expect(sleep(10, AbortSignal.abort(reason))).rejects.toBe(reason);
    expect(vi.getTimerCount()).toBe(0);
  });

  test('non-positive and NaN delays resolve on the next timer tick; huge delays are clamped, not shortened', async () => {
    for (const ms of [0, -5, Number.NaN]) {
      const pending = sleep(ms);
      await vi.advanceTimersByTimeAsync(0);
      await pending;
    }
    let done = false;
    void sleep(Number.MAX_SAFE_INTEGER).then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(10);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(MAX_TIMER_MS);
    expect(done).toBe(true);
  });
});

describe('attemptSignal', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  test('times out after timeoutMs with a TimeoutError and says so', async () => {
    const parent = new AbortController();
    const attempt = attemptSignal(parent.signal, 500);
    await vi.advanceTimersByTimeAsync(499);
    expect(attempt.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(attempt.signal.aborted).toBe(true);
    expect(attempt.timedOut()).toBe(true);
    expect((attempt.signal.reason as DOMException).name).toBe('TimeoutError');
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
    attempt.dispose();
  });

  test('follows the parent with its reason, not as a timeout, and clears the timer', () => {
    const parent = new AbortController();
    const attempt = attemptSignal(parent.signal, 500);
    const reason = new Error('client closed');
    parent.abort(reason);
    expect(attempt.signal.aborted).toBe(true);
    expect(attempt.signal.reason).toBe(reason);
    expect(attempt.timedOut()).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  test('an already aborted parent aborts the attempt at once without a timer', () => {
    const reason = new Error('gone');
    const attempt = attemptSignal(AbortSignal.abort(reason), 500);
    expect(attempt.signal.reason).toBe(reason);
    expect(attempt.timedOut()).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  test('dispose clears the timer and detaches from the parent, and may be called twice', async () => {
    const parent = new AbortController();
    const attempt = attemptSignal(parent.signal, 500);
    expect(vi.getTimerCount()).toBe(1);
    attempt.dispose();
    attempt.dispose();
    expect(vi.getTimerCount()).toBe(0);
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
    parent.abort();
    await vi.advanceTimersByTimeAsync(1000);
    expect(attempt.signal.aborted).toBe(false);
    expect(attempt.timedOut()).toBe(false);
  });

  test('a null timeout never times out; no parent is fine', async () => {
    const attempt = attemptSignal(undefined, null);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(MAX_TIMER_MS);
    expect(attempt.signal.aborted).toBe(false);
    attempt.dispose();
  });
});

describe('with real timers', () => {
  test('an aborted sleep settles promptly', async () => {
    const controller = new AbortController();
    const started = performance.now();
    const pending = sleep(30_000, controller.signal);
    setTimeout(() => controller.abort(), 10);
    await expect(pending).rejects.toBeInstanceOf(DOMException);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  test('a real attempt timeout fires', async () => {
    const attempt = attemptSignal(undefined, 20);
    await new Promise<void>((resolve) => attempt.signal.addEventListener('abort', () => resolve(), { once: true }));
    expect(attempt.timedOut()).toBe(true);
    attempt.dispose();
  });
});
