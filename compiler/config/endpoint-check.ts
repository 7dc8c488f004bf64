// CFG_PROVIDER_LACKS_ENDPOINT (a compile warning): a config is not bound to one endpoint, but a
// conditional branch that tests `url.pathname` is. A target reached only through such branches whose
// provider lacks one of the endpoints it can be reached for would answer 400 endpoint_not_supported
// on every such request (schema/providers.json says which endpoints each provider has).
//
// Each conditional is evaluated, in order, for every typed endpoint path (schema/api.json): a query
// field other than url.pathname is unknown there, so a condition is "may hold" unless the pathname
// decides it; a condition that surely holds stops the ones after it, as at run time.
//
// To stay quiet where a warning would be noise, a target reached only by exclusion (the default
// branch, or `$ne`/`$nin` on the path) is warned about only when its provider offers none of the
// endpoints that reach it; a target a condition selects by path (`$eq`, `$in`, `$regex`, ranges) is
// warned about for each endpoint it lacks.
import apiManifest from '../../schema/api.json' with { type: 'json' };
import { compilePattern } from './linear-regex.ts';
import { COMPARISONS, matches } from './query-operators.ts';
import { providerEntry, type ProviderEndpoint } from './providers.ts';
import type { PlanNode, PlanQuery } from './route-plan.ts';

export const PROVIDER_LACKS_ENDPOINT = 'CFG_PROVIDER_LACKS_ENDPOINT';

export interface EndpointWarning {
  /** The target's `provider` (every target names its own provider or virtual key). */
  pointer: string;
  provider: string;
  missing: ProviderEndpoint[];
}

const INFERENCE = 'inference.';

/** Every typed inference path (`/v1/embeddings`, …) and the endpoint it is; templated paths are pass-through. */
const ENDPOINT_OF_PATH: ReadonlyMap<string, ProviderEndpoint> = new Map(
  (apiManifest as { endpoints: { path: string; handler: string }[] }).endpoints
    .filter((e) => e.handler.startsWith(INFERENCE) && !e.path.includes('{'))
    .map((e) => [e.path, e.handler.slice(INFERENCE.length) as ProviderEndpoint]),
);
const ALL_PATHS: readonly string[] = [...ENDPOINT_OF_PATH.keys()];

export function checkProviderEndpoints(root: PlanNode): EndpointWarning[] {
  const warnings: EndpointWarning[] = [];
  const walk = (node: PlanNode, pointer: string, reach: Reach): void => {
    if (node.kind === 'leaf') {
      if (reach.paths.length === ALL_PATHS.length) return;
      const wanted = endpointsOf(reach.paths);
      const missing = missingEndpoints(node.provider, wanted);
      if (missing.length > 0 && (reach.selected || missing.length === wanted.length)) warnings.push({ pointer: `${pointer}/provider`, provider: node.provider!, missing });
      return;
    }
    const childReach = node.mode === 'conditional' ? conditionalReach(node.conditions, node.defaultTarget, reach) : null;
    node.targets.forEach((child, i) => walk(child, `${pointer}/targets/${i}`, childReach === null ? reach : (childReach.get(i) ?? { paths: [], selected: reach.selected })));
  };
  walk(root, '', { paths: ALL_PATHS, selected: false });
  return warnings;
}

/** The paths for which a request may reach a node, and whether a condition picked it by path. */
interface Reach {
  paths: readonly string[];
  selected: boolean;
}

function endpointsOf(paths: readonly string[]): ProviderEndpoint[] {
  return [...new Set(paths.map((path) => ENDPOINT_OF_PATH.get(path)!))];
}

/** The endpoints of `wanted` that the leaf's provider lacks (none for a provider named per request). */
function missingEndpoints(provider: string | null, wanted: readonly ProviderEndpoint[]): ProviderEndpoint[] {
  if (provider === null || provider.startsWith('@')) return [];
  const entry = providerEntry(provider);
  if (entry === undefined) return []; // CFG_UNKNOWN_PROVIDER already failed the compile
  return wanted.filter((endpoint) => !entry.endpoints.includes(endpoint));
}

/** For each target index, how a request may reach it. */
function conditionalReach(conditions: readonly { query: PlanQuery; then: number }[], defaultTarget: number | null, parent: Reach): Map<number, Reach> {
  const reach = new Map<number, Reach>();
  const add = (target: number, path: string, selected: boolean): void => {
    const known = reach.get(target);
    reach.set(target, { paths: [...(known?.paths ?? []), path], selected: (known?.selected ?? false) || selected });
  };
  for (const path of parent.paths) {
    let decided = false;
    for (const { query, then } of conditions) {
      const verdict = holdsFor(query, path);
      if (verdict !== false) add(then, path, parent.selected || selectsByPath(query));
      if (verdict === true) {
        decided = true;
        break;
      }
    }
    if (!decided && defaultTarget !== null) add(defaultTarget, path, parent.selected);
  }
  return reach;
}

/** True when the query names paths it wants (not only paths it excludes). */
function selectsByPath(query: PlanQuery): boolean {
  switch (query.op) {
    case 'and': return query.all.some(selectsByPath);
    case 'or': return query.any.some(selectsByPath);
    case 'compare': return query.field.root === 'url' && query.operator !== '$ne' && query.operator !== '$nin';
  }
}

/** Three-valued: true or false when the pathname decides the query, undefined when other fields do. */
function holdsFor(query: PlanQuery, pathname: string): boolean | undefined {
  switch (query.op) {
    case 'and': return combined(query.all, pathname, false);
    case 'or': return combined(query.any, pathname, true);
    case 'compare':
      if (query.field.root !== 'url') return undefined;
      return query.operator === '$regex' ? matches(pathname, compilePattern(query.value as string)) : COMPARISONS[query.operator](pathname, query.value);
  }
}

/** `$and` (a false part decides) or `$or` (a true part decides); otherwise unknown if any part is. */
function combined(parts: readonly PlanQuery[], pathname: string, deciding: boolean): boolean | undefined {
  let result: boolean | undefined = !deciding;
  for (const part of parts) {
    const verdict = holdsFor(part, pathname);
    if (verdict === deciding) return deciding;
    if (verdict === undefined) result = undefined;
  }
  return result;
}
