// The API's simulation body (schema/requests/config-simulate.json, already validated) as a
// SimulationInput: targets resolved against the plan, outcomes parsed, metadata as its header.
import type { ConfigSimulate } from '../../generated/types.ts';
import type { RoutePlan } from '../core/plan.ts';
import { outcomeFromJson, resolveTargets } from './outcome-script.ts';
import { DEFAULT_SEED, DEFAULT_SIMULATED_PATH, metadataHeader, type SimulationInput } from './simulate.ts';

export function simulationInput(plan: RoutePlan, body: ConfigSimulate): SimulationInput {
  const outcomes = Object.entries(body.outcomes ?? {}).map(([target, list]) => [target, list.map((value, i) => outcomeFromJson(value, `/outcomes/${target}/${i}`))] as const);
  return {
    path: body.path ?? DEFAULT_SIMULATED_PATH,
    body: body.request,
    headers: { ...(body.headers ?? {}), ...(body.metadata === undefined ? {} : metadataHeader(body.metadata as Record<string, string>)) },
    outcomes: resolveTargets(plan, outcomes, '/outcomes'),
    openCircuits: body.open_circuits ?? [],
    seed: body.seed ?? DEFAULT_SEED,
  };
}
