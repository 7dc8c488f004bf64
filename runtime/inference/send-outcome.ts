// Writes the router's outcome to the client: the gateway headers, then either the gateway error body
// or the provider's status, headers and bytes as received, streamed with backpressure. A body that
// breaks mid-way must never look like a success.
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Outcome } from '../router/outcome.ts';
import type { RequestContext } from '../server/context.ts';
import { GatewayError } from '../core/errors.ts';
import { CACHE_STATUS_HEADER, LAST_USED_OPTION_INDEX_HEADER, PROVIDER_HEADER, RETRY_ATTEMPT_COUNT_HEADER } from '../core/gateway-headers.ts';
import { CACHE_STATUS } from '../core/request-record.ts';
import { sendGatewayError } from '../server/respond.ts';
import { unreadAnswerError } from '../pipeline/answers.ts';
import { isEventStreamType } from '../core/event-stream-type.ts';

/**
 * Puts the gateway headers of an outcome into `headers`: which target answered, retries, provider,
 * and what stages added. An answer refused before routing chose a target (a guardrail on the
 * request, a limit on the whole route) has no target and no provider: those two are left out
 * rather than sent empty.
 */
export function putOutcomeHeaders(headers: OutgoingHttpHeaders, outcome: Outcome): void {
  if (outcome.leafPath !== '') headers[LAST_USED_OPTION_INDEX_HEADER] = outcome.leafPath;
  headers[RETRY_ATTEMPT_COUNT_HEADER] = String(outcome.retries);
  if (outcome.provider !== '') headers[PROVIDER_HEADER] = outcome.provider;
  const added = outcome.headers;
  if (added !== undefined) Object.assign(headers, added);
  // A cache stage that ran said HIT, MISS or REFRESH; every other routed answer consulted no cache
  // (none on the route, or a limit or guardrail refused the request before the lookup).
  if (added?.[CACHE_STATUS_HEADER] === undefined) headers[CACHE_STATUS_HEADER] = CACHE_STATUS.disabled;
}

/** The gateway headers of an outcome, set before an answer the caller writes itself. */
export function setOutcomeHeaders(res: ServerResponse, outcome: Outcome): void {
  const headers: OutgoingHttpHeaders = {};
  putOutcomeHeaders(headers, outcome);
  for (const name in headers) res.setHeader(name, headers[name]!);
}

export async function sendOutcome(ctx: RequestContext, outcome: Outcome): Promise<void> {
  const res = ctx.res;
  const upstream = outcome.response;
  if (upstream === null) {
    setOutcomeHeaders(res, outcome);
    sendGatewayError(res, outcome.error ?? new GatewayError('internal_error'));
    return;
  }
  if (ctx.clientGone) {
    upstream.discard();
    return;
  }
  // The gateway headers join the provider's in one object and one writeHead: no setHeader before it,
  // which would make node:http merge every header one at a time (runtime/server/gateway-response.ts).
  // Written with the first byte: a body that fails before one is answered as the error it is.
  const headers = upstream.headers;
  putOutcomeHeaders(headers, outcome);
  res.deferHead(upstream.status, headers);
  try {
    await upstream.forwardTo(res);
  } catch (error) {
    if (ctx.clientGone || res.destroyed) return;
    if (res.dropDeferredHead()) {
      // Nothing of the answer reached the client: a failed attempt's error, with the gateway headers.
      setOutcomeHeaders(res, outcome);
      sendGatewayError(res, unreadAnswerError(error));
      return;
    }
    const contentType = upstream.headers['content-type'];
    if (isEventStreamType(contentType)) {
      // An SSE client reads events, not the HTTP framing: tell it in its own terms, and send no [DONE].
      const broken = new GatewayError('upstream_stream_broken', `The provider stream broke: ${(error as Error).message}`, null, { provider: outcome.provider });
      res.end(`event: error\ndata: ${JSON.stringify(broken.toBody())}\n\n`);
    } else {
      // Any other body: cut the connection so the client sees a truncated response, not a short one.
      res.destroy();
    }
  }
}
