// What stages may use, handed to `Stage.prepare` when a router is built. Each stage's feature adds
// the service it needs here (cache backend, counters, guardrail catalog, …); a stage keeps what it
// uses in its closure, so the request path never looks a service up.
import type { GatewayLogger } from '../core/log.ts';
import type { PriceFn } from './log/usage-tap.ts';
import type { PromptHolder } from './prompt/prompt-source.ts';
import type { GatewayMetrics } from '../telemetry/metrics.ts';
import type { Limits } from './limits/limits.ts';
import type { CacheService } from './cache/cache-service.ts';
import type { CheckTools } from './guardrails/check.ts';
import type { TurnMemory } from './turn-memory/turn-memory.ts';
import type { PlanLeaf } from '../core/plan.ts';
import type { Exchange } from './exchange.ts';

export interface Services {
  logger: GatewayLogger;
  /** Wall clock in Unix milliseconds; tests pass a fake one. */
  now(): number;
  /** USD for a model's usage, null when the model's price is unknown. */
  costOf: PriceFn;
  /** Whether a model's speech answered as audio is priced by its length (the catalog's audio_output_per_minute): its answer is then read for it. */
  pricesSpokenMinutes(model: string | null): boolean;
  /**
   * Whether finished request records go anywhere (the request log, metrics). When nothing consumes
   * them, the log stage is not in any chain and answers are not metered.
   */
  recording: boolean;
  /** Records keep request and response bodies up to this many bytes each (redacted); 0: no bodies. */
  logBodyBytes: number;
  /** Prometheus metrics; null when they are off (GATEWAY_METRICS=off). */
  metrics: GatewayMetrics | null;
  /** Whether OpenTelemetry tracing is on (an attempt span per upstream try). */
  tracing: boolean;
  /** Stored prompt templates, for configs with a prompt_id (installed once the store is open). */
  prompts: PromptHolder;
  /** Rate and usage limits; null where no policy can apply (a gateway without a store, some tests). */
  limits: Limits | null;
  /** The response cache; null where none is installed (a gateway without a control plane, some tests): cache stages are then left out. */
  cache: CacheService | null;
  /** What guardrail checks use: the custom-host policy for the URLs they call, DNS, the clock. */
  checkTools: CheckTools;
  /**
   * What the gateway keeps between a conversation's turns for the provider's sake (turn-memory/): the
   * originals of signed reasoning an output check rewrote, the signed thinking of translated answers;
   * in Redis with REDIS_URL. Null: nothing kept.
   */
  turns: TurnMemory | null;
  /**
   * What a target is for a request (runtime/inference/transport.ts): the provider and virtual key it
   * resolves to through a stored integration. Null where there are none (some tests): a target's own
   * provider and key, else the request's headers, are then all there is.
   */
  resolveTarget: ((x: Exchange, leaf: PlanLeaf) => ResolvedTarget) | null;
}

/** A target as resolved for one request: its provider's canonical name ('' when none) and the virtual key it uses. */
export interface ResolvedTarget {
  provider: string;
  virtualKey: string | null;
}
