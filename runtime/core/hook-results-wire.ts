// hook_results as clients and the logs API see them (snake_case), written once for both.
import type { HookResults as HookResultsWire } from '../../generated/types.ts';
import type { HookResult, RequestRecord } from './request-record.ts';

export type { HookResultsWire };

export function hookResultsWire(results: NonNullable<RequestRecord['hookResults']>): HookResultsWire {
  return { before_request_hooks: results.beforeRequestHooks.map(hookWire), after_request_hooks: results.afterRequestHooks.map(hookWire) };
}

function hookWire(hook: HookResult): HookResultsWire['before_request_hooks'][number] {
  return {
    id: hook.id,
    type: hook.type,
    verdict: hook.verdict,
    deny: hook.deny,
    async: hook.async,
    execution_time_ms: hook.executionTimeMs,
    checks: hook.checks.map((check) => ({ id: check.id, verdict: check.verdict, explanation: check.explanation, error: check.error, execution_time_ms: check.executionTimeMs })),
  };
}
