// default.log: POSTs the request and (after the request) the answer to logURL, and always passes. A
// failed POST is reported as the check's error, never as a failure: logging must not block traffic.
import type { CheckDefinition } from '../check.ts';
import { hookHttp } from '../hook-http.ts';
import { hookEventBytes } from './hook-event.ts';

const LOG_TIMEOUT_MS = 3000;

export const log: CheckDefinition = {
  kind: 'verdict',
  readsText: false,
  prepare(parameters, tools) {
    const url = new URL(parameters.logURL as string);
    const headers = (parameters.headers as Record<string, string> | undefined) ?? {};
    return async (input) => {
      const answer = await hookHttp(tools.hostPolicy, url, 'logURL', { method: 'POST', headers, body: hookEventBytes(input), timeoutMs: LOG_TIMEOUT_MS, signal: input.signal });
      if (answer.status < 200 || answer.status >= 300) throw new Error(`the log endpoint answered ${answer.status}`);
      return { verdict: true, explanation: `logged to ${url.host}` };
    };
  },
};
