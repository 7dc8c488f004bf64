// The one ordered list of stages (ARCHITECTURE §4). Request phase, outermost first: log → rate limit
// → usage limit → cache → prompt → input guardrails and before-request hooks. Attempt phase, once
// per try of each target (inside retries and fallback): usage meter → output guardrails and
// after-request hooks. A stage that a plan does not need is not in its chain at all.
import { logStage } from './log/log-stage.ts';
import { promptStage } from './prompt/prompt-stage.ts';
import { attemptLimitStage, limitStage } from './limits/limit-stage.ts';
import { attemptMetricsStage } from './metrics/attempt-metrics-stage.ts';
import { attemptTraceStage } from './trace/attempt-trace-stage.ts';
import type { Stage } from './stage.ts';

export const STAGES: readonly Stage[] = [
  logStage,
  // Rate and usage limits in one stage: one counter round trip for every matching policy.
  limitStage,
  // cache: its issue adds it here.
  promptStage,
  // input guardrails and before-request hooks: their issue adds them here.
  // Attempt phase.
  attemptLimitStage,
  attemptMetricsStage,
  attemptTraceStage,
  // output guardrails and after-request hooks: their issue adds them here.
];
