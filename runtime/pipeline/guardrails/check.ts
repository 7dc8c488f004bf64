// What a guardrail check is (ARCHITECTURE §5 "Hooks and guardrails"): prepared once when a router is
// built from parameters the compiler already checked against schema/checks/<name>-check.json, then
// run per request on what the hook phase reads. Most checks are synchronous and cost microseconds;
// the ones that call out (webhook, jwt key sets, log, validUrls with DNS) return a promise.
import type { Metadata } from '../../core/gateway-headers.ts';
import type { EndpointKind } from '../../providers/types.ts';
import type { HostPolicy } from '../../providers/host-policy.ts';
import type { CheckBudget } from './check-budget.ts';

/** `before`: before-request hooks and input guardrails, on the request; `after`: after-request hooks and output guardrails, on the answer. */
export type HookPhase = 'before' | 'after';

export interface CheckInput {
  readonly phase: HookPhase;
  /** The text judged: the last user message, the prompt or the embedding input (before); the first choice's content (after). */
  readonly text: string;
  readonly endpoint: EndpointKind;
  /** The request's `model`, when it names one. */
  readonly model: string | null;
  readonly metadata: Metadata;
  /** The client headers the route's checks read (jwt's headerKey), lower-cased. */
  readonly headers: Readonly<Record<string, string>>;
  /** The request body as the provider gets it (parsed). */
  readonly request: unknown;
  /** The answer body (parsed JSON, or the assembled stream); null before the request. */
  readonly response: unknown;
  readonly signal: AbortSignal;
  /** The request's check budget: a check whose work runs on another thread (jsonSchema) charges that time to it. */
  readonly budget: CheckBudget;
}

export interface CheckVerdict {
  verdict: boolean;
  /** Why, in words: shown in hook_results. */
  explanation: string;
  /** A webhook's `transformedData`: the body that replaces the request (before) or the answer (after). */
  transformedBody?: Record<string, unknown>;
}

export type CheckFn = (input: CheckInput) => CheckVerdict | Promise<CheckVerdict>;

/** A transformer rewrites every text of the request or answer; `found` counts what it replaced. */
export type TextTransform = (text: string) => { text: string; found: number };

/** What checks may use when they are prepared. */
export interface CheckTools {
  /** The custom-host safety policy: every URL a check calls or resolves goes through it. */
  hostPolicy: HostPolicy;
  /** Every address of a host name (validUrls with onlyDNS); tests pass their own. */
  resolve(hostname: string): Promise<string[]>;
  now(): number;
}

export type CheckDefinition =
  | {
      kind: 'verdict';
      /**
       * Whether the check judges the text (not the request around it): such a check cannot judge a
       * prompt or input of token ids, and fails on one instead of being run (hook-text.ts).
       */
      readsText: boolean;
      prepare(parameters: Record<string, unknown>, tools: CheckTools): CheckFn;
      /** Whether a check that cannot run (it threw) fails when its `failOnError` parameter is absent; default false (it passes, with the error reported). */
      failOnErrorByDefault?: boolean;
    }
  | { kind: 'transform'; prepare(parameters: Record<string, unknown>): { transform: TextTransform; failOnDetection: boolean } };

/** Applies `not`: the check passes when its condition does not hold. */
export function verdictOf(holds: boolean, parameters: Record<string, unknown>, explanation: string): CheckVerdict {
  const not = parameters.not === true;
  return { verdict: not ? !holds : holds, explanation: not ? `${explanation} (inverted by not)` : explanation };
}

/** `any`, `all` or `none` of `wanted` are `present`. */
export function operatorHolds(operator: unknown, wanted: readonly string[], present: (item: string) => boolean): { holds: boolean; found: string[] } {
  const found = wanted.filter(present);
  const op = operator === 'all' || operator === 'none' ? operator : 'any';
  const holds = op === 'all' ? found.length === wanted.length : op === 'none' ? found.length === 0 : found.length > 0;
  return { holds, found };
}
