// default.webhook: POSTs the request (and, after the request, the answer) to webhookURL and reads
// {"verdict": boolean, "transformedData"?: object}. transformedData replaces the request body (before)
// or the answer body (after). No answer in time, a non-2xx status or a body of another shape is an
// error: the check fails then unless failOnError is false.
import type { CheckDefinition } from '../check.ts';
import { hookHttp } from '../hook-http.ts';
import { hookEventBytes } from './hook-event.ts';
import { parseJson } from '../../../../compiler/config/json-parse.ts';

export const webhook: CheckDefinition = {
  kind: 'verdict',
  readsText: false,
  prepare(parameters, tools) {
    const url = new URL(parameters.webhookURL as string);
    const headers = (parameters.headers as Record<string, string> | undefined) ?? {};
    const timeoutMs = typeof parameters.timeout === 'number' ? parameters.timeout : 3000;
    return async (input) => {
      const answer = await hookHttp(tools.hostPolicy, url, 'webhookURL', { method: 'POST', headers, body: hookEventBytes(input), timeoutMs, signal: input.signal });
      if (answer.status < 200 || answer.status >= 300) throw new Error(`the webhook answered ${answer.status}`);
      const parsed = parseJson(answer.body.toString('utf8')) as { verdict?: unknown; transformedData?: unknown; explanation?: unknown };
      if (typeof parsed?.verdict !== 'boolean') throw new Error('the webhook answer has no boolean "verdict"');
      const explanation = typeof parsed.explanation === 'string' ? parsed.explanation : `the webhook said ${parsed.verdict ? 'pass' : 'fail'}`;
      const transformed = parsed.transformedData;
      if (transformed !== undefined && transformed !== null) {
        if (typeof transformed !== 'object' || Array.isArray(transformed)) throw new Error('the webhook\'s "transformedData" is not an object');
        return { verdict: parsed.verdict, explanation, transformedBody: transformed as Record<string, unknown> };
      }
      return { verdict: parsed.verdict, explanation };
    };
  },
};
