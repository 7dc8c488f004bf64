// The guardrails' two statuses outside HTTP's registry (ARCHITECTURE §5). node:http gives a status it
// does not know the reason phrase "unknown"; clients and proxies that show the status line (curl -i,
// an SDK's error text, an access log) get a phrase that says what happened instead.
import { GATEWAY_ERRORS } from '../../compiler/config/gateway-errors.ts';

/** Status of an answer that went through although a hook failed. */
export const HOOK_FAILED_STATUS = 246;

const REASON_PHRASES: ReadonlyMap<number, string> = new Map([
  [HOOK_FAILED_STATUS, 'Hooks Failed'],
  [GATEWAY_ERRORS.denied_by_guardrail.status, 'Denied By Guardrail'],
]);

/** The reason phrase of a gateway-specific status, or undefined for every other (node:http's own). */
export function gatewayReasonPhrase(status: number): string | undefined {
  return REASON_PHRASES.get(status);
}
