// default.jsonSchema validates on a thread of its own with a time limit: a schema whose work grows
// exponentially with the JSON (oneOf alternatives recursing through $ref) or quadratically
// (uniqueItems over objects) is stopped at the limit, the serving thread never waits on it, the
// check fails (a deny rule cannot be passed by JSON made slow to judge), and validations queued
// behind it are answered by a new thread. Requests share the thread in turns, each charged for its
// validations' time.
import { fc, test as fcTest } from '@fast-check/vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../runtime/core/canonical-json.ts';
import { JsonSchemaThread } from '../../runtime/pipeline/guardrails/checks/json-schema-thread.ts';
import { BudgetSpent, CheckBudget } from '../../runtime/pipeline/guardrails/check-budget.ts';
import { watchEventLoop } from '../support/event-loop-watch.ts';
import { input, verdictCheck } from './check-input.ts';

/** Each level tries both alternatives, and the second fails only after recursing: 2^depth work. */
const EXPONENTIAL = { $defs: { n: { oneOf: [{ properties: { a: { $ref: '#/$defs/n' } } }, { allOf: [{ properties: { a: { $ref: '#/$defs/n' } } }, { required: ['b'] }] }] } }, $ref: '#/$defs/n' };
const nested = (depth: number): unknown => {
  let value: unknown = {};
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
};
const ANSWER = { type: 'object', required: ['answer'] };

describe('the jsonSchema validation thread', () => {
  const thread = new JsonSchemaThread(500);
  afterAll(() => thread.close());

  it('stops a validation at its limit while the serving thread keeps running, and answers the ones queued behind it', async () => {
    expect(await thread.judge(canonicalJson(ANSWER), { answer: 1 })).toEqual({ holds: true, problem: null });
    const watch = watchEventLoop();
    const started = performance.now();
    const [before, slow, after, later] = await Promise.allSettled([
      thread.judge(canonicalJson(ANSWER), { answer: 'first' }),
      thread.judge(canonicalJson(EXPONENTIAL), nested(40)),
      thread.judge(canonicalJson(ANSWER), { other: 1 }),
      thread.judge(canonicalJson(EXPONENTIAL), nested(3)),
    ]);
    const longest = watch.stop();
    expect(before).toEqual({ status: 'fulfilled', value: { holds: true, problem: null } });
    expect(slow).toMatchObject({ status: 'rejected', reason: { message: 'validating took longer than 500 ms, the limit of one validation, and was stopped' } });
    expect(after).toEqual({ status: 'fulfilled', value: { holds: false, problem: "/ must have required property 'answer'" } });
    expect(later).toEqual({ status: 'fulfilled', value: { holds: true, problem: null } });
    // 2^40 steps would take days; the limit and a new thread's start are what it took.
    expect(performance.now() - started).toBeLessThan(5000);
    // The serving thread never waited for the validation, which would have run for days.
    expect(longest).toBeLessThan(1000);
  });

  it('keeps an answer that came in time while the serving thread was busy past the limit (timers run before messages are read)', async () => {
    await thread.judge(canonicalJson(ANSWER), { answer: 0 });
    const judged = thread.judge(canonicalJson(ANSWER), { answer: 'in time' });
    // Busy in the event loop's check phase (setImmediate): the next turn runs the limit's timer before
    // it reads the answer's message.
    await new Promise<void>((resolve) => setImmediate(() => {
      const until = performance.now() + 700;
      while (performance.now() < until) {
        // The serving thread busy with something else; the validation thread answers meanwhile.
      }
      resolve();
    }));
    expect(await judged).toEqual({ holds: true, problem: null });
  });

  it('stops uniqueItems over a long array of objects (quadratic in the array) the same way', async () => {
    const items = Array.from({ length: 30_000 }, (_, i) => ({ a: [i] }));
    await expect(thread.judge(canonicalJson({ type: 'array', uniqueItems: true }), items)).rejects.toThrow('longer than 500 ms');
    expect(await thread.judge(canonicalJson({ type: 'array', uniqueItems: true }), items.slice(0, 100))).toEqual({ holds: true, problem: null });
  });
});

describe('the validation thread and the requests sharing it', () => {
  const thread = new JsonSchemaThread(500);
  afterAll(() => thread.close());
  const owner = (budget: CheckBudget, signal = new AbortController().signal) => ({ budget, signal });

  it('charges a request\'s validations to its check budget, stops one at what is left of it, and runs none of its queued ones after', async () => {
    await thread.judge(canonicalJson(ANSWER), { answer: 0 });
    const greedy = owner(new CheckBudget(300));
    const other = owner(new CheckBudget());
    const started = performance.now();
    const settled = Promise.allSettled([
      thread.judge(canonicalJson(EXPONENTIAL), nested(40), greedy),
      thread.judge(canonicalJson(EXPONENTIAL), nested(41), greedy),
      thread.judge(canonicalJson(EXPONENTIAL), nested(42), greedy),
      thread.judge(canonicalJson(ANSWER), { answer: 'waiting behind them' }, other),
    ]);
    const [first, second, third, fair] = await settled;
    const elapsed = performance.now() - started;
    for (const result of [first, second, third]) {
      expect(result.status).toBe('rejected');
      expect((result as PromiseRejectedResult).reason).toBeInstanceOf(BudgetSpent);
      expect((result as PromiseRejectedResult).reason.message).toMatch(/^not run: this request's checks had already held the gateway for \d+ ms/);
    }
    expect(fair).toEqual({ status: 'fulfilled', value: { holds: true, problem: null } });
    expect(greedy.budget.open).toBe(false);
    expect(greedy.budget.spentMs).toBeGreaterThanOrEqual(290);
    // One validation stopped at the budget (300 ms) and a new thread: not three at the thread's limit (1.5 s).
    expect(elapsed).toBeLessThan(1400);
    expect(other.budget.spentMs).toBeLessThan(300);
  });

  it('takes requests in turn: a request\'s queued validations wait behind the next request\'s, not ahead of them', async () => {
    await thread.judge(canonicalJson(ANSWER), { answer: 0 });
    const greedy = owner(new CheckBudget());
    const order: string[] = [];
    const judged = (name: string, value: unknown, by: ReturnType<typeof owner>) => thread.judge(canonicalJson(EXPONENTIAL), value, by).then(() => void order.push(name));
    // 2^18 steps each: a few milliseconds, well within the limit.
    const greedyOnes = [0, 1, 2, 3].map((i) => judged(`greedy ${i}`, nested(18), greedy));
    const other = judged('other', nested(1), owner(new CheckBudget()));
    await Promise.all([...greedyOnes, other]);
    // The other request's one validation ran second, not fifth.
    expect(order.indexOf('other')).toBe(1);
    expect(order.filter((name) => name.startsWith('greedy'))).toEqual(['greedy 0', 'greedy 1', 'greedy 2', 'greedy 3']);
  });

  it('charges what a validation took, and runs none whose request ended before its turn', async () => {
    const budget = new CheckBudget();
    expect(await thread.judge(canonicalJson(ANSWER), { answer: 1 }, owner(budget))).toEqual({ holds: true, problem: null });
    expect(budget.spentMs).toBeGreaterThan(0);
    // One request's validations are sent one at a time: the second waits for the first.
    const ended = new AbortController();
    const request = new CheckBudget();
    const running = thread.judge(canonicalJson(EXPONENTIAL), nested(20), owner(request, ended.signal));
    const queued = thread.judge(canonicalJson(EXPONENTIAL), nested(40), owner(request, ended.signal));
    ended.abort();
    await running;
    const started = performance.now();
    await expect(queued).rejects.toThrow('not run: the request ended first');
    expect(performance.now() - started).toBeLessThan(100);
  });
});

describe('default.jsonSchema', () => {
  it('fails on a validation stopped at the limit by default, and the check says why', async () => {
    const check = verdictCheck('default.jsonSchema', { schema: EXPONENTIAL });
    await expect(check(input(JSON.stringify(nested(40))))).rejects.toThrow(/validating took longer than \d+ ms/);
    expect((await check(input(JSON.stringify(nested(4))))).verdict).toBe(true);
    expect((await verdictCheck('default.jsonSchema', { schema: ANSWER })(input('{"answer": 42}'))).verdict).toBe(true);
  });
});

describe('the validation thread\'s turns', () => {
  const thread = new JsonSchemaThread(2000);
  afterAll(() => thread.close());

  fcTest.prop([fc.array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.boolean()), { minLength: 1, maxLength: 80 })], { numRuns: 30, interruptAfterTimeLimit: 8000 })(
    'answers every validation once, each request\'s in the order it asked, whatever the mix of requests',
    async (asks) => {
      const owners = Array.from({ length: 6 }, () => ({ budget: new CheckBudget(), signal: new AbortController().signal }));
      const answered: Array<[number, number]> = [];
      const all = asks.map(([who, fits], i) =>
        thread.judge(canonicalJson(ANSWER), fits ? { answer: i } : { other: i }, who === 5 ? null : owners[who]!).then((judged) => {
          expect(judged.holds).toBe(fits);
          answered.push([who, i]);
        }),
      );
      await Promise.all(all);
      expect(answered).toHaveLength(asks.length);
      for (let who = 0; who < 5; who++) {
        const asked = asks.flatMap(([owner], i) => (owner === who ? [i] : []));
        expect(answered.filter(([owner]) => owner === who).map(([, i]) => i)).toEqual(asked);
      }
    },
  );
});
