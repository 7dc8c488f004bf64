// Hooks and guardrails are checked when a config compiles (compiler/config/hook-checks.ts), but this
// gateway does not run them yet (issue 12). A guardrail that does not guard is worse than none: a
// route that has any is refused, on every request, with 400 `hooks_not_supported`, rather than served
// unguarded. This stage goes when the hook stages come.
import { GatewayError } from '../../core/errors.ts';
import { CONFIG_HEADER } from '../../core/gateway-headers.ts';
import type { PlanNode } from '../../core/plan.ts';
import { errorOutcome } from '../../router/outcome.ts';
import type { Stage, StageFn } from '../stage.ts';

const FIELDS = [
  ['beforeRequestHooks', 'before_request_hooks'],
  ['afterRequestHooks', 'after_request_hooks'],
  ['inputGuardrails', 'input_guardrails'],
  ['outputGuardrails', 'output_guardrails'],
] as const;

export const unsupportedHooksStage: Stage = {
  name: 'unsupported-hooks',
  phase: 'request',
  prepare(node) {
    const found = firstHooks(node);
    if (found === null) return null;
    const refusal = new GatewayError('hooks_not_supported', `The config has ${found.field} (at ${found.path}); this gateway checks hooks and guardrails when a config compiles but does not run them yet, so it refuses the route rather than serve it unguarded. Remove them to route.`, CONFIG_HEADER);
    const fn: StageFn = () => Promise.resolve(errorOutcome(refusal, '', ''));
    return fn;
  },
};

function firstHooks(node: PlanNode): { field: string; path: string } | null {
  for (const [field, name] of FIELDS) if (node[field].length > 0) return { field: name, path: node.path };
  if (node.kind === 'strategy') {
    for (const child of node.targets) {
      const found = firstHooks(child);
      if (found !== null) return found;
    }
  }
  return null;
}
