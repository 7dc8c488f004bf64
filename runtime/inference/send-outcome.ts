// Writes the router's outcome to the client: the gateway headers, then either the gateway error body
// or the provider's status, headers and bytes as received, streamed with backpressure. A body that
// breaks mid-way must never look like a success.
import type { Outcome } from '../router/outcome.ts';
import type { RequestContext } from '../server/context.ts';
import { GatewayError } from '../server/errors.ts';
import { sendGatewayError, setGatewayHeaders } from '../server/respond.ts';

export async function sendOutcome(ctx: RequestContext, outcome: Outcome): Promise<void> {
  const res = ctx.res;
  setGatewayHeaders(res, { lastUsedOptionIndex: outcome.leafPath, retryAttemptCount: outcome.retries, provider: outcome.provider });
  const upstream = outcome.response;
  if (upstream === null) {
    sendGatewayError(res, outcome.error ?? new GatewayError('internal_error'));
    return;
  }
  if (ctx.clientGone) {
    upstream.discard();
    return;
  }
  res.writeHead(upstream.status, upstream.headers);
  try {
    await upstream.forwardTo(res);
  } catch (error) {
    if (ctx.clientGone || res.destroyed) return;
    const contentType = upstream.headers['content-type'];
    if (typeof contentType === 'string' && contentType.startsWith('text/event-stream')) {
      // An SSE client reads events, not the HTTP framing: tell it in its own terms, and send no [DONE].
      const broken = new GatewayError('upstream_stream_broken', `The provider stream broke: ${(error as Error).message}`, null, { provider: outcome.provider });
      res.end(`event: error\ndata: ${JSON.stringify(broken.toBody())}\n\n`);
    } else {
      // Any other body: cut the connection so the client sees a truncated response, not a short one.
      res.destroy();
    }
  }
}
