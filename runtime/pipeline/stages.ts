// The one ordered list of stages (ARCHITECTURE §4). Request phase, outermost first: log → rate and
// usage limits → prompt → cache → input guardrails and before-request hooks. Attempt phase, once per
// try of each target (inside retries and fallback): target-level limits → cache of a target → usage
// meter → output guardrails and after-request hooks. A stage that a plan does not need is not in its
// chain at all. The prompt is rendered before the cache looks: the key is the body as the provider
// gets it (docs/decisions.md).
import { logStage } from './log/log-stage.ts';
import { unsupportedHooksStage } from './guardrails/unsupported-hooks-stage.ts';
import { promptStage } from './prompt/prompt-stage.ts';
import { attemptCacheStage, cacheStage } from './cache/cache-stage.ts';
import { attemptLimitStage, limitStage } from './limits/limit-stage.ts';
import { attemptMetricsStage } from './metrics/attempt-metrics-stage.ts';
import { attemptTraceStage } from './trace/attempt-trace-stage.ts';
import type { Stage } from './stage.ts';

export const STAGES: readonly Stage[] = [
  logStage,
  // Until hooks and guardrails run (issue 12), a route that has any is refused, not served unguarded.
  unsupportedHooksStage,
  // Rate and usage limits in one stage: one counter round trip for every matching policy.
  limitStage,
  promptStage,
  cacheStage,
  // input guardrails and before-request hooks: their issue adds them here.
  // Attempt phase.
  attemptLimitStage,
  attemptCacheStage,
  attemptMetricsStage,
  attemptTraceStage,
  // output guardrails and after-request hooks: their issue adds them here.
];
