// Upstream-attempt metrics, in the attempt phase: the time from sending each try to its response
// headers (or its failure), by provider and status class, and whether the try is a fallback (a target
// other than the one tried before it in the same request). Not in any chain when metrics are off.
import type { Stage, StageFn } from '../stage.ts';

const LAST_TARGET = 'metrics.lastTarget';

export const attemptMetricsStage: Stage = {
  name: 'attempt-metrics',
  phase: 'attempt',
  prepare(node, services) {
    const metrics = services.metrics;
    if (metrics === null) return null;
    const path = node.path;
    const fn: StageFn = (x, next) => {
      const state = x.state;
      const previous = state.get(LAST_TARGET);
      state.set(LAST_TARGET, path);
      const started = performance.now();
      return next(x).then((outcome) => {
        const status = outcome.response === null && outcome.error?.code === 'provider_unreachable' ? 0 : outcome.status;
        metrics.observeAttempt(outcome.provider, status, (performance.now() - started) / 1000, previous !== undefined && previous !== path);
        return outcome;
      });
    };
    return fn;
  },
};
