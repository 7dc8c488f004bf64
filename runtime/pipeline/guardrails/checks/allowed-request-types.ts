// default.allowedRequestTypes: the request's endpoint is in allowedTypes (when given) and not in blockedTypes.
import type { CheckDefinition } from '../check.ts';

export const allowedRequestTypes: CheckDefinition = {
  kind: 'verdict',
  readsText: false,
  prepare(parameters) {
    const allowed = Array.isArray(parameters.allowedTypes) ? new Set(parameters.allowedTypes as string[]) : null;
    const blocked = new Set(Array.isArray(parameters.blockedTypes) ? (parameters.blockedTypes as string[]) : []);
    return (input) => {
      if (blocked.has(input.endpoint)) return { verdict: false, explanation: `${input.endpoint} requests are blocked` };
      if (allowed !== null && !allowed.has(input.endpoint)) return { verdict: false, explanation: `${input.endpoint} requests are not allowed` };
      return { verdict: true, explanation: `${input.endpoint} requests are allowed` };
    };
  },
};
