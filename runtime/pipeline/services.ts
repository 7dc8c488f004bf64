// What stages may use, handed to `Stage.prepare` when a router is built. Each stage's feature adds
// the service it needs here (cache backend, counters, guardrail catalog, …); a stage keeps what it
// uses in its closure, so the request path never looks a service up.
import type { GatewayLogger } from '../core/log.ts';

export interface Services {
  logger: GatewayLogger;
  /** Wall clock in Unix milliseconds; tests pass a fake one. */
  now(): number;
}
