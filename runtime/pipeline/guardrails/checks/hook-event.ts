// The document the checks that call out (webhook, log) POST: the phase, the endpoint, the request's
// metadata, the request body and, after the request, the answer.
import type { CheckInput } from '../check.ts';

export function hookEvent(input: CheckInput): Record<string, unknown> {
  return {
    event_type: input.phase === 'before' ? 'before_request_hook' : 'after_request_hook',
    endpoint: input.endpoint,
    metadata: input.metadata,
    request: { json: input.request },
    response: input.phase === 'after' ? { json: input.response } : null,
  };
}
