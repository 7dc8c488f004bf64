// Timers that give way to cancellation: the retry wait and the per-attempt request timeout.
//
//   sleep(ms, signal?): Promise<void>
//     Resolves after `ms`; rejects with `signal.reason` as soon as `signal` aborts (at once if it
//     already has). Either way its timer and listener are gone when the promise settles.
//   attemptSignal(parent, timeoutMs): AttemptSignal
//     One signal per upstream attempt that aborts when the client goes (`parent`) or when
//     `timeoutMs` passes (null: no timeout). `timedOut()` tells the two apart, so the router can
//     turn a timeout into a 408 outcome. Call `dispose()` when the attempt settles.

/** setTimeout turns anything above 2^31-1 ms into 1 ms (with a warning); clamp instead. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

function timerMs(ms: number): number {
  if (!(ms > 0)) return 0;
  return Math.min(ms, MAX_TIMER_MS);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, timerMs(ms));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export interface AttemptSignal {
  /** Aborts on client disconnect or attempt timeout; pass it to the upstream request. */
  signal: AbortSignal;
  /** True when the abort came from the timeout, not from the parent. */
  timedOut(): boolean;
  /** Clears the timer and detaches from the parent; safe to call more than once. */
  dispose(): void;
}

const NEVER_TIMED_OUT = (): boolean => false;
export const NOTHING_TO_DISPOSE = (): void => {};

export function attemptSignal(parent: AbortSignal | undefined, timeoutMs: number | null): AttemptSignal {
  // Without a timeout the attempt aborts exactly when the parent does: reuse its signal.
  if (parent !== undefined && (timeoutMs === null || !Number.isFinite(timeoutMs))) {
    return { signal: parent, timedOut: NEVER_TIMED_OUT, dispose: NOTHING_TO_DISPOSE };
  }
  const controller = new AbortController();
  let didTimeOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const dispose = (): void => {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    parent?.removeEventListener('abort', onParentAbort);
  };
  // The parent may abort while we wait on the network; forward its reason so callers can tell
  // "client went away" from a timeout by reason as well as by timedOut().
  function onParentAbort(): void {
    dispose();
    controller.abort(parent!.reason);
  }

  if (parent?.aborted) {
    controller.abort(parent.reason);
  } else {
    parent?.addEventListener('abort', onParentAbort, { once: true });
    if (timeoutMs !== null && Number.isFinite(timeoutMs)) {
      timer = setTimeout(() => {
        timer = undefined;
        didTimeOut = true;
        parent?.removeEventListener('abort', onParentAbort);
        controller.abort(new DOMException(`The attempt timed out after ${timeoutMs} ms.`, 'TimeoutError'));
      }, timerMs(timeoutMs));
    }
  }

  return { signal: controller.signal, timedOut: () => didTimeOut, dispose };
}
