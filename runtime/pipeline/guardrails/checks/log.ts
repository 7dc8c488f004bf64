// default.log: POSTs the request and (after the request) the answer to logURL, and always passes. A
// failed POST is reported as the check's error, never as a failure: logging must not block traffic.
import type { CheckDefinition } from '../check.ts';
import { hookHttp } from '../hook-http.ts';

const LOG_TIMEOUT_MS = 3000;

export const log: CheckDefinition = {
  kind: 'verdict',
  prepare(parameters, tools) {
    const url = new URL(parameters.logURL as string);
    const headers = (parameters.headers as Record<string, string> | undefined) ?? {};
    return async (input) => {
      const entry = {
        event_type: input.phase === 'before' ? 'before_request_hook' : 'after_request_hook',
        endpoint: input.endpoint,
        metadata: input.metadata,
        request: { json: input.request },
        response: input.phase === 'after' ? { json: input.response } : null,
      };
      const answer = await hookHttp(tools.hostPolicy, url, 'logURL', { method: 'POST', headers, json: entry, timeoutMs: LOG_TIMEOUT_MS, signal: input.signal });
      if (answer.status < 200 || answer.status >= 300) throw new Error(`the log endpoint answered ${answer.status}`);
      return { verdict: true, explanation: `logged to ${url.host}` };
    };
  },
};
