// The document the checks that call out (webhook, log) POST: the phase, the endpoint, the request's
// metadata, the request body and, after the request, the answer. Serialised once per phase: every
// check of a phase reads the same input, and a request body can be megabytes.
import type { CheckInput } from '../check.ts';
import { kept } from '../../../core/memo.ts';

const serialised = new WeakMap<CheckInput, Buffer>();

/** The event's JSON bytes, made once for all the checks of a phase that post it. */
export function hookEventBytes(input: CheckInput): Buffer {
  return kept(serialised, input, () => Buffer.from(JSON.stringify(hookEvent(input))));
}

function hookEvent(input: CheckInput): Record<string, unknown> {
  return {
    event_type: input.phase === 'before' ? 'before_request_hook' : 'after_request_hook',
    endpoint: input.endpoint,
    metadata: input.metadata,
    request: { json: input.request },
    response: input.phase === 'after' ? { json: input.response } : null,
  };
}
