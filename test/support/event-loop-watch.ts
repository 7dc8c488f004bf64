// How long the event loop went without running a timer, for tests of work that must let it in:
// a 2 ms timer notes the stretches between its runs, and `stop` counts the stretch since the last
// one too (work done in one go never lets the timer run at all).

export interface EventLoopWatch {
  /** Stops watching; the longest stretch in ms. */
  stop(): number;
}

export function watchEventLoop(): EventLoopWatch {
  let longest = 0;
  let last = performance.now();
  const ticker = setInterval(() => {
    const at = performance.now();
    longest = Math.max(longest, at - last);
    last = at;
  }, 2);
  return {
    stop() {
      clearInterval(ticker);
      return Math.max(longest, performance.now() - last);
    },
  };
}
