// The semantic cache's embedding backoff: after a failure only one request at a time tries the
// embeddings route again, and not before a wait that doubles with each failure in a row (1 s to 30 s);
// a success ends it, and a call the client abandoned counts as neither.
import { fc, test } from '@fast-check/vitest';
import { expect, it } from 'vitest';
import { EmbeddingBackoff, type EmbeddingCall, FIRST_WAIT_MS, LONGEST_WAIT_MS } from '../../runtime/api/cache/embedding-backoff.ts';

it('skips after a failure, lets one request probe once the wait is over, and doubles the wait up to its longest', () => {
  let now = 0;
  const backoff = new EmbeddingBackoff(() => now);
  const first = backoff.tryCall()!;
  expect(backoff.tryCall()).not.toBeNull();
  backoff.failed(first);
  expect(backoff.tryCall()).toBeNull();
  for (let failures = 1; failures <= 8; failures++) {
    const wait = Math.min(FIRST_WAIT_MS * 2 ** (failures - 1), LONGEST_WAIT_MS);
    now += wait - 1;
    expect(backoff.tryCall(), `${wait - 1} ms after failure ${failures}`).toBeNull();
    now += 1;
    const probe = backoff.tryCall();
    expect(probe).toEqual({ probe: true });
    // The probe is in flight: everyone else skips.
    expect(backoff.tryCall()).toBeNull();
    backoff.failed(probe!);
  }
  now += LONGEST_WAIT_MS;
  backoff.succeeded(backoff.tryCall()!);
  expect([backoff.tryCall(), backoff.tryCall()]).toEqual([{ probe: false }, { probe: false }]);
});

it('lets another request probe when the probing one was abandoned by its client, and not when an older call ends', () => {
  let now = 0;
  const backoff = new EmbeddingBackoff(() => now);
  const older = backoff.tryCall()!;
  backoff.failed(backoff.tryCall()!);
  now += FIRST_WAIT_MS;
  const probe = backoff.tryCall()!;
  backoff.released(older);
  expect(backoff.tryCall()).toBeNull();
  backoff.released(probe);
  expect(backoff.tryCall()).toEqual({ probe: true });
});

type Step = { kind: 'call' } | { kind: 'end'; which: number; result: 'ok' | 'failed' | 'released' } | { kind: 'wait'; ms: number };
const steps = fc.array(
  fc.oneof(
    fc.constant<Step>({ kind: 'call' }),
    fc.record({ which: fc.nat(), result: fc.constantFrom<'ok' | 'failed' | 'released'>('ok', 'failed', 'released') }).map((end): Step => ({ kind: 'end', ...end })),
    fc.integer({ min: 0, max: 40_000 }).map((ms): Step => ({ kind: 'wait', ms })),
  ),
  { maxLength: 60 },
);

test.prop([steps], { numRuns: 300 })('while failing, at most one probe at a time, never before a full first wait after the last failure', (script) => {
  let now = 0;
  const backoff = new EmbeddingBackoff(() => now);
  const inFlight: EmbeddingCall[] = [];
  let failing = false;
  let lastFailureAt = -Infinity;
  for (const step of script) {
    if (step.kind === 'wait') now += step.ms;
    else if (step.kind === 'call') {
      const call = backoff.tryCall();
      if (!failing) expect(call).toEqual({ probe: false });
      if (call === null) continue;
      if (call.probe) {
        expect(inFlight.filter((c) => c.probe)).toEqual([]);
        expect(now - lastFailureAt).toBeGreaterThanOrEqual(FIRST_WAIT_MS);
      }
      inFlight.push(call);
    } else if (inFlight.length > 0) {
      const [call] = inFlight.splice(step.which % inFlight.length, 1);
      if (step.result === 'ok') {
        backoff.succeeded(call);
        failing = false;
      } else if (step.result === 'failed') {
        backoff.failed(call);
        failing = true;
        lastFailureAt = now;
      } else backoff.released(call);
    }
  }
});
