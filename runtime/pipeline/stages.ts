// The one ordered list of stages (ARCHITECTURE §4). Request phase, outermost first: log → rate and
// usage limits → prompt → input guardrails and before-request hooks → cache. Attempt phase, once per
// try of each target (inside retries and fallback): target-level limits → a target's own before hooks,
// and output guardrails and after-request hooks → cache of a target → usage meter. A stage that a plan
// does not need is not in its chain at all. The prompt is rendered before the cache looks, and input
// guardrails run before it too: the key is the body as the provider gets it (after redaction), and a
// cache hit never skips a deny rule (docs/decisions.md).
import { logStage } from './log/log-stage.ts';
import { attemptHookStage, hookStage } from './guardrails/hook-stage.ts';
import { promptStage } from './prompt/prompt-stage.ts';
import { attemptCacheStage, cacheStage } from './cache/cache-stage.ts';
import { attemptLimitStage, limitStage } from './limits/limit-stage.ts';
import { attemptMetricsStage } from './metrics/attempt-metrics-stage.ts';
import { attemptTraceStage } from './trace/attempt-trace-stage.ts';
import type { Stage } from './stage.ts';

export const STAGES: readonly Stage[] = [
  logStage,
  // Rate and usage limits in one stage: one counter round trip for every matching policy.
  limitStage,
  promptStage,
  hookStage,
  cacheStage,
  // Attempt phase.
  attemptLimitStage,
  attemptHookStage,
  attemptCacheStage,
  attemptMetricsStage,
  attemptTraceStage,
];
