// A semantic cache needs the server's embeddings route (GATEWAY_SEMANTIC_CACHE_EMBEDDINGS), which a
// config cannot name itself: `gateway compile` warns when it runs without that setting, and `serve`
// refuses to start with a saved config that has a semantic cache it cannot run (docs/cache.md).
import { locate, parseWithPositions, type SourcePosition } from './json-locate.ts';
import type { PlanNode, RoutePlan } from './route-plan.ts';

export const SEMANTIC_CACHE_SETTING = 'GATEWAY_SEMANTIC_CACHE_EMBEDDINGS';
export const SEMANTIC_CACHE_NEEDS_SERVER = 'CFG_SEMANTIC_CACHE_NEEDS_SERVER';

export function semanticCacheMessage(): string {
  return `a semantic cache embeds requests through the server's embeddings route: serve needs ${SEMANTIC_CACHE_SETTING} and GATEWAY_SEMANTIC_CACHE_MODEL, or it refuses this config`;
}

/** JSON pointers of the `cache.mode` values that say semantic (where set, not where inherited). */
export function semanticCachePointers(plan: RoutePlan): string[] {
  const pointers: string[] = [];
  // A child inherits its parent's cache: only the topmost node of a run of semantic ones set it.
  const walk = (node: PlanNode, parentMode: string | null, pointer: string): void => {
    const mode = node.cache?.mode ?? null;
    if (mode === 'semantic' && parentMode !== 'semantic') pointers.push(`${pointer}/cache/mode`);
    if (node.kind === 'strategy') node.targets.forEach((child, i) => walk(child, mode, `${pointer}/targets/${i}`));
  };
  walk(plan.root, null, '');
  return pointers;
}

/**
 * The semantic caches of a plan as errors, for a gateway that cannot run them: a config saved
 * through the API, or a file changed under a running serve, is refused as the start refuses one.
 */
export function semanticCacheErrors(plan: RoutePlan): Array<{ code: typeof SEMANTIC_CACHE_NEEDS_SERVER; pointer: string; message: string; hint: string }> {
  return semanticCachePointers(plan).map((pointer) => ({
    code: SEMANTIC_CACHE_NEEDS_SERVER,
    pointer,
    message: `This gateway has no semantic cache: ${semanticCacheMessage()}.`,
    hint: `use "mode": "simple", or start the gateway with ${SEMANTIC_CACHE_SETTING}`,
  }));
}

/** Line and column of a pointer in a config's source (1:1 when it does not parse). */
export function positionIn(source: string, pointer: string): SourcePosition {
  const parsed = parseWithPositions(source);
  return parsed.ok ? locate(parsed.map, pointer) : { line: 1, column: 1 };
}
