// One shape for the four ways a config names hooks (ARCHITECTURE §5): before_request_hooks and
// after_request_hooks list hooks with `checks`; input_guardrails and output_guardrails list guardrail
// objects whose non-reserved keys are checks. Deny rules, as the config schema allows them:
//  - before_request_hooks: on_fail.deny denies when the hook fails, on_success.deny when it passes;
//  - after_request_hooks: never deny (a failure answers 246); they may be async;
//  - input_guardrails: `deny` denies on failure; they may be async;
//  - output_guardrails: `deny` or on_fail.deny deny on failure, on_success.deny when they pass.
// The compiler has checked every check id and its parameters, refused an async guardrail that denies,
// and resolved guardrails named by string into objects.
import type { PlanNodeBase } from '../../core/plan.ts';
import { GUARDRAIL_RESERVED_KEYS } from '../../../compiler/config/hook-checks.ts';
import type { HookPhase } from './check.ts';

export interface Feedback {
  value?: number;
  weight?: number;
  metadata?: Record<string, unknown>;
}

export interface HookSpec {
  id: string;
  /** A hook's `type`: a label, shown with its results. */
  type: string | null;
  phase: HookPhase;
  checks: Array<{ id: string; parameters: Record<string, unknown> }>;
  denyOnFail: boolean;
  denyOnSuccess: boolean;
  async: boolean;
  onFail: Feedback | null;
  onSuccess: Feedback | null;
}

type Raw = Record<string, unknown>;

/** The hooks of one phase of a node, in config order: hooks first, then guardrails. */
export function hookSpecs(node: PlanNodeBase, phase: HookPhase): HookSpec[] {
  const hooks = phase === 'before' ? node.beforeRequestHooks : node.afterRequestHooks;
  const guardrails = phase === 'before' ? node.inputGuardrails : node.outputGuardrails;
  const guardrailField = phase === 'before' ? 'input_guardrails' : 'output_guardrails';
  const specs: HookSpec[] = [];
  hooks.forEach((raw) => specs.push(fromHook(raw as Raw, phase)));
  // Guardrails named by string were resolved into objects when the config compiled.
  guardrails.forEach((raw, i) => specs.push(fromGuardrail(raw as Raw, phase, `${guardrailField}[${i}]`)));
  return specs;
}

function fromHook(raw: Raw, phase: HookPhase): HookSpec {
  const onFail = (raw.on_fail as Raw | undefined) ?? {};
  const onSuccess = (raw.on_success as Raw | undefined) ?? {};
  const checks = Array.isArray(raw.checks) ? (raw.checks as Raw[]).map((c) => ({ id: c.id as string, parameters: (c.parameters as Raw | undefined) ?? {} })) : [];
  return {
    id: raw.id as string,
    type: typeof raw.type === 'string' ? raw.type : null,
    phase,
    checks,
    denyOnFail: onFail.deny === true,
    denyOnSuccess: onSuccess.deny === true,
    async: raw.async === true,
    onFail: feedbackOf(onFail),
    onSuccess: feedbackOf(onSuccess),
  };
}

function fromGuardrail(raw: Raw, phase: HookPhase, fallbackId: string): HookSpec {
  const onFail = (raw.on_fail as Raw | undefined) ?? {};
  const onSuccess = (raw.on_success as Raw | undefined) ?? {};
  // A named guardrail arrives resolved with its checks as a list (compiler/config/guardrail-lookup.ts).
  const checks = Array.isArray(raw.checks)
    ? (raw.checks as Raw[]).map((c) => ({ id: c.id as string, parameters: (c.parameters as Raw | undefined) ?? {} }))
    : Object.entries(raw).filter(([key]) => !GUARDRAIL_RESERVED_KEYS.has(key)).map(([id, parameters]) => ({ id, parameters: parameters as Raw }));
  return {
    id: typeof raw.id === 'string' ? raw.id : fallbackId,
    type: null,
    phase,
    checks,
    denyOnFail: raw.deny === true || onFail.deny === true,
    denyOnSuccess: onSuccess.deny === true,
    async: raw.async === true,
    onFail: feedbackOf(onFail),
    onSuccess: feedbackOf(onSuccess),
  };
}

function feedbackOf(outcome: Raw): Feedback | null {
  const feedback = outcome.feedback;
  return typeof feedback === 'object' && feedback !== null ? (feedback as Feedback) : null;
}

