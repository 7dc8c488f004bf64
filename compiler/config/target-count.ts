// How many targets one config may hold. A config is checked on the thread that serves requests (an
// inline config once per distinct text), and every target costs schema validation, a plan node and
// emitted code: a 60 KB header of 2,000 one-line targets took 0.2–0.4 s to check and build, and as
// many invalid ones ~1 s (the schema validator's errors of each target are copied into its parent's,
// so its work grows with the square of the targets). Far above any real route's targets.

import type { ConfigError } from './errors.ts';

/** The most targets one config may hold, at every level of nesting together. */
export const MAX_CONFIG_TARGETS = 1_000;

/**
 * The pointer of the first target past MAX_CONFIG_TARGETS, depth first in config order, or null
 * when the config holds no more. Reads the raw value defensively (the schema check comes later);
 * the caller has bounded its depth.
 */
export function targetPastLimit(config: unknown): string | null {
  let seen = 0;
  const walk = (node: unknown, at: string): string | null => {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return null;
    const targets = (node as { targets?: unknown }).targets;
    if (!Array.isArray(targets)) return null;
    for (let i = 0; i < targets.length; i++) {
      const pointer = `${at}/targets/${i}`;
      if (++seen > MAX_CONFIG_TARGETS) return pointer;
      const past = walk(targets[i], pointer);
      if (past !== null) return past;
    }
    return null;
  };
  return walk(config, '');
}

/** CFG_TOO_MANY_TARGETS at the first target past the limit, or null. */
export function tooManyTargets(config: unknown): ConfigError | null {
  const pointer = targetPastLimit(config);
  if (pointer === null) return null;
  return {
    code: 'CFG_TOO_MANY_TARGETS',
    pointer,
    message: `The config holds more than ${MAX_CONFIG_TARGETS} targets (counted at every level of nesting), the most one config may; this is the first past them.`,
    hint: 'split the targets over several configs, and have the client name the one it needs in x-gateway-config',
  };
}
